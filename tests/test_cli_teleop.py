"""``mjscope teleop`` as a user runs it: the launch matrix, mistakes, the mirror, the demo."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest
import yaml

from mjscope.cli import build_parser, main
from mjscope.config import package_data_path
from mjscope.rig import load_rig_cfg
from tests.utils import asset

MOCK = ["teleop", "--mock", "--transport", "inproc", "--xr", "demo"]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_mujoco_is_off_by_default_and_a_mode_is_required(capsys) -> None:
    args = build_parser().parse_args(["teleop", "--mock"])
    assert args.mujoco is False and args.mode == "mock" and args.arm == "both"
    assert args.transport == "dds" and args.xr is None and not args.demo
    assert main(["teleop", "--transport", "inproc"]) == 2
    assert "choose the arms: --mock, --real" in capsys.readouterr().err
    for both in (["--mock", "--real"], ["--demo", "--real"]):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["teleop", *both])


def test_mock_without_mujoco_runs_both_arms(tmp_path: Path) -> None:
    rep = tmp_path / "r.json"
    assert main([*MOCK, "--duration", "0.5", "--report", str(rep)]) == 0
    report = json.loads(rep.read_text())
    assert sorted(report["sides"]) == ["left", "right"] and report["mujoco"] is None


def test_one_arm_runs_alone(tmp_path: Path) -> None:
    rep = tmp_path / "r.json"
    assert main([*MOCK, "--arm", "right", "--duration", "0.3", "--report", str(rep)]) == 0
    assert list(json.loads(rep.read_text())["sides"]) == ["right"]


def test_mujoco_shows_the_yaml_initial_pose_through_the_mock(tmp_path: Path, capsys) -> None:
    rep, gif = tmp_path / "r.json", tmp_path / "v.gif"
    # no XR input at all (a UDP port nobody sends to): the arms stay where the YAML puts them,
    # for long enough that the recording's renderer is up even on a loaded machine
    args = ["teleop", "--mock", "--transport", "inproc", "--xr-port", "0"]
    args += ["--mujoco", "--viewer", "none", "--duration", "3.0", "--size", "320x240"]
    assert main([*args, "--record", str(gif), "--report", str(rep)]) == 0
    out = capsys.readouterr().out
    assert "MuJoCo mirror on" in out and f"wrote {gif}" in out
    mirror = json.loads(rep.read_text())["mujoco"]
    assert mirror["ready"] and mirror["waiting_for"] == []
    rig = load_rig_cfg()
    for side, s in rig.sides.items():
        want = np.radians(s.initial_joint_pose_deg)
        got = [mirror["joint_positions_rad"][n] for n in s.joint_names]
        assert got == pytest.approx(want.tolist(), abs=1e-12), side
    frames = iio.imread(gif, index=None)
    assert frames.shape[0] >= 1 and frames.shape[1:3] == (240, 320)  # --size


def test_mujoco_follows_the_commanded_arms(tmp_path: Path) -> None:
    rep = tmp_path / "r.json"
    args = [*MOCK, "--mujoco", "--viewer", "none", "--duration", "3.0", "--report", str(rep)]
    assert main(args) == 0
    report = json.loads(rep.read_text())
    mirror = report["mujoco"]["joint_positions_rad"]
    for r in report["sides"].values():
        assert r["max_joint_speed"]["max"] > 0.01  # the arms moved
        for name, q in r["final_joint_positions"].items():
            assert mirror[name] == pytest.approx(q, abs=0.05)  # within a cycle's motion


@pytest.mark.parametrize("extra", [[], ["--mujoco", "--viewer", "none"]])
def test_real_with_no_arm_is_a_one_line_error_never_a_mock(capsys, extra: list[str]) -> None:
    port = _closed_port()
    args = ["teleop", "--real", "--transport", "inproc", "--xr", "demo", "--duration", "0.5"]
    assert main([*args, *extra, "--left-addr", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("mjscope teleop: error: ") and f"127.0.0.1:{port}" in err
    assert "\n" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--mujoco", "--arm", "left"], "--mujoco needs --arm both"),
        (["--left-addr", "127.0.0.1:8080"], "need --real"),
        (["--record", "x.mp4"], "add --mujoco"),
        (["--duration", "-1"], "must be > 0"),
        (["--urdf", "missing.urdf"], "not found"),
        (["--report", "r.txt"], r"must end in .json"),
        (["--html", "r.txt"], r"must end in .html"),
        (["--size", "640"], r"--size '640': give WIDTHxHEIGHT"),
        (["--rt-priority", "0"], r"--rt-priority 0: use a SCHED_FIFO priority 1\.\.99"),
        (["--rt-priority", "100"], r"--rt-priority 100: use a SCHED_FIFO priority"),
    ],
)
def test_mistakes_are_one_line_errors(capsys, args: list[str], match: str) -> None:
    assert main([*MOCK, *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("mjscope teleop: error: ") and "\n" not in err
    assert __import__("re").search(match, err), err


def test_an_unknown_config_key_names_the_valid_keys(tmp_path: Path, capsys) -> None:
    data = yaml.safe_load(package_data_path("config", "dual_arm_rm75.yaml").read_text())
    data["sides"]["left"]["workspace_mni"] = [0, 0, 0]
    cfg = tmp_path / "rig.yaml"
    cfg.write_text(yaml.safe_dump(data))
    assert main([*MOCK, "--config", str(cfg), "--duration", "0.2"]) == 2
    err = capsys.readouterr().err
    assert "'workspace_mni'" in err and "workspace_min" in err


def test_a_user_urdf_with_package_meshes_drives_one_arm(tmp_path: Path) -> None:
    data = yaml.safe_load(package_data_path("config", "dual_arm_rm75.yaml").read_text())
    left = data["sides"]["left"]
    left.update(workspace_min=[-1.0, -1.0, 0.0], workspace_max=[1.0, 1.0, 1.5])
    left.update(cyl_radius_limit=0.0, low_cyl_radius_limit=0.0)
    cfg, rep = tmp_path / "rig.yaml", tmp_path / "r.json"
    cfg.write_text(yaml.safe_dump(data))
    urdf = str(asset("rm75", "urdf", "rm_75.urdf"))
    args = [*MOCK, "--arm", "left", "--urdf", urdf, "--map-prefix", "left_=", "--config", str(cfg)]
    assert main([*args, "--duration", "2.0", "--report", str(rep)]) == 0
    r = json.loads(rep.read_text())["sides"]["left"]
    assert r["clutch_engagements"] == 1 and r["max_joint_speed"]["max"] > 0.01
    # The same arm as the bundled rig's left one, whose base sits at x = 0.125 with its z axis
    # along world +x: its flange height here is that arm's flange x minus 0.125.
    assert r["initial_ee_pose"]["position"][2] == pytest.approx(0.338202503 - 0.125, abs=1e-6)


@pytest.mark.parametrize("how", ["mjscope demo", "teleop --demo"])
def test_the_demo_films_the_scripted_session(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "mjscope demo":
        assert main(["demo", "--only", "teleop", "--out", str(tmp_path)]) == 0
        out = tmp_path / "teleop"
    else:
        monkeypatch.chdir(tmp_path)
        assert main(["teleop", "--demo"]) == 0
        out = tmp_path / "mjscope-out" / "teleop"
    frames = iio.imread(out / "teleop_demo.mp4", index=None)
    assert frames.shape[0] > 100 and np.any(frames[0] != frames[-1])
    assert frames.shape[1:3] == (480, 640)
    report = json.loads((out / "teleop_report.json").read_text())
    for r in report["sides"].values():
        assert r["resets"] == 1 and r["safe_stop"] is None
    assert report["sides"]["left"]["clutch_engagements"] == 2  # re-anchored after X, grip held
    assert iio.imread(out / "teleop_strip.png").shape == (480, 4 * 640, 3)  # full-size frames
    assert "Latency" in (out / "report.html").read_text()
    if how == "mjscope demo":
        assert 'href="teleop/report.html"' in (tmp_path / "index.html").read_text()
    text = capsys.readouterr().out
    assert "left: 2 engagements, 1 reset," in text and "right: 1 engagement, 1 reset," in text


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_ctrl_c_and_sigterm_brake_write_the_outputs_and_exit_130(tmp_path: Path, sig: str) -> None:
    import signal
    import subprocess
    import sys

    rep, log = tmp_path / "r.json", tmp_path / "l.csv"
    cmd = [sys.executable, "-m", "mjscope", *MOCK, "--report", str(rep), "--log", str(log)]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None
        line = p.stdout.readline()  # printed once the arms are connected, just before the run
        assert "Ctrl-C ends" in line, line + (p.stderr.read() if p.stderr else "")
        p.send_signal(getattr(signal, sig))
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "interrupted; every arm braked to rest" in out and "Traceback" not in err
    report = json.loads(rep.read_text())
    assert report["interrupted"] is True and report["fault"] is None
    assert all(r["safe_stop"] is None for r in report["sides"].values())
    assert log.is_file()


def test_a_run_writes_its_html_page_with_the_stage_latencies(tmp_path: Path, capsys) -> None:
    page = tmp_path / "pages" / "run.html"
    assert main([*MOCK, "--duration", "0.5", "--html", str(page)]) == 0
    assert f"wrote {page}" in capsys.readouterr().out
    html = page.read_text()
    assert "mjscope teleop" in html and ">OK</span>" in html and "no safe stop" in html
    assert "per-stage time per cycle" in html and "p50 [µs]" in html and "p99 [µs]" in html
    for stage in ("target", "ik", "limits", "send"):
        assert f"<td>{stage}</td>" in html, stage
    assert "XR dropped" in html and "loop missed" in html and "fault policy" in html


def test_the_demo_honours_duration_and_out(tmp_path: Path, capsys) -> None:
    assert main(["teleop", "--demo", "--duration", "3", "--out", str(tmp_path / "d")]) == 0
    out = tmp_path / "d" / "teleop"
    report = json.loads((out / "teleop_report.json").read_text())
    for r in report["sides"].values():
        assert r["resets"] == 0 and r["clutch_engagements"] == 1  # 3 s: before either reset
        assert 260 <= r["cycles"] <= 280  # 3 s at 90 Hz
    frames = iio.imread(out / "teleop_demo.mp4", index=None)
    assert 30 <= frames.shape[0] <= 40  # 12 frames/s
    assert "of 3 s simulated" in capsys.readouterr().out
    assert main(["teleop", "--mock", "--out", str(tmp_path)]) == 2
    assert "--out is for --demo" in capsys.readouterr().err
