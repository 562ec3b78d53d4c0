"""``mjscope dock``: arguments → ``DockCmdCfg`` → ``run_dock``, exit codes, the demo hook."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console

from mjscope.cli import build_parser
from mjscope.cli import dock as cli_dock
from mjscope.cli import main as cli_main
from mjscope.control.controllers import Controller
from mjscope.control.planners import MotionReference
from mjscope.dock import run_docking
from mjscope.dock.config import DockCmdCfg
from tests.test_dock_run_docking import NanAfter


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["dock", *argv])


def test_arguments_become_the_command_config() -> None:
    assert cli_dock.to_cfg(_args()) == DockCmdCfg()
    argv = "--scene fr3_docking --controller x --quick --plot --record --no-friction-comp"
    cfg = cli_dock.to_cfg(_args(*argv.split(), "--out", "runs", "--list"))
    assert cfg == DockCmdCfg("fr3_docking", "x", True, True, True, False, Path("runs"), True)
    assert cli_dock.to_cfg(_args("--friction-comp")).friction_comp is True


def test_list_prints_every_bundled_scene(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["dock", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("fr3_docking", "iiwa14_docking", "iiwa14_track_circle", "iiwa14_track_figure8"):
        assert f"{name}: " in out


def test_stopped_run_exits_1(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setitem(run_docking.CONTROLLERS, "nan", lambda sc, pm, q0: NanAfter(0.5))
    code = cli_main(["dock", "--controller", "nan", "--quick", "--out", str(tmp_path)])
    assert code == 1


def test_user_errors_exit_2() -> None:
    assert cli_main(["dock", "--controller", "pid"]) == 2
    assert cli_main(["dock", "--scene", "nope"]) == 2


def test_failing_gate_exits_1(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    class Zero(Controller):
        name = "zero"

        def compute(self, q: Any, v: Any, reference: MotionReference, F_ext: Any) -> np.ndarray:
            return np.zeros(7)

    monkeypatch.setitem(run_docking.CONTROLLERS, "zero", lambda sc, pm, q0: Zero())
    out = tmp_path / "o"
    assert cli_main(["dock", "--controller", "zero", "--quick", "--out", str(out)]) == 1
    text = capsys.readouterr().out
    assert "gate: FAIL" in text and f"wrote {out / 'results' / 'iiwa14_docking_zero.md'}" in text


def test_demo_delegates_to_the_feature(tmp_path: Path, monkeypatch: Any) -> None:
    seen: list[tuple[Path, Console]] = []

    def fake(out: Path, con: Console) -> tuple[list[Path], int]:
        seen.append((out, con))
        return [out / "x"], 0

    monkeypatch.setattr("mjscope.dock.demo.run_demo", fake)
    con = Console()
    assert cli_dock.demo(tmp_path, con) == ([tmp_path / "x"], 0)
    assert seen == [(tmp_path, con)]


def test_importing_the_cli_module_stays_light() -> None:
    code = "import sys, mjscope.cli.dock; print(sorted(m for m in sys.modules if 'dock' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['mjscope.cli.dock']"


def test_outputs_are_checked_before_the_run_and_never_half_replaced(tmp_path, capsys) -> None:
    from mjscope.cli import main

    (tmp_path / "results").write_text("a file where the results folder goes")
    assert main(["dock", "--quick", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "results" in err and "scene iiwa14" not in err
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "results"]


def test_telemetry_and_table_writes_are_atomic(tmp_path, monkeypatch) -> None:
    import numpy as np

    from mjscope.dock.telemetry import Log
    from mjscope.exceptions import OutputError

    out = tmp_path / "run.npz"
    out.write_bytes(b"earlier run")

    def broken(path, **arrays):
        open(path, "wb").write(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", broken)
    with pytest.raises(OutputError, match=r"cannot write .*run\.npz.*No space left"):
        Log().save_npz(out)
    assert out.read_bytes() == b"earlier run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.npz"]


# --- side by side and figure language ------------------------------------------------------------


def test_controller_list_and_language_reach_the_config() -> None:
    cfg = cli_dock.to_cfg(_args("--controller", "cic,se3_lie", "--lang", "zh"))
    assert cfg.controller == "cic,se3_lie" and cfg.lang == "zh"
    assert cli_dock.to_cfg(_args()).lang == "en"
    with pytest.raises(SystemExit):
        _args("--lang", "fr")  # argparse: invalid choice, exit 2


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_side_by_side_end_to_end(tmp_path: Path, capsys: Any) -> None:
    argv = ["dock", "--controller", "cic,se3_lie", "--quick", "--out", str(tmp_path)]
    assert cli_main(argv) == 0
    out = capsys.readouterr().out
    assert "iiwa14_docking: cic vs se3_lie" in out and "se3_lie − cic" in out
    assert "gate cic: PASS" in out and "gate se3_lie: PASS" in out and "gate (all): PASS" in out
    assert out.count("scene iiwa14_docking (docking), controller ") == 2
    figures = {f"figure/iiwa14_docking/compare_{n}.{e}" for n in
               ("position_error", "orientation_error", "contact_force", "insertion_depth")
               for e in ("png", "pdf")}  # fmt: skip
    runs = {f"{d}/iiwa14_docking_{c}.{e}" for c in ("cic", "se3_lie")
            for d, e in (("telemetry", "npz"), ("results", "md"))}  # fmt: skip
    tables = {"results/iiwa14_docking_compare.md", "results/iiwa14_docking_compare.json"}
    assert _files(tmp_path) == figures | runs | tables


def test_side_by_side_exits_1_unless_every_gate_passes(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    from tests.test_dock_run_docking import weak_cic

    monkeypatch.setitem(run_docking.CONTROLLERS, "weak", weak_cic)
    argv = ["dock", "--scene", "iiwa14_track_circle", "--controller", "cic,weak", "--quick"]
    assert cli_main([*argv, "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "gate cic: PASS" in out and "gate weak: FAIL" in out and "gate (all): FAIL" in out


@pytest.mark.parametrize(
    ("value", "needle"),
    [("cic,cic", "given twice"), ("cic,pid", "unknown controller 'pid'"), (",", "no controller")],
)
def test_bad_controller_lists_exit_2_with_one_line(
    value: str, needle: str, tmp_path: Path, capsys: Any
) -> None:
    assert cli_main(["dock", "--controller", value, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and "cic" in err and "se3_lie" in err
    assert _files(tmp_path) == set()


def test_zh_without_a_cjk_font_exits_2_before_the_run(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    from mjscope.dock import plot_style

    monkeypatch.setattr(plot_style, "CJK_FONTS", ("No Such CJK Font",))
    for ctrl in ("cic", "cic,se3_lie"):
        argv = ["dock", "--controller", ctrl, "--plot", "--lang", "zh", "--quick"]
        assert cli_main([*argv, "--out", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "apt-get install fonts-noto-cjk" in err
    assert _files(tmp_path) == set(), "no run, no file"


def test_single_controller_plot_in_chinese(tmp_path: Path, capsys: Any) -> None:
    from tests.test_dock_plotting import cjk_font_or_skip

    cjk_font_or_skip()
    argv = ["dock", "--scene", "iiwa14_track_circle", "--quick", "--plot", "--lang", "zh"]
    assert cli_main([*argv, "--out", str(tmp_path)]) == 0
    names = {"position_tracking", "errors", "forces", "joint_torques", "path_xy"}
    figures = {f"figure/iiwa14_track_circle/{n}.{e}" for n in names for e in ("png", "pdf")}
    run = {"telemetry/iiwa14_track_circle_cic.npz", "results/iiwa14_track_circle_cic.md"}
    assert _files(tmp_path) == figures | run, "a single controller writes what it always did"
    out = capsys.readouterr().out
    assert "gate: PASS" in out and "compare" not in out


def test_calibrate_prints_the_identified_load_against_the_scene(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert (
        cli_main(["dock", "--scene", "iiwa14_docking", "--calibrate", "--out", str(tmp_path)]) == 0
    )
    out = capsys.readouterr().out
    assert "tool load identified" in out and "mass" in out and "bias_fx" in out
    import json

    doc = json.loads((tmp_path / "calibration" / "iiwa14_docking.json").read_text())
    mass = next(r for r in doc["rows"] if r["quantity"] == "mass")
    assert abs(mass["identified"] - 0.3) < 1e-6 and mass["scene"] == 0.3
    assert doc["residual_identified_N"] < 1e-6
    page = tmp_path / "cal.html"  # --json - (stdout alone) and --html, as every mode
    argv = ["dock", "--scene", "iiwa14_docking", "--calibrate", "--out", str(tmp_path), "--json",
            "-", "--html", str(page)]  # fmt: skip
    assert cli_main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["kind"] == "calibration" and summary["rows"] == doc["rows"]
    assert summary["files"] == [str(tmp_path / "calibration" / "iiwa14_docking.json")]
    html = page.read_text()
    assert "calibrate" in html and "bias_fx" in html and "OK" in html
