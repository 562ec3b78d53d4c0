"""``mjscope models``: list bundled models."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``models`` subcommand."""
    p = sub.add_parser("models", help="list bundled models (name, kind, nq/nv/nu, description)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List every bundled model with its dimensions."""
    from rich.table import Table

    from mjscope.cli._common import console
    from mjscope.models import compile_spec, entries

    table = Table(title="bundled models")
    for col in ("name", "kind", "nq", "nv", "nu", "description"):
        table.add_column(col, justify="right" if col in ("nq", "nv", "nu") else "left")
    for e in entries():
        m = compile_spec(e.builder(), e.name)
        table.add_row(e.name, e.kind, str(m.nq), str(m.nv), str(m.nu), e.description)
    console().print(table)
    return 0
