from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest

from mjscope.exceptions import OutputError
from mjscope.experiments.gate import evaluate_gate
from mjscope.experiments.metrics import compute_metrics
from mjscope.experiments.plotting import (
    figure_names,
    format_results_table,
    plot_results,
    results_table_path,
    write_results_table,
)
from mjscope.experiments.telemetry import Log
from tests.test_experiments_metrics import (
    docking_log,
    docking_scene,
    tracking_log,
    tracking_scene,
    zero_motion_log,
)

DOCK_FIGURES = ["position_tracking", "errors", "forces", "insertion_depth", "joint_torques"]


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def short(log: Log, step: int = 10) -> dict:
    """Every step-th sample, to keep the figures cheap."""
    return {k: v[::step] for k, v in log.arrays().items()}


def test_docking_figures_png_and_pdf(tmp_path: Path) -> None:
    scene = docking_scene()
    paths = plot_results(short(docking_log()), scene, tmp_path)
    folder = tmp_path / "figure" / "t_dock"
    expected = {folder / f"{n}.{e}" for n in DOCK_FIGURES for e in ("png", "pdf")}
    assert set(paths) == expected and figure_names(scene) == DOCK_FIGURES
    for p in paths:
        assert p.stat().st_size > 2000, p
        if p.suffix == ".pdf":
            assert p.read_bytes()[:5] == b"%PDF-"
    w, h = png_size(folder / "errors.png")
    assert 0.95 * 3.3 * 600 < w < 1.05 * 3.3 * 600, "ieee style: 3.3 in at 600 dpi (tight bbox)"
    assert h > w / 2


def test_tracking_figures_have_path_and_no_insertion(tmp_path: Path) -> None:
    log = tracking_log()
    paths = log.plot_results(tracking_scene(), tmp_path)  # Log delegates to plotting
    names = {p.stem for p in paths}
    assert "path_xy" in names and "insertion_depth" not in names
    assert all(p.parent == tmp_path / "figure" / "t_track" for p in paths)
    assert len(paths) == 2 * len(names) == 10


def test_empty_log_writes_no_figures(tmp_path: Path) -> None:
    assert plot_results(Log().arrays(), docking_scene(), tmp_path) == []


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
