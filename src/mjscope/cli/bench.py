"""``mjscope bench``: run the benchmark scripts under ``benchmarks/`` and print one table.

A benchmark script ``benchmarks/bench_<name>.py`` defines
``run(quick: bool = False) -> list[dict]``; each row has ``metric``, ``value``, ``unit`` and
optionally ``ratio`` (against the bare MuJoCo cost of the same work, measured in the same run),
``target`` and ``note``. Absolute times drift on a shared machine; ratios are the figures to
compare.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``bench`` subcommand."""
    p = sub.add_parser("bench", help="run the performance suite (ratios against bare MuJoCo)")
    p.add_argument("names", nargs="*", help="benchmarks to run (default: all), e.g. diagnose")
    p.add_argument("--quick", action="store_true", help="smaller workloads (a smoke run)")
    p.add_argument("--dir", default=None, help="benchmarks folder (default: ./benchmarks)")
    p.add_argument("--json", default=None, metavar="FILE", help="also write the rows as JSON")
    p.set_defaults(func=run)


def find_benchmarks(folder: str | None) -> Path:
    """Locate the ``benchmarks/`` folder: ``--dir``, the working directory, or the source tree."""
    from mjscope.exceptions import MjscopeError

    candidates = [Path(folder)] if folder else [Path.cwd() / "benchmarks"]
    if not folder:
        candidates.append(Path(__file__).resolve().parents[3] / "benchmarks")
    for c in candidates:
        if c.is_dir():
            return c
    raise MjscopeError(
        f"no benchmarks folder at {', '.join(map(str, candidates))}; "
        "run from the repository root or pass --dir"
    )


def load_script(path: Path) -> Any:
    """Import a benchmark script as a module."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(args: argparse.Namespace) -> int:
    """Run the selected benchmarks and print their rows."""
    from rich.table import Table

    from mjscope.cli._common import console
    from mjscope.exceptions import UnknownNameError
    from mjscope.paths import check_writable

    folder = find_benchmarks(args.dir)
    scripts = {p.stem.removeprefix("bench_"): p for p in sorted(folder.glob("bench_*.py"))}
    for n in args.names:
        if n not in scripts:
            raise UnknownNameError("benchmark", n, scripts)
    json_path = check_writable(args.json) if args.json else None  # fail before minutes of work
    con = console()
    table = Table(title="mjscope bench" + (" (quick)" if args.quick else ""))
    for col in ("benchmark", "metric", "value", "unit", "ratio vs bare", "target", "note"):
        table.add_column(col)
    all_rows: list[dict[str, Any]] = []
    for name, path in scripts.items():
        if args.names and name not in args.names:
            continue
        con.print(f"running {path.name} ...")
        rows = load_script(path).run(quick=args.quick)
        for r in rows:
            r = {"benchmark": name, **r}
            all_rows.append(r)
            ratio = r.get("ratio")
            table.add_row(
                name,
                str(r["metric"]),
                _fmt(r["value"]),
                str(r.get("unit", "")),
                "" if ratio is None else f"{ratio:.2f}x",
                str(r.get("target", "")),
                str(r.get("note", "")),
            )
    con.print(table)
    if json_path is not None:
        _write_json(json_path, all_rows)
    return 0


def _write_json(path: Path, rows: list[dict[str, Any]]) -> None:
    from mjscope.exceptions import OutputError

    try:
        path.write_text(json.dumps(rows, indent=2))
    except OSError as e:
        raise OutputError(f"cannot write {str(path)!r}: {e.strerror}; choose another path") from e


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)
