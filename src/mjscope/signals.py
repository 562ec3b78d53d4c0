"""Signal handling shared by the long-running and the batch commands (and the executor)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

EXIT_OK = 0  # done
EXIT_FAILED = 1  # a check failed or a safety stop
EXIT_INTERRUPTED = 130  # the exit code of a command ended by Ctrl-C (128 + SIGINT)


class _InterruptLatch:
    """Remembers that a Ctrl-C or SIGTERM ended a run cleanly (the loop caught it).

    Loops that turn an interrupt into a clean end (a report is still written) call
    :meth:`note`; the command's exit code then comes from :func:`exit_code`.
    """

    def __init__(self) -> None:
        self.seen = False

    def note(self) -> None:
        """A Ctrl-C or SIGTERM ended the run."""
        self.seen = True

    def reset(self) -> None:
        """A new command starts."""
        self.seen = False


INTERRUPTS = _InterruptLatch()


def exit_code(failed: bool, endless: bool) -> int:
    """The one exit rule of every command, after its report is written.

    Args:
        failed: A check failed or a safety stop happened during the run.
        endless: The run had no end of its own (a mirror, bridge or emulator without
            ``--duration``): Ctrl-C is its normal end.

    Returns:
        130 when an interrupt cut short a run that had an end of its own; else 1 when
        ``failed``; else 0.
    """
    if INTERRUPTS.seen and not endless:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if failed else EXIT_OK


@contextmanager
def stop_on_sigterm(stop: threading.Event) -> Iterator[None]:
    """SIGTERM (e.g. from a launch system) sets ``stop`` like Ctrl-C, so reports get written.

    Outside the main thread (where Python cannot install handlers) this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        INTERRUPTS.note()
        stop.set()

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM raises ``KeyboardInterrupt`` like Ctrl-C (main thread only).

    So a command stopped by a launch system runs the same clean-up as on Ctrl-C (partial files
    named, workers stopped). Outside the main thread (where Python cannot install handlers)
    this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` was caused by Ctrl-C.

    A ``KeyboardInterrupt`` inside an extension module's initialisation (NumPy, MuJoCo) reaches
    Python as ``ImportError: initialization failed`` with the interrupt as its cause.
    """
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False
