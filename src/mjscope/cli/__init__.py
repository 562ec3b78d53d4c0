"""The ``mjscope`` command line.

Every command is one module of this package, listed once in :data:`COMMANDS` (in demo order).
A module defines ``register(subparsers)``, which adds its parser and stores its handler as
``func``; the handler turns the arguments into the feature's config and returns the feature's
``run_<command>(cfg, console)`` exit code. A module that defines ``demo(out, console)`` is a
part of ``mjscope demo``. Heavy imports happen inside the handlers, so ``mjscope --help`` stays
fast.

The contract every command keeps (written once, here and in :mod:`mjscope.signals`):

- exit codes: 0 done; 1 a failed check (gate FAIL, diagnose errors, track-test FAIL, compare
  differs, a safe stop, a campaign below its success rate); 2 a user error (bad argument, file,
  config), printed as one line; 130 interrupted. A run with no end of its own (a mirror, bridge,
  mock arm or emulator without ``--duration``) ends normally on Ctrl-C: 0 with its report
  (:func:`mjscope.signals.exit_code`);
- ``--json PATH|-``: the run's summary as JSON (``-``: on stdout, and then nothing else is
  printed there: the human output goes to stderr); the path is checked before the run;
- ``--quiet``: no human output but errors.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from types import ModuleType

from mjscope import __version__
from mjscope.exceptions import MjscopeError
from mjscope.signals import EXIT_INTERRUPTED, INTERRUPTS, interrupted

EXIT_USAGE = 2  # a user error

#: The commands' modules, in the order ``mjscope demo`` runs their demo parts.
COMMANDS = (
    "diagnose",
    "mirror",
    "mock_arm",
    "hand",
    "teleop",
    "dock",
    "rm_emulator",
    "models",
    "bench",
    "demo",
)


def command_modules() -> list[ModuleType]:
    """The modules of :data:`COMMANDS`, in that order."""
    return [importlib.import_module(f"{__name__}.{name}") for name in COMMANDS]


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="mjscope",
        description="MuJoCo toolkit for robot engineers. Every command has its own --help.",
    )
    parser.add_argument("--version", action="version", version=f"mjscope {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in command_modules():
        mod.register(sub)
    for p in sub.choices.values():
        _add_contract_arguments(p)
    for p in (parser, *sub.choices.values()):
        p.allow_abbrev = False  # '--slew-rad 0.02' must not silently mean '--slew-rad-s 0.02'
    return parser


def _add_contract_arguments(p: argparse.ArgumentParser) -> None:
    """``--json PATH|-`` and ``--quiet`` on every command (see the module docstring)."""
    if "--json" not in p._option_string_actions:
        p.add_argument(
            "--json",
            default=None,
            metavar="PATH|-",
            help="write the run's summary as JSON ('-': stdout, human output to stderr)",
        )
    if "--quiet" not in p._option_string_actions:
        p.add_argument("--quiet", action="store_true", help="print nothing but errors")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mjscope`` with ``argv`` (default: ``sys.argv[1:]``) and return the exit code."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:  # Ctrl-C while still starting up: quiet, like any interrupt
        return EXIT_INTERRUPTED
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    INTERRUPTS.reset()
    from mjscope.report.model import set_command

    set_command(sys.argv[1:] if argv is None else argv)
    try:
        if args.json is not None:  # before any work: a bad path must not cost a run
            from mjscope.paths import check_writable

            check_writable(args.json)
        return int(args.func(args))
    except MjscopeError as e:
        print(f"mjscope {args.command}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"mjscope {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except ImportError as e:  # Ctrl-C inside an extension module's initialisation
        if not interrupted(e):
            raise
        print(f"mjscope {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
