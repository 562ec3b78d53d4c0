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
    from mjscope.paths import write_json

    table = Table(title="bundled models")
    cols = ("name", "kind", "nq", "nv", "nu", "description")
    for col in cols:
        table.add_column(col, justify="right" if col in ("nq", "nv", "nu") else "left")
    rows = []
    for e in entries():
        m = compile_spec(e.builder(), e.name)
        rows.append(dict(zip(cols, (e.name, e.kind, m.nq, m.nv, m.nu, e.description), strict=True)))
        table.add_row(*(str(v) for v in rows[-1].values()))
    console(args).print(table)
    if args.json is not None:
        write_json(args.json, rows)
    return 0
