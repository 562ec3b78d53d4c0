"""Signal handling shared by the long-running and the batch commands (and the executor)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

EXIT_INTERRUPTED = 130  # the exit code of a command ended by Ctrl-C (128 + SIGINT)


@contextmanager
def stop_on_sigterm(stop: threading.Event) -> Iterator[None]:
    """SIGTERM (e.g. from a launch system) sets ``stop`` like Ctrl-C, so reports get written.

    Outside the main thread (where Python cannot install handlers) this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, lambda *_: stop.set())
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
