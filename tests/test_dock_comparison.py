"""The side-by-side table: rows, differences, markdown, JSON and console, on synthetic runs."""

from __future__ import annotations

import json
import math
from pathlib import Path

from rich.console import Console

from mjscope.dock.comparison import (
    Comparison,
    comparison_json,
    difference,
    format_comparison,
    print_comparison,
)
from mjscope.dock.gate import evaluate_gate
from mjscope.dock.loop import RunResult
from mjscope.dock.metric_units import UNITS
from mjscope.dock.metrics import compute_metrics
from mjscope.dock.report import DockingReport
from mjscope.dock.scene import Scene
from mjscope.dock.telemetry import Log
from tests.test_dock_metrics import docking_log, docking_scene, zero_motion_log


def _report(scene: Scene, name: str, log: Log, status: str = "ok") -> DockingReport:
    m = compute_metrics(log, scene)
    result = RunResult(scene, name, log, status=status, steps=len(log), wall_time=0.1)
    result.message = "non-finite torque" if status != "ok" else ""
    return DockingReport(result, m, evaluate_gate(m, scene))


def synthetic(status_b: str = "ok") -> Comparison:
    """``a``: the docking log (gate PASS); ``b``: a controller that did nothing (FAIL)."""
    scene = docking_scene()
    a, b = _report(scene, "a", docking_log()), _report(scene, "b", zero_motion_log(), status_b)
    return Comparison(scene, {"a": a, "b": b})


def test_table_rows_and_differences_by_hand() -> None:
    text = format_comparison(synthetic())
    assert text.startswith("# t_dock: a vs b\n")
    assert "Gate (docking): a **PASS**, b **FAIL**" in text
    assert "| check | limit | unit | a | b | b − a |" in text
    # docking_log: peak 15 N, depth 28 mm (27 mm first sampled at 1.901 s); zero_motion_log: none.
    assert "| peak_contact_force | < 50 | N | 15 PASS | 0 PASS | -15 |" in text
    assert "| final_insertion_depth | >= 0.027 | m | 0.028 PASS | -0.02 FAIL | -0.048 |" in text
    assert "| time_to_depth | <= 4 | s | 1.901 PASS | n/a FAIL | n/a |" in text
    assert "| samples |  | 3001 | 3001 | 0 |" in text
    assert "| success |  | yes | no | differs |" in text
    assert "| settling_time | s | 0.5 | n/a | n/a |" in text
    for level in ("## run", "## approach", "## contact", "## outcome"):
        assert level in text


def test_every_metric_of_each_controller_is_in_the_table() -> None:
    cmp = synthetic()
    data = comparison_json(cmp)
    for name, report in cmp.reports.items():
        for metric, value in report.metrics.items():
            row = data["metrics"][metric]
            assert row["unit"] == UNITS[metric]
            got = row["values"][name]
            assert (got is None and math.isnan(value)) or got == value, metric
    assert set(data["metrics"]) == set(cmp.reports["a"].metrics)
    assert data["metrics"]["peak_contact_force"]["diff"] == {"b": -15.0}
    assert data["metrics"]["settling_time"]["diff"] == {"b": None}  # NaN → null
    assert data["metrics"]["success"]["values"] == {"a": True, "b": False}
    assert data["passed"] == {"a": True, "b": False}
    json.dumps(data, allow_nan=False)  # strict JSON: no NaN literals


def test_stopped_run_is_named_in_the_table() -> None:
    cmp = synthetic(status_b="stopped")
    assert "- b: run stopped early: non-finite torque" in format_comparison(cmp)
    assert not cmp.passed and comparison_json(cmp)["status"] == {"a": "ok", "b": "stopped"}


def test_print_comparison_side_by_side() -> None:
    con = Console(record=True, width=200, color_system=None)
    cmp = synthetic(status_b="stopped")
    cmp.files.append(Path("out/results/t_dock_compare.md"))
    print_comparison(con, cmp)
    text = con.export_text()
    assert text.count("scene t_dock (docking), controller ") == 2
    assert "controller b, friction comp on: 3001 steps" in text
    assert "run stopped early: non-finite torque" in text
    assert "t_dock: a vs b" in text and "b − a" in text
    rows = {line.split("│")[2].strip(): line for line in text.splitlines() if line.count("│") > 6}
    cells = [c.strip() for c in rows["peak_contact_force"].split("│")[1:-1]]
    assert cells == ["contact", "peak_contact_force", "N", "15", "0", "-15"]
    gate = [c.strip() for c in rows["final_insertion_depth (>= 0.027)"].split("│")[1:-1]]
    assert gate == ["gate", "final_insertion_depth (>= 0.027)", "m", "0.028 PASS", "-0.02 FAIL",
                    "-0.048"]  # fmt: skip
    assert "gate a: PASS" in text and "gate b: FAIL" in text and "gate (all): FAIL" in text
    assert "wrote out/results/t_dock_compare.md" in text


def test_difference_keeps_kinds() -> None:
    assert difference(3, 5) == 2 and isinstance(difference(3, 5), int)
    assert difference(0.25, 0.5) == 0.25
    assert difference(True, False) is None
    d = difference(float("nan"), 1.0)
    assert d is not None and math.isnan(d)
