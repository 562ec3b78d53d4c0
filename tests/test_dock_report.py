"""Text outputs of a run: the markdown results table and the console report."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from rich.console import Console

from mjscope.dock.gate import evaluate_gate
from mjscope.dock.loop import RunResult
from mjscope.dock.metrics import compute_metrics
from mjscope.dock.report import (
    DockingReport,
    format_results_table,
    print_report,
    results_table_path,
    write_results_table,
)
from mjscope.exceptions import OutputError
from tests.test_dock_metrics import (
    docking_log,
    docking_scene,
    tracking_log,
    tracking_scene,
    zero_motion_log,
)


def test_unwritable_folder_is_an_output_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError):
        write_results_table(
            {}, evaluate_gate(_tracking_metrics(), tracking_scene()), blocker / "t.md"
        )


def _tracking_metrics() -> dict:
    return compute_metrics(tracking_log(), tracking_scene())


def test_results_table_content(tmp_path: Path) -> None:
    scene = docking_scene()
    m = compute_metrics(docking_log(), scene)
    gate = evaluate_gate(m, scene)
    path = write_results_table(m, gate, results_table_path(tmp_path, scene.name, "cic"))
    assert path == tmp_path / "results" / "t_dock_cic.md"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# t_dock_cic\n")
    assert "Gate (docking): **PASS**" in text
    assert "| peak_contact_force | 15 | < 50 | N | PASS |" in text
    assert "| final_insertion_depth | 0.028 | >= 0.027 | m | PASS |" in text
    assert "| settling_time | 0.5 | s |" in text
    assert "| steady_state_force_error | n/a | N |" in text
    assert "| success | yes |  |" in text
    for level in ("## approach", "## contact", "## outcome"):
        assert level in text


def test_results_table_failing_gate() -> None:
    scene = docking_scene()
    m = compute_metrics(zero_motion_log(), scene)
    text = format_results_table(m, evaluate_gate(m, scene), "zero")
    assert "Gate (docking): **FAIL**" in text
    assert "| time_to_depth | n/a | <= 4 | s | FAIL |" in text
    assert "| success | no |  |" in text
    assert math.isnan(m["settling_time"]) and "| settling_time | n/a | s |" in text


def _report(log_factory=docking_log, status: str = "ok") -> DockingReport:
    scene = docking_scene()
    log = log_factory()
    m = compute_metrics(log, scene)
    result = RunResult(scene, "cic", log, status=status, steps=len(log), wall_time=0.1)
    if status != "ok":
        result.message = "non-finite torque"
    return DockingReport(result, m, evaluate_gate(m, scene), [Path("out/results/t.md")])


def test_print_report_summary_metrics_gate_and_files() -> None:
    con = Console(record=True, width=160, color_system=None)
    print_report(con, _report())
    text = con.export_text()
    # 3001 samples at 1 ms in 0.1 s of wall time: 3.001 s simulated, 30.0x real time.
    assert "scene t_dock (docking), controller cic, friction comp on: 3001 steps" in text
    assert "3.00 s simulated, real-time factor 30.0x" in text
    assert "peak_contact_force" in text and "final_insertion_depth" in text
    assert "gate: PASS" in text and "wrote out/results/t.md" in text
    assert "stopped early" not in text


def test_print_report_failing_and_stopped_run() -> None:
    con = Console(record=True, width=160, color_system=None)
    print_report(con, _report(zero_motion_log, status="stopped"), show_files=False)
    text = con.export_text()
    assert "run stopped early: non-finite torque (samples so far kept)" in text
    assert "gate: FAIL" in text and "wrote" not in text
