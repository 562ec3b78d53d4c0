"""Signal handling shared by the long-running commands (mirror, mock arm, hand, teleop)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


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
