"""The side-by-side table of several runs of one scene: rows, markdown, JSON and console.

:class:`Comparison` holds each controller's :class:`~mjscope.dock.report.DockingReport` (the
first one is the baseline); its rows put every gate check and metric of every controller next
to the difference ``other − baseline``. :mod:`mjscope.dock.compare` runs the controllers and
writes what is formatted here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mjscope.dock.metric_units import LEVELS, UNITS
from mjscope.dock.report import DockingReport, print_summary, verdict_markup
from mjscope.dock.scene import Scene


def difference(base: float, other: float) -> float | None:
    """``other − base`` for numbers; ``None`` for yes/no metrics; NaN when either is NaN."""
    if isinstance(base, bool) or isinstance(other, bool):
        return None
    d = float(other) - float(base)
    return int(d) if isinstance(base, int) and isinstance(other, int) else d


@dataclass(frozen=True)
class Row:
    """One metric (or gate check) of the comparison.

    Attributes:
        name: Metric name (see :data:`mjscope.dock.metric_units.UNITS`).
        level: Its level (``run``, ``approach``, ``contact``, ``outcome``) or ``gate``.
        unit: Unit of the values and differences.
        values: Controller → value (NaN: never occurred).
        diffs: Controller after the first → ``value − first's value`` (``None``: yes/no).
        limit: ``"op threshold"`` of a gate check, else ``""``.
        passed: Controller → check passed (gate rows only).
    """

    name: str
    level: str
    unit: str
    values: dict[str, float]
    diffs: dict[str, float | None]
    limit: str = ""
    passed: dict[str, bool] = field(default_factory=dict)


@dataclass
class Comparison:
    """What :func:`run_comparison` produced.

    Attributes:
        scene: The scene every controller ran.
        reports: Controller → its report, in the given order (the first is the baseline).
        files: Every file written (each run's, then the comparison's).
    """

    scene: Scene
    reports: dict[str, DockingReport]
    files: list[Path] = field(default_factory=list)

    @property
    def controllers(self) -> list[str]:
        """The controllers, baseline first."""
        return list(self.reports)

    @property
    def baseline(self) -> str:
        """The controller the differences are taken against."""
        return self.controllers[0]

    @property
    def passed(self) -> bool:
        """Every controller's gate passed and every run completed."""
        return all(r.passed for r in self.reports.values())

    def _diffs(self, values: dict[str, float]) -> dict[str, float | None]:
        base = values[self.baseline]
        return {c: difference(base, values[c]) for c in self.controllers[1:]}

    def gate_rows(self) -> list[Row]:
        """One row per gate check (the scene's checks are the same for every controller)."""
        first = self.reports[self.baseline].gate.checks
        rows = []
        for i, c in enumerate(first):
            checks = {n: r.gate.checks[i] for n, r in self.reports.items()}
            values = {n: k.value for n, k in checks.items()}
            passed = {n: k.passed for n, k in checks.items()}
            limit = f"{c.op} {c.threshold:.4g}"
            rows.append(Row(c.name, "gate", c.unit, values, self._diffs(values), limit, passed))
        return rows

    def metric_rows(self) -> list[Row]:
        """One row per metric every controller has, by level in table order."""
        metrics = [r.metrics for r in self.reports.values()]
        rows = []
        for level, names in LEVELS.items():
            for name in names:
                if all(name in m for m in metrics):
                    values = {c: self.reports[c].metrics[name] for c in self.controllers}
                    rows.append(Row(name, level, UNITS[name], values, self._diffs(values)))
        return rows


def _fmt(value: float | None) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    return "n/a" if math.isnan(value) else f"{value:.4g}"


def _fmt_diff(row: Row, c: str, base: str) -> str:
    d = row.diffs[c]
    if d is None:
        return "same" if bool(row.values[c]) == bool(row.values[base]) else "differs"
    return "n/a" if math.isnan(d) else "0" if d == 0 else f"{d:+.4g}"


def diff_header(cmp: Comparison, c: str) -> str:
    """Column heading of ``c``'s difference against the baseline."""
    return f"{c} − {cmp.baseline}"


def format_comparison(cmp: Comparison) -> str:
    """Markdown text: run status, gate checks and every metric, side by side."""
    cs, base = cmp.controllers, cmp.baseline
    head = ["", *cs, *(diff_header(cmp, c) for c in cs[1:])]
    verdicts = ", ".join(
        f"{c} **{'PASS' if r.passed else 'FAIL'}**" for c, r in cmp.reports.items()
    )
    lines = [f"# {cmp.scene.name}: {' vs '.join(cs)}", ""]
    lines += [f"Same scene and start for every controller; differences against {base}.", ""]
    lines += [f"Gate ({cmp.scene.mode}): {verdicts}", ""]
    for c, r in cmp.reports.items():
        if r.result.status != "ok":
            lines += [f"- {c}: run stopped early: {r.result.message}"]
    lines += _md_table(["check", "limit", "unit", *head[1:]], _gate_cells(cmp))
    for level in LEVELS:
        rows = [r for r in cmp.metric_rows() if r.level == level]
        if rows:
            cells = [[r.name, r.unit, *_value_cells(r, cs, base)] for r in rows]
            lines += ["", f"## {level}", "", *_md_table(["metric", "unit", *head[1:]], cells)]
    return "\n".join(lines) + "\n"


def _value_cells(row: Row, cs: list[str], base: str) -> list[str]:
    """Each controller's value (gate rows: with PASS/FAIL), then each difference."""
    values = [_fmt(row.values[c]) for c in cs]
    if row.passed:
        values = [
            f"{v} {'PASS' if row.passed[c] else 'FAIL'}" for v, c in zip(values, cs, strict=True)
        ]
    return values + [_fmt_diff(row, c, base) for c in cs[1:]]


def _gate_cells(cmp: Comparison) -> list[list[str]]:
    cs, base = cmp.controllers, cmp.baseline
    cells = []
    for r in cmp.gate_rows():
        cells.append([r.name, r.limit, r.unit, *_value_cells(r, cs, base)])
    return cells


def _md_table(head: list[str], cells: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(row) + " |" for row in cells]


def _json_value(v: float | None) -> Any:
    if v is None or isinstance(v, bool | int):
        return v
    return None if math.isnan(v) else float(v)


def comparison_json(cmp: Comparison) -> dict[str, Any]:
    """The comparison as JSON-ready data (NaN → ``null``)."""

    def row(r: Row) -> dict[str, Any]:
        d: dict[str, Any] = {"level": r.level, "unit": r.unit}
        d["values"] = {c: _json_value(v) for c, v in r.values.items()}
        d["diff"] = {c: _json_value(v) for c, v in r.diffs.items()}
        if r.level == "gate":
            d |= {"limit": r.limit, "passed": r.passed}
        return d

    return {
        "scene": cmp.scene.name,
        "mode": cmp.scene.mode,
        "controllers": cmp.controllers,
        "baseline": cmp.baseline,
        "passed": {c: r.passed for c, r in cmp.reports.items()},
        "status": {c: r.result.status for c, r in cmp.reports.items()},
        "gate": {r.name: row(r) for r in cmp.gate_rows()},
        "metrics": {r.name: row(r) for r in cmp.metric_rows()},
    }


def print_comparison(con: Console, cmp: Comparison, show_files: bool = True) -> None:
    """Print each run's summary, one side-by-side table of gate checks and metrics, the verdicts.

    Args:
        con: Where to print.
        cmp: The comparison (:func:`mjscope.dock.compare.run_comparison`).
        show_files: Also list the files written.
    """
    for report in cmp.reports.values():
        print_summary(con, report)
    cs, base = cmp.controllers, cmp.baseline
    table = Table(title=f"{cmp.scene.name}: {' vs '.join(cs)}")
    for col in ("level", "metric", "unit", *cs, *(diff_header(cmp, c) for c in cs[1:])):
        table.add_column(col)
    for row in [*cmp.gate_rows(), *cmp.metric_rows()]:
        metric = f"{row.name} ({row.limit})" if row.limit else row.name
        table.add_row(row.level, metric, row.unit, *_value_cells(row, cs, base))
    con.print(table)
    for c, report in cmp.reports.items():
        con.print(f"gate {c}: {verdict_markup(report.passed)}")
    con.print(f"gate (all): {verdict_markup(cmp.passed)}")
    for f in cmp.files if show_files else []:
        con.print(f"wrote {f}")
