"""What a docking run produced, as text: the markdown results table and the terminal report.

The results table goes to ``<out>/results/<scene>_<controller>.md``; :func:`print_report`
prints the run summary, the metrics by level, the gate and the files written on a console the
caller passes in (the feature never creates one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from mjscope.dock.gate import GateResult
from mjscope.dock.loop import RunResult
from mjscope.dock.metric_units import LEVELS, UNITS, Metrics
from mjscope.paths import write_text


@dataclass
class DockingReport:
    """What :func:`mjscope.dock.run_docking.main` produced.

    Attributes:
        result: The run (scene, controller, telemetry, status).
        metrics: Its metrics (see :data:`mjscope.dock.metric_units.UNITS`).
        gate: The PASS/FAIL verdict of the scene's gate.
        files: The files written (telemetry, video, results table, figures).
    """

    result: RunResult
    metrics: Metrics
    gate: GateResult
    files: list[Path] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Gate PASS and the run completed."""
        return bool(self.gate.passed) and self.result.status == "ok"


def results_table_path(out_dir: str | Path, scene_name: str, controller: str) -> Path:
    """``out_dir/results/<scene>_<controller>.md``."""
    return Path(out_dir) / "results" / f"{scene_name}_{controller}.md"


def _fmt(value: float) -> str:
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    v = float(value)
    return "n/a" if math.isnan(v) else f"{v:.4g}"


def format_results_table(metrics: Metrics, gate: GateResult, title: str) -> str:
    """Markdown text of the gate checks and the metrics grouped by level."""
    verdict = "PASS" if gate.passed else "FAIL"
    lines = [f"# {title}", "", f"Gate ({gate.mode}): **{verdict}**", ""]
    lines += ["| check | value | limit | unit | result |", "|---|---|---|---|---|"]
    for c in gate.checks:
        ok = "PASS" if c.passed else "FAIL"
        lines.append(
            f"| {c.name} | {_fmt(c.value)} | {c.op} {_fmt(c.threshold)} | {c.unit} | {ok} |"
        )
    for level, names in LEVELS.items():
        present = [n for n in names if n in metrics]
        if not present:
            continue
        lines += ["", f"## {level}", "", "| metric | value | unit |", "|---|---|---|"]
        lines += [f"| {n} | {_fmt(metrics[n])} | {UNITS[n]} |" for n in present]
    return "\n".join(lines) + "\n"


def write_results_table(
    metrics: Metrics, gate: GateResult, path: str | Path, title: str | None = None
) -> Path:
    """Write the gate and metrics as a markdown table.

    Args:
        metrics: Output of :func:`mjscope.dock.metrics.compute_metrics`.
        gate: Output of :func:`mjscope.dock.gate.evaluate_gate`.
        path: Output file (see :func:`results_table_path`); its folder is created.
        title: Heading; the file's stem by default.

    Returns:
        The written path.

    Raises:
        OutputError: The folder cannot be created or written.
    """
    p = Path(path)
    return write_text(p, format_results_table(metrics, gate, title or p.stem))


def print_summary(con: Console, report: DockingReport) -> None:
    """Print one line on the run (scene, controller, steps, real-time factor); why it stopped."""
    r = report.result
    fc = "on" if r.friction_comp else "off"
    con.print(
        f"scene {r.scene.name} ({r.scene.mode}), controller {r.controller}, friction comp {fc}: "
        f"{r.steps} steps, {r.steps * r.scene.cfg.control_period:.2f} s simulated, "
        f"real-time factor {r.real_time_factor:.1f}x"
    )
    if r.status != "ok":
        con.print(f"[red]run stopped early[/red]: {r.message} (samples so far kept)")
    counts = {k: v for k, v in r.controller_stats.items() if k != "steps" and v}
    if counts:  # saturations, rate limiting, QP fallbacks: never silent
        con.print("limited periods: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    bad = report.metrics.get("limit_violations", 0)
    if bad:
        kinds = [k[: -len("_violations")] for k, v in report.metrics.items()
                 if k.endswith("_violations") and k != "limit_violations" and v]  # fmt: skip
        con.print(f"[red]joint limits exceeded[/red] in {bad} periods ({', '.join(kinds)})")


def verdict_markup(passed: bool) -> str:
    """``PASS`` in green or ``FAIL`` in red (rich markup)."""
    return "[green]PASS[/green]" if passed else "[red]FAIL[/red]"


def print_report(con: Console, report: DockingReport, show_files: bool = True) -> None:
    """Print the run summary, the metrics by level, the gate (and the files written).

    Args:
        con: Where to print.
        report: The run's report.
        show_files: Also list the files written.
    """
    print_summary(con, report)
    con.print(_metrics_table(report.metrics))
    con.print(_gate_table(report.gate))
    con.print(f"gate: {verdict_markup(report.passed)}")
    for f in report.files if show_files else []:
        con.print(f"wrote {f}")


def _metrics_table(metrics: Metrics) -> Table:
    table = Table(title="metrics")
    for col in ("level", "metric", "value", "unit"):
        table.add_column(col)
    for level, names in LEVELS.items():
        for n in names:
            if n in metrics:
                table.add_row(level, n, _fmt_console(metrics[n]), UNITS[n])
    return table


def _gate_table(gate: GateResult) -> Table:
    table = Table(title="gate")
    for col in ("check", "value", "limit", "unit", "result"):
        table.add_column(col)
    for c in gate.checks:
        ok = "[green]PASS[/green]" if c.passed else "[red]FAIL[/red]"
        table.add_row(
            c.name, _fmt_console(c.value), f"{c.op} {_fmt_console(c.threshold)}", c.unit, ok
        )
    return table


def _fmt_console(v: float) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    try:
        return f"{float(v):.4g}"
    except (TypeError, ValueError):
        return str(v)
