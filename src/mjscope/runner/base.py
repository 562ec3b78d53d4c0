"""The executor's contract: its options, one item's result, a backend's outcomes and errors.

A run maps a function over numbered work items. Items are small and idempotent (running one
twice gives the same value), so an item whose worker failed or was killed is simply run again.
A backend runs items somewhere (this process, local worker processes, a Ray cluster) and
reports :class:`Outcome` records; :func:`mjscope.runner.executor.run_items` decides retries and
hands results back in index order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from mjscope.exceptions import MjscopeError

INSTALL_HINT = 'pip install "mjscope[cluster]"'

#: Outcome kinds: the function returned, raised, or its worker died (killed, crashed), or
#: (a local worker of a run with ``stop_wait``) a Ctrl-C/SIGTERM interrupted it.
OK, ERROR, DIED, INTERRUPTED = "ok", "error", "died", "interrupted"


class ExecutorError(MjscopeError):
    """The executor cannot start (bad option, Ray missing or unreachable)."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped a run whose local workers were given time to stop their items.

    Args:
        stopped: ``(index, exception)`` of each running item that stopped within the wait:
            the ``KeyboardInterrupt`` (or subclass, e.g. one naming partial files) it raised.
    """

    def __init__(self, stopped: tuple[tuple[int, BaseException], ...] = ()) -> None:
        super().__init__(f"{len(stopped)} running items stopped")
        self.stopped = stopped


@dataclass(frozen=True)
class ExecutorCfg:
    """Where and how items run.

    Attributes:
        jobs: Local worker processes (``None``: one per CPU); ``1`` runs in this process.
        ray: ``None``: the local pool; ``"auto"``: an existing Ray cluster (``RAY_ADDRESS`` or
            the one started on this machine); ``"local"``: a private Ray head on 127.0.0.1 for
            this run; else a Ray address (``HOST:PORT`` or ``ray://HOST:PORT``).
        retries: Extra attempts of an item whose function raised or whose worker died; after
            them it is reported as failed (a user error, :class:`MjscopeError`, is not retried).
        window: Items past the oldest unfinished one that may be started (``None``: 4 per
            worker + 16); bounds the driver's memory whatever the number of items.
        progress: Show a progress bar (``None``: only when stderr is a terminal).
        stop_wait: On Ctrl-C or SIGTERM, local workers get SIGINT and this long [s] to stop
            their running items (a ``KeyboardInterrupt`` inside the item, e.g. to keep a
            partial file), reported by :class:`RunInterrupted`; ``0``: workers ignore SIGINT
            and are terminated at once. Ray tasks are always cancelled at once.
    """

    jobs: int | None = None
    ray: str | None = None
    retries: int = 2
    window: int | None = None
    progress: bool | None = None
    stop_wait: float = 0.0

    def check(self) -> ExecutorCfg:
        """Validate the options.

        Raises:
            ExecutorError: ``jobs`` < 1, ``retries`` < 0, ``window`` < 1, ``stop_wait`` < 0
                or an empty ``ray``.
        """
        if self.jobs is not None and self.jobs < 1:
            raise ExecutorError(f"--jobs {self.jobs}: give >= 1 worker processes (or leave it out)")
        if self.retries < 0:
            raise ExecutorError(f"retries {self.retries} must be >= 0")
        if self.window is not None and self.window < 1:
            raise ExecutorError(f"window {self.window} must be >= 1 item")
        if not self.stop_wait >= 0:
            raise ExecutorError(f"stop_wait {self.stop_wait} must be >= 0 s")
        if self.ray is not None and not self.ray.strip():
            raise ExecutorError("--ray needs 'auto', 'local' or a cluster address HOST:PORT")
        return self


@dataclass(frozen=True)
class ItemResult:
    """One item's final result.

    Attributes:
        index: The item's position in the input (0-based).
        value: What the function returned (``None`` when it failed).
        error: Why it failed after every attempt (empty when it succeeded).
        attempts: Times it was started (1 when the first attempt succeeded).
    """

    index: int
    value: Any
    error: str
    attempts: int

    @property
    def ok(self) -> bool:
        """Whether the item succeeded."""
        return not self.error


@dataclass(frozen=True)
class Outcome:
    """What a backend reports for one attempt of one item.

    Attributes:
        index: The item.
        kind: :data:`OK`, :data:`ERROR` or :data:`DIED`.
        value: The return value (``OK``) or the error message.
        retryable: Whether another attempt can help (``False`` for a user error).
    """

    index: int
    kind: str
    value: Any
    retryable: bool = True


class Backend(Protocol):
    """Runs attempts of items; the executor owns ordering and retries."""

    workers: int  # items that run at the same time

    def free(self) -> int:
        """How many more attempts can be submitted now."""
        ...

    def submit(self, index: int, item: Any) -> None:
        """Start one attempt of ``item``."""
        ...

    def poll(self, timeout: float) -> list[Outcome]:
        """Outcomes finished since the last call (waits up to ``timeout`` [s] for one)."""
        ...

    def close(self) -> None:
        """Stop every worker this backend started (running attempts are abandoned)."""
        ...


def describe(index: int, exc: BaseException) -> Outcome:
    """The outcome of an attempt of item ``index`` that raised ``exc``."""
    return Outcome(index, ERROR, f"{type(exc).__name__}: {exc}", not isinstance(exc, MjscopeError))
