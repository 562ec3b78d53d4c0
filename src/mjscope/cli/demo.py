"""``mjscope demo``: every feature on a bundled default, outputs into ``./mjscope-out/``.

A command module that defines ``demo(out: Path, console) -> tuple[list[Path], int]`` (files
written, exit code) is one part; the parts run in the order of ``mjscope.cli.COMMANDS`` and
each lists the files it wrote.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``demo`` subcommand."""
    p = sub.add_parser("demo", help="run every feature on a bundled default into ./mjscope-out/")
    p.add_argument("--out", default="mjscope-out", help="output folder (default ./mjscope-out)")
    p.add_argument("--only", action="append", default=[], help="run only these parts (repeatable)")
    p.set_defaults(func=run)


def _index(root: Path, parts: dict[str, dict[str, object]], status: int) -> Path:
    """``index.html`` linking each part's HTML report and listing its other files."""
    import os

    from mjscope.report import Report, Section, write_html

    links, sections = [], []
    for name, part in parts.items():
        files = [Path(str(f)) for f in part["files"]]  # type: ignore[attr-defined]
        rel = {f: Path(os.path.relpath(f.resolve(), root.resolve())).as_posix() for f in files}
        links += [(f"{name}: {rel[f]}", rel[f]) for f in files if f.suffix == ".html"]
        others = tuple(rel[f] for f in files if f.suffix != ".html")
        sections.append(Section(f"{name} (exit {part['exit_code']})", paragraphs=others))
    return write_html(
        root / "index.html",
        Report(
            title="mjscope demo",
            verdict="OK" if status == 0 else "FAIL",
            summary="every feature on its bundled default; each report opens offline",
            sections=tuple(sections),
            links=tuple(links),
        ),
    )


def run(args: argparse.Namespace) -> int:
    """Run each feature's demo and print where its outputs are."""
    from mjscope.cli import command_modules
    from mjscope.cli._common import console, out_dir
    from mjscope.exceptions import UnknownNameError

    parts = [m for m in command_modules() if hasattr(m, "demo")]
    names = [m.__name__.rsplit(".", 1)[-1] for m in parts]
    for wanted in args.only:
        if wanted not in names:
            raise UnknownNameError("demo part", wanted, names, "Pass --only with one of these")
    from mjscope.paths import write_json

    con = console(args)
    root = out_dir(args.out)
    status = 0
    summary: dict[str, dict[str, object]] = {}
    for mod, name in zip(parts, names, strict=True):
        if args.only and name not in args.only:
            continue
        con.rule(f"demo: {name}")
        written, code = mod.demo(Path(root), con)
        status = max(status, code)
        summary[name] = {"exit_code": code, "files": [str(p) for p in written]}
        for path in written:
            con.print(f"  wrote {path}")
    index = _index(root, summary, status)
    con.rule()
    con.print(f"outputs in {root.resolve()}; open {index}")
    if args.json is not None:
        write_json(args.json, {"out": str(root.resolve()), "exit_code": status, "parts": summary})
    return status
