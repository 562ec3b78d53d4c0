"""The ``mjscope`` console script: Ctrl-C at any moment, even while importing, exits 130 quietly.

Nothing but the standard library is imported before the guard is in place. A Ctrl-C that lands
before this module runs (while Python itself still starts up and imports ``site``) is outside
mjscope's contract: the interpreter handles it. With ``MJSCOPE_ANNOUNCE_START=1`` the command
writes ``mjscope: started`` to stderr once the guard is in place, so a test (or a supervisor) can
wait for that line instead of guessing how long start-up takes.

The guard's SIGINT handler raises ``KeyboardInterrupt`` as Python's own does, and remembers that
it did: a library can lose the exception (CPython drops one raised in an import lock's weakref
callback; ctypes turns one raised while it converts an argument into ``ArgumentError``), and
the command must still end 130. So an error after a Ctrl-C, or a run that carried on because
its interrupt was dropped before any of mjscope's loops saw it, ends 130 quietly as well.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

from mjscope.signals import EXIT_INTERRUPTED, INTERRUPTS, interrupted

_sigint = [False]  # set by the handler: a Ctrl-C reached this process


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _sigint[0] = True
    raise KeyboardInterrupt


def run() -> None:
    """Import and run the command line; exit with its code (130 on Ctrl-C)."""
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        if os.environ.get("MJSCOPE_ANNOUNCE_START") == "1":
            print("mjscope: started", file=sys.stderr, flush=True)
        from mjscope.cli import main

        code = main()
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except Exception as e:
        if not (interrupted(e) or _sigint[0]):
            raise
        code = EXIT_INTERRUPTED
    if _sigint[0] and not INTERRUPTS.seen:  # dropped before a loop could note it
        code = EXIT_INTERRUPTED
    sys.exit(code)
