"""The ``mjscope`` console script: Ctrl-C at any moment, even while importing, exits 130 quietly.

Nothing but the standard library is imported before the guard is in place.
"""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130


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
