"""Side by side: controller lists, real runs against the separate runs, overlay figures."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from mjscope.dock import run_docking
from mjscope.dock.compare import parse_controllers, run_comparison
from mjscope.dock.comparison import comparison_json
from mjscope.dock.scene import Scene, load_scene
from mjscope.exceptions import ConfigError, OutputError, UnknownNameError
from tests.test_dock_metrics import docking_scene
from tests.test_dock_plotting import png_size
from tests.test_dock_run_docking import weak_cic
from tests.utils import assert_close

DOCK_COMPARE = ["position_error", "orientation_error", "contact_force", "insertion_depth"]


# --- controller lists ------------------------------------------------------------------------


def test_parse_keeps_order_and_resolves_the_seeds_names() -> None:
    assert parse_controllers("se3_lie, cic") == ("se3_lie", "cic")
    assert parse_controllers("task_space,se3_impedance") == ("cic", "se3_lie")
    assert parse_controllers("cic") == ("cic",)


@pytest.mark.parametrize("text", ["cic,cic", "cic,se3_lie,cic", "cic,task_space"])
def test_a_controller_given_twice_is_one_line_error(text: str) -> None:
    with pytest.raises(ConfigError, match=r"controller 'cic' given twice") as e:
        parse_controllers(text)
    msg = str(e.value)
    assert "\n" not in msg and "known: cic, se3_lie" in msg


def test_unknown_controller_lists_the_valid_names() -> None:
    with pytest.raises(UnknownNameError, match=r"unknown controller 'pid'") as e:
        parse_controllers("cic,pid")
    assert "\n" not in str(e.value)
    assert {"cic", "se3_lie", "task_space", "se3_impedance"} <= set(e.value.known)
    with pytest.raises(ConfigError, match="no controller"):
        parse_controllers(" , ")


def test_needs_two_controllers(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="two or more"):
        run_comparison(docking_scene(), ("cic",), tmp_path)


# --- real runs -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def docking_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``cic,se3_lie`` side by side, and each controller run on its own (both ``--quick``)."""
    root = tmp_path_factory.mktemp("cmp")
    scene = load_scene("iiwa14_docking")
    cmp = run_comparison(scene, ("cic", "se3_lie"), root / "side", quick=True)
    alone = {n: run_docking.main(scene, n, quick=True, out=root / n) for n in ("cic", "se3_lie")}
    return {"cmp": cmp, "alone": alone, "root": root / "side"}


def test_side_by_side_equals_the_separate_runs(docking_runs: dict[str, Any]) -> None:
    cmp, alone = docking_runs["cmp"], docking_runs["alone"]
    md = docking_runs["root"] / "results" / "iiwa14_docking_compare.md"
    data = json.loads(md.with_suffix(".json").read_text(encoding="utf-8"))
    assert data["controllers"] == ["cic", "se3_lie"] and data["baseline"] == "cic"
    a, b = alone["cic"].metrics, alone["se3_lie"].metrics
    assert set(data["metrics"]) == set(a) == set(b)
    for name in a:
        row = data["metrics"][name]
        for ctrl, m in (("cic", a), ("se3_lie", b)):
            v = row["values"][ctrl]
            assert (v is None and math.isnan(m[name])) or v == m[name], f"{name} of {ctrl}"
        if isinstance(a[name], bool) or math.isnan(b[name] - a[name]):
            assert row["diff"]["se3_lie"] is None, name
        else:
            assert_close(row["diff"]["se3_lie"], b[name] - a[name], atol=1e-15, what=name)
    for check in alone["cic"].gate.checks:
        assert data["gate"][check.name]["passed"]["cic"] == check.passed
    assert cmp.passed == (alone["cic"].passed and alone["se3_lie"].passed)
    text = md.read_text(encoding="utf-8")
    assert f"| peak_contact_force | N | {a['peak_contact_force']:.4g} |" in text


def test_side_by_side_writes_the_overlay_figures(docking_runs: dict[str, Any]) -> None:
    folder = docking_runs["root"] / "figure" / "iiwa14_docking"
    expected = {folder / f"compare_{n}.{e}" for n in DOCK_COMPARE for e in ("png", "pdf")}
    assert expected <= set(docking_runs["cmp"].files)
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in expected)
    w, _ = png_size(folder / "compare_position_error.png")
    assert 0.95 * 3.3 * 600 < w < 1.05 * 3.3 * 600, "ieee column width at 600 dpi"
    tables = {p.name for p in (docking_runs["root"] / "results").iterdir()}
    assert tables == {f"iiwa14_docking_{s}" for s in ("cic.md", "se3_lie.md", "compare.md",
                                                       "compare.json")}  # fmt: skip


def test_three_controllers_differ_against_the_first(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setitem(run_docking.CONTROLLERS, "weak", weak_cic)
    scene = load_scene("iiwa14_track_circle")
    names = parse_controllers("se3_lie,cic,weak")
    cmp = run_comparison(scene, names, tmp_path, quick=True)
    data = comparison_json(cmp)
    row = data["metrics"]["pos_err_rms_settled"]
    assert set(row["diff"]) == {"cic", "weak"}
    for c in ("cic", "weak"):
        assert_close(row["diff"][c], row["values"][c] - row["values"]["se3_lie"], atol=1e-15)
    assert data["passed"]["weak"] is False and not cmp.passed, "gains/100 fails the gate"
    assert "| metric | unit | se3_lie | cic | weak | cic − se3_lie | weak − se3_lie |" in (
        tmp_path / "results" / "iiwa14_track_circle_compare.md"
    ).read_text(encoding="utf-8")
    stems = {p.stem for p in cmp.files if p.parent.name == "iiwa14_track_circle"}
    assert stems == {"compare_position_error", "compare_orientation_error", "compare_path_xy"}


def test_outputs_are_checked_before_the_first_run(tmp_path: Path, monkeypatch: Any) -> None:
    ran: list[str] = []

    def record_run(scene: Scene, controller: str, **kw: Any) -> None:
        ran.append(controller)

    monkeypatch.setattr("mjscope.dock.compare.main", record_run)
    (tmp_path / "figure").write_text("a file where the figure folder goes")
    with pytest.raises(OutputError, match="figure"):
        run_comparison(load_scene("iiwa14_docking"), ("cic", "se3_lie"), tmp_path)
    assert ran == []


def test_cic_se3_lie_and_hqp_side_by_side(tmp_path: Path) -> None:
    """``--controller cic,se3_lie,hqp``: one table with all three and the overlay figures."""
    scene = load_scene("iiwa14_track_circle")
    cmp = run_comparison(scene, parse_controllers("cic,se3_lie,hqp_ac"), tmp_path, quick=True)
    data = comparison_json(cmp)
    row = data["metrics"]["pos_err_rms_settled"]
    assert set(row["values"]) == {"cic", "se3_lie", "hqp"} and set(row["diff"]) == {
        "se3_lie",
        "hqp",
    }
    assert cmp.passed and all(data["passed"].values())
    table = (tmp_path / "results" / "iiwa14_track_circle_compare.md").read_text(encoding="utf-8")
    assert "| metric | unit | cic | se3_lie | hqp | se3_lie − cic | hqp − cic |" in table
    stems = {p.stem for p in cmp.files if p.parent.name == "iiwa14_track_circle"}
    assert "compare_position_error" in stems and "compare_path_xy" in stems
