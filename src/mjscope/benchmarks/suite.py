"""Find, run and tabulate the benchmark scripts (``mjscope bench``)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.console import Console
from rich.table import Table

from mjscope.exceptions import MjscopeError, UnknownNameError
from mjscope.paths import check_writable, write_json

PACKAGE = "mjscope.benchmarks"
PREFIX = "bench_"


@dataclass(frozen=True)
class BenchCmdCfg:
    """What one ``mjscope bench`` run does.

    Attributes:
        names: Benchmarks to run (empty: all), e.g. ``("diagnose",)``.
        quick: Smaller workloads (a smoke run).
        folder: A folder of ``bench_<name>.py`` scripts instead of the bundled suite.
        json: Also write the rows here.
        duration: Run time [s] for benchmarks that take one (``soak``); ``None``: their default.
    """

    names: tuple[str, ...] = ()
    quick: bool = False
    folder: str | None = None
    json: str | None = None
    duration: float | None = None


def discover(folder: str | None = None) -> dict[str, Callable[[], ModuleType]]:
    """Benchmark name → loader of its module: the bundled suite, or ``bench_*.py`` in ``folder``.

    Raises:
        MjscopeError: ``folder`` is not a folder, or holds no benchmark script.
    """
    if folder is None:
        here = Path(__file__).parent
        return {
            p.stem.removeprefix(PREFIX): _importer(f"{PACKAGE}.{p.stem}")
            for p in sorted(here.glob(f"{PREFIX}*.py"))
        }
    root = Path(folder)
    if not root.is_dir():
        raise MjscopeError(f"--dir {folder!r} is not a folder; give a folder of bench_*.py scripts")
    scripts = sorted(root.glob(f"{PREFIX}*.py"))
    if not scripts:
        raise MjscopeError(f"--dir {folder!r} holds no bench_*.py script")
    return {p.stem.removeprefix(PREFIX): _file_loader(p) for p in scripts}


def _importer(name: str) -> Callable[[], ModuleType]:
    return lambda: importlib.import_module(name)


def _file_loader(path: Path) -> Callable[[], ModuleType]:
    def load() -> ModuleType:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    return load


def run_bench(cfg: BenchCmdCfg, con: Console) -> int:
    """Run the selected benchmarks and print their rows as one table.

    A row may say whether it met its target (``met``: ``True``/``False``); the table marks a
    miss and the run ends with the count of targets met and each one missed. Timing never
    fails the command: a noisy machine is no user error.

    Returns:
        0.

    Raises:
        MjscopeError: An unknown benchmark name, a bad folder or an unwritable ``json`` path.
    """
    scripts = discover(cfg.folder)
    for n in cfg.names:
        if n not in scripts:
            raise UnknownNameError("benchmark", n, scripts)
    if cfg.duration is not None and not cfg.duration > 0:
        raise MjscopeError(f"--duration {cfg.duration} must be > 0 seconds")
    json_path = check_writable(cfg.json) if cfg.json else None  # fail before minutes of work
    table = Table(title="mjscope bench" + (" (quick)" if cfg.quick else ""))
    for col in ("benchmark", "metric", "value", "unit", "ratio vs bare", "target", "note"):
        table.add_column(col)
    all_rows: list[dict[str, Any]] = []
    for name, load in scripts.items():
        if cfg.names and name not in cfg.names:
            continue
        con.print(f"running {PREFIX}{name} ...")
        for r in _run(load(), cfg):
            r = {"benchmark": name, **r}
            all_rows.append(r)
            table.add_row(*_cells(r))
    con.print(table)
    missed = [f"{r['benchmark']}: {r['metric']}" for r in all_rows if _met(r) is False]
    judged = sum(_met(r) is not None for r in all_rows)
    if judged:
        con.print(f"targets met: {judged - len(missed)} of {judged}", soft_wrap=True)
    for m in missed:
        con.print(f"[red]MISS[/] {m}", soft_wrap=True)
    if json_path is not None:
        write_json(json_path, all_rows)
    return 0


def _run(mod: ModuleType, cfg: BenchCmdCfg) -> list[dict[str, Any]]:
    """Call the script's ``run``; ``duration`` only reaches scripts whose ``run`` takes it."""
    kwargs: dict[str, Any] = {"quick": cfg.quick}
    if cfg.duration is not None and "duration" in inspect.signature(mod.run).parameters:
        kwargs["duration"] = cfg.duration
    rows: list[dict[str, Any]] = mod.run(**kwargs)
    return rows


def _cells(r: dict[str, Any]) -> list[str]:
    ratio = r.get("ratio")
    return [
        str(r["benchmark"]),
        str(r["metric"]),
        _fmt(r["value"]),
        str(r.get("unit", "")),
        "" if ratio is None else f"{ratio:.2f}x",
        _target(r),
        str(r.get("note", "")),
    ]


def _met(r: dict[str, Any]) -> bool | None:
    """Whether the row met its target: its ``met``, or no ``MISS`` its script marks misses with."""
    if r.get("met") is not None:
        return bool(r["met"])
    target = str(r.get("target", ""))
    if not target:
        return None
    return "MISS" not in target if r.get("benchmark") in _MARKS_MISSES else None


#: Benchmarks whose scripts write ``MISS`` into every target they miss.
_MARKS_MISSES = {"teleop", "dock", "diagnose"}


def _target(r: dict[str, Any]) -> str:
    """The target, marked ``✓`` when met and ``✗ MISS`` when not (rows that say so)."""
    target, met = str(r.get("target", "")), r.get("met")
    if met is None or not target:
        return target
    return f"{target} ✓" if met else f"{target} ✗ MISS"


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)
