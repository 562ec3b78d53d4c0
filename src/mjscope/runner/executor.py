"""``run_items``: a function over numbered items on a backend, results back in index order.

The driver holds only a bounded window of items: item ``k`` is started only while
``k < oldest unfinished + window``, so memory stays flat for 10⁵ items; results are yielded in
index order as soon as every earlier one is done (the caller streams them to disk). An attempt
that raised or whose worker died is retried (at most ``cfg.retries`` more times, the lowest
index first); after that the item is yielded as failed, the run goes on. SIGTERM is turned into
``KeyboardInterrupt`` while items run; on either, every worker is stopped and the interrupt
propagates: the results yielded so far are the caller's to keep. With ``cfg.stop_wait`` > 0
the local workers first get SIGINT and that long to stop their running items, and what those
raised comes back in one :class:`~mjscope.runner.base.RunInterrupted`.
"""

from __future__ import annotations

import heapq
import logging
import os
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any

from mjscope.runner.base import (
    DIED,
    INTERRUPTED,
    OK,
    Backend,
    ExecutorCfg,
    ItemResult,
    Outcome,
    RunInterrupted,
)
from mjscope.runner.progress import Progress
from mjscope.signals import sigterm_as_interrupt

logger = logging.getLogger(__name__)

POLL_S = 0.2  # longest wait for one outcome before the progress display refreshes [s]


def default_workers(cfg: ExecutorCfg) -> int:
    """Local worker processes: ``cfg.jobs`` or one per CPU."""
    return cfg.jobs or os.cpu_count() or 1


def open_backend(fn: Callable[[Any], Any], cfg: ExecutorCfg, n_items: int | None) -> Backend:
    """The backend ``cfg`` asks for (Ray only imported when asked for).

    Raises:
        ExecutorError: Ray is asked for but missing or unreachable.
    """
    if cfg.ray is not None:
        from mjscope.runner.ray_backend import RayBackend

        return RayBackend(fn, cfg.ray)
    from mjscope.runner.local import InlineBackend, ProcessBackend

    workers = default_workers(cfg)
    if n_items is not None:
        workers = min(workers, max(n_items, 1))
    if workers <= 1:
        return InlineBackend(fn)
    return ProcessBackend(fn, workers, interruptible=cfg.stop_wait > 0)


def run_items(
    fn: Callable[[Any], Any],
    items: Iterable[Any],
    cfg: ExecutorCfg | None = None,
    total: int | None = None,
    label: str = "items",
    backend: Backend | None = None,
) -> Generator[ItemResult, None, None]:
    """Yield ``fn(item)`` for every item, in input order, as :class:`ItemResult` records.

    Args:
        fn: A function of one item (picklable by reference for process and Ray backends).
        items: The work items, read lazily (a generator is fine).
        cfg: Backend and retry options (default: the local pool, one worker per CPU).
        total: Number of items (for the progress bar; default ``len(items)`` when known).
        label: What the progress bar calls the items.
        backend: A backend to use instead of the one ``cfg`` selects; its owner closes it
            (one ``cfg`` selects is closed here at the end).

    Yields:
        One result per item, ``index`` 0, 1, 2, ...; failed items carry their error.

    Raises:
        ExecutorError: The backend cannot start.
        KeyboardInterrupt: Ctrl-C or SIGTERM; workers are stopped first. In this process
            (one worker) it is what the item raised; with ``cfg.stop_wait`` > 0 on local
            workers, a :class:`~mjscope.runner.base.RunInterrupted` with what theirs raised.
    """
    cfg = (cfg or ExecutorCfg()).check()
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    be = backend if backend is not None else open_backend(fn, cfg, total)
    owned = backend is None
    window = cfg.window or 4 * be.workers + 16
    state = _State(iter(items), window)
    stopped: list[Outcome] = []
    try:
        with sigterm_as_interrupt(), Progress(label, total, cfg.progress) as bar:
            try:
                while not state.finished():
                    _fill(be, state)
                    for out in be.poll(POLL_S):
                        if out.kind == INTERRUPTED:  # a worker got the SIGINT before us
                            stopped.append(out)
                            raise KeyboardInterrupt(out.value)
                        _record(state, out, cfg.retries, bar)
                    yield from state.ready()
            except KeyboardInterrupt as e:
                interrupt = getattr(be, "interrupt", None)
                if cfg.stop_wait > 0 and interrupt is not None:
                    stopped += interrupt(cfg.stop_wait)
                if stopped:
                    got = sorted(stopped, key=lambda o: o.index)
                    raise RunInterrupted(tuple((o.index, o.value) for o in got)) from e
                raise
    finally:
        if owned:
            be.close()


class _State:
    """Bookkeeping of one run: pending items, attempts, retries, finished results."""

    def __init__(self, items: Iterator[Any], window: int) -> None:
        self.items, self.window = items, window
        self.exhausted = False
        self.next_new = 0  # index of the next item not yet read
        self.next_out = 0  # index of the next result to yield
        self.held: dict[int, Any] = {}  # index -> item, until its result is final
        self.attempts: dict[int, int] = {}
        self.retry: list[int] = []  # heap of indices waiting for another attempt
        self.done: dict[int, ItemResult] = {}
        self.running = 0

    def take(self) -> int | None:
        """The next index to start: a retry first, then a new item inside the window."""
        if self.retry:
            return heapq.heappop(self.retry)
        if self.exhausted or self.next_new >= self.next_out + self.window:
            return None
        try:
            item = next(self.items)
        except StopIteration:
            self.exhausted = True
            return None
        k, self.next_new = self.next_new, self.next_new + 1
        self.held[k] = item
        return k

    def finished(self) -> bool:
        return self.exhausted and not self.held and not self.done and not self.retry

    def ready(self) -> Iterator[ItemResult]:
        while self.next_out in self.done:
            yield self.done.pop(self.next_out)
            self.next_out += 1


def _fill(be: Backend, state: _State) -> None:
    while be.free() > 0:
        k = state.take()
        if k is None:
            break
        state.attempts[k] = state.attempts.get(k, 0) + 1
        state.running += 1
        be.submit(k, state.held[k])


def _record(state: _State, out: Outcome, retries: int, bar: Progress) -> None:
    k = out.index
    if k not in state.held:  # a late duplicate (cannot happen with these backends)
        return
    state.running -= 1
    n = state.attempts[k]
    if out.kind == OK:
        state.done[k] = ItemResult(k, out.value, "", n)
        del state.held[k], state.attempts[k]
        bar.advance(failed=False)
        return
    if out.retryable and n <= retries:
        heapq.heappush(state.retry, k)
        why = out.value if out.kind == DIED else f"it raised {out.value}"
        logger.warning("retrying item %d (attempt %d of %d): %s", k, n + 1, retries + 1, why)
        bar.note_retry(why)
        return
    state.done[k] = ItemResult(k, None, str(out.value), n)
    del state.held[k], state.attempts[k]
    bar.advance(failed=True)
