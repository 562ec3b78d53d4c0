"""The ``mjscope`` console script: Ctrl-C at any moment, even while importing, exits 130 quietly.

Nothing but the standard library is imported before the guard is in place.
"""

from __future__ import annotations

import sys

from mjscope.signals import EXIT_INTERRUPTED, interrupted


def run() -> None:
    """Import and run the command line; exit with its code (130 on Ctrl-C)."""
    try:
        from mjscope.cli import main

        code = main()
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except Exception as e:
        if not interrupted(e):
            raise
        code = EXIT_INTERRUPTED
    sys.exit(code)
