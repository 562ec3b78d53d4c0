"""Publication figures from telemetry arrays: which figures, PNG + PDF, the IEEE size."""

from __future__ import annotations

import struct
from pathlib import Path

from mjscope.dock.plotting import figure_names, plot_results
from mjscope.dock.telemetry import Log
from tests.test_dock_metrics import docking_log, docking_scene, tracking_log, tracking_scene

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
    paths = plot_results(log.arrays(), tracking_scene(), tmp_path)  # plotting takes arrays
    names = {p.stem for p in paths}
    assert "path_xy" in names and "insertion_depth" not in names
    assert all(p.parent == tmp_path / "figure" / "t_track" for p in paths)
    assert len(paths) == 2 * len(names) == 10


def test_empty_log_writes_no_figures(tmp_path: Path) -> None:
    assert plot_results(Log().arrays(), docking_scene(), tmp_path) == []
