"""The ``mjscope`` command line.

Each module in this package that defines ``register(subparsers)`` adds one subcommand; the
subcommand's handler is stored as ``func`` on the parsed namespace and returns the exit code.
Heavy imports happen inside the handlers, so ``mjscope --help`` stays fast.

Exit codes: 0 success, 1 a failed check (gate FAIL, diagnose errors, track test), 2 a user
error (bad argument, file, config), printed as one line.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from mjscope import __version__
from mjscope.exceptions import MjscopeError

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def command_modules() -> list[ModuleType]:
    """Modules of this package that provide a subcommand, sorted by name."""
    mods = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(mod, "register"):
            mods.append(mod)
    return mods


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="mjscope",
        description="MuJoCo toolkit for robot engineers: diagnose, mirror, hand, teleop, dock.",
    )
    parser.add_argument("--version", action="version", version=f"mjscope {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in command_modules():
        mod.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mjscope`` with ``argv`` (default: ``sys.argv[1:]``) and return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args))
    except MjscopeError as e:
        print(f"mjscope {args.command}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"mjscope {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
