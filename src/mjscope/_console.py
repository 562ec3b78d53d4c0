"""The ``mjscope`` console script: Ctrl-C at any moment, even while importing, exits 130 quietly.

Nothing but the standard library is imported before the guard is in place. A Ctrl-C that lands
before this module runs (while Python itself still starts up and imports ``site``) is outside
mjscope's contract: the interpreter handles it. With ``MJSCOPE_ANNOUNCE_START=1`` the command
writes ``mjscope: started`` to stderr once the guard is in place, so a test (or a supervisor) can
wait for that line instead of guessing how long start-up takes.
"""

from __future__ import annotations

import os
import sys

from mjscope.signals import EXIT_INTERRUPTED, interrupted


def run() -> None:
    """Import and run the command line; exit with its code (130 on Ctrl-C)."""
    try:
        if os.environ.get("MJSCOPE_ANNOUNCE_START") == "1":
            print("mjscope: started", file=sys.stderr, flush=True)
        from mjscope.cli import main

        code = main()
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except Exception as e:
        if not interrupted(e):
            raise
        code = EXIT_INTERRUPTED
    sys.exit(code)
