"""``mjscope mirror`` and ``mjscope mock-arm`` as a user runs them (including mistakes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest

from mjscope.cli import main
from mjscope.mirror.config import load_rig_cfg
from tests.utils import asset

DOMAIN = 101 + (os.getpid() + 7) % 120


def test_demo_mode_records_snapshots_and_reports(tmp_path: Path, capsys) -> None:
    rep, png, gif = tmp_path / "r.json", tmp_path / "s.png", tmp_path / "v.gif"
    args = ["mirror", "--demo", "--duration", "1.5", "--viewer", "none"]
    assert main([*args, "--report", str(rep), "--snapshot", str(png), "--record", str(gif)]) == 0
    out = capsys.readouterr().out
    assert "left /xr_rm/left_rm75/joint_states" in out and f"wrote {rep}" in out
    report = json.loads(rep.read_text())
    assert report["ready"] and report["waiting_for"] == []
    for t in report["topics"].values():
        assert t["received"] > 40 and t["rejected"] == 0 and t["publisher_count"] == 1
        assert 30.0 < t["received_rate_hz"] < 120.0
    assert sorted(report["joint_positions_rad"]) == sorted(
        [f"{s}_joint{i}" for s in ("left", "right") for i in range(1, 8)]
    )
    assert iio.imread(png).shape == (480, 640, 3)
    frames = iio.imread(gif, index=None)
    assert frames.shape[0] >= 2  # identical consecutive frames may be merged by the GIF writer
    assert np.any(frames[0] != frames[-1])  # sine motion is visible


def test_real_rm75_urdf_with_prefix_map(tmp_path: Path) -> None:
    urdf = asset("rm75", "urdf", "rm_75.urdf")
    rep = tmp_path / "r.json"
    args = ["mirror", "--model", str(urdf), "--sides", "left", "--map-prefix", "left_="]
    assert (
        main([*args, "--demo", "--motion", "none", "--duration", "0.6", "--report", str(rep)]) == 0
    )
    got = json.loads(rep.read_text())["joint_positions_rad"]
    want = np.radians(load_rig_cfg().sides["left"].initial_joint_pose_deg)
    assert [got[f"joint{i}"] for i in range(1, 8)] == pytest.approx(want.tolist(), abs=1e-12)


def test_without_sources_it_waits_and_exits_1(tmp_path: Path, capsys) -> None:
    rep = tmp_path / "r.json"
    assert main(["mirror", "--transport", "inproc", "--duration", "0.3", "--report", str(rep)]) == 1
    assert "never received a valid frame from: left, right" in capsys.readouterr().out
    assert json.loads(rep.read_text())["joint_positions_rad"] == {}


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--model", "nope_robot"], "unknown model 'nope_robot'"),
        (["--record", "x.avi"], r"must end in \.mp4 or \.gif"),
        (["--snapshot", "x.jpg"], r"must end in \.png"),
        (["--sides", "top"], "unknown side 'top'; known: left, right"),
        (["--map-prefix", "left_"], "OLD=NEW"),
        (["--duration", "-1"], "must be > 0"),
        (["--transport", "dds", "--domain-id", "999"], r"out of range; use 0\.\.232"),
        (["--model", "rm75"], "unknown joint 'left_joint1'.*joint_map"),
    ],
)
def test_user_mistakes_are_one_line_errors(argv: list[str], match: str, capsys) -> None:
    import re

    assert main(["mirror", "--duration", "0.2", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("mjscope mirror: error:")
    assert re.search(match, err), err


def test_bad_config_file_and_native_viewer_without_display(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    bad = tmp_path / "rig.yaml"
    bad.write_text("sides:\n  left:\n    joint_names: [a]\n    state_topic: /a\n    rate: 1\n")
    assert main(["mirror", "--config", str(bad), "--duration", "0.2"]) == 2
    assert "unknown key(s) 'rate'" in capsys.readouterr().err
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["mirror", "--demo", "--viewer", "native", "--duration", "0.2"]) == 2
    assert "needs a display" in capsys.readouterr().err


def test_mock_arm_process_drives_mirror_over_dds_and_takes_reset(tmp_path: Path) -> None:
    mock = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mjscope",
            "mock-arm",
            "--domain-id",
            str(DOMAIN),
            "--duration",
            "25",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert mock.stdout is not None and "mock left:" in mock.stdout.readline()  # started
        rep = tmp_path / "r.json"
        args = ["mirror", "--domain-id", str(DOMAIN), "--duration", "2.5", "--report", str(rep)]
        assert main(args) == 0
        report = json.loads(rep.read_text())
        rig = load_rig_cfg()
        for side, cfg in rig.sides.items():
            want = np.radians(cfg.initial_joint_pose_deg)
            got = [report["joint_positions_rad"][n] for n in cfg.joint_names]
            assert got == pytest.approx(want.tolist(), abs=1e-12), side
        send = ["mock-arm", "--side", "left", "--send", "reset", "--domain-id", str(DOMAIN)]
        assert main(send) == 0
    finally:
        mock.terminate()
        out, _ = mock.communicate(timeout=20)
    assert "mock left: published" in out and "1 reset\n" in out


def test_mock_arm_inproc_and_mistakes(capsys) -> None:
    assert main(["mock-arm", "--transport", "inproc", "--duration", "0.2", "--side", "left"]) == 0
    out = capsys.readouterr().out
    assert "inproc reaches only this process" in out and "mock left: published" in out
    assert main(["mock-arm", "--transport", "inproc", "--duration", "0"]) == 2


def test_demo_part_writes_gif_strip_and_report(tmp_path: Path) -> None:
    from rich.console import Console

    from mjscope.cli import COMMANDS
    from mjscope.cli.mirror import demo

    files, code = demo(tmp_path, Console(quiet=True))
    assert code == 0 and COMMANDS.index("mirror") == COMMANDS.index("diagnose") + 1
    want = {"mirror_demo.gif", "mirror_strip.png", "mirror_report.json", "report.html"}
    assert {f.name for f in files} == want
    assert all(f.parent == tmp_path / "mirror" and f.stat().st_size > 0 for f in files)
    rep = json.loads((tmp_path / "mirror" / "mirror_report.json").read_text())
    assert rep["ready"]


def test_recorder_keeps_an_earlier_file_unless_a_run_completes(tmp_path: Path) -> None:
    from mjscope.sim.render import VideoRecorder as Recorder

    out = tmp_path / "v.gif"
    out.write_bytes(b"earlier run")
    frame = np.full((16, 16, 3), 200, np.uint8)
    empty = Recorder(out, fps=10.0)
    empty.close()  # nothing recorded (the mirror never got ready)
    failed = Recorder(out, fps=10.0)
    failed.add(frame)
    failed.close(keep=False)  # the run raised
    assert out.read_bytes() == b"earlier run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.gif"]  # no part file left
    ok = Recorder(out, fps=10.0)
    for i in range(3):
        ok.add(frame // (i + 1))  # distinct frames (a GIF merges identical ones)
    ok.close()
    assert iio.imread(out, index=None).shape == (3, 16, 16, 3)


def test_report_write_failures_are_one_line_errors(tmp_path: Path, capsys) -> None:
    (tmp_path / "r.json").mkdir()
    argv = ["mirror", "--demo", "--viewer", "none", "--duration", "0.2"]
    assert main([*argv, "--report", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "r.json" in err and "is a folder" in err


def test_transport_options_follow_ros_domain_id(monkeypatch) -> None:
    from mjscope.bridge.transport import transport_options
    from mjscope.exceptions import MjscopeError

    monkeypatch.setenv("ROS_DOMAIN_ID", "7")
    monkeypatch.delenv("ROS_LOCALHOST_ONLY", raising=False)
    assert transport_options("dds", None) == {"domain_id": 7, "localhost_only": False}
    assert transport_options("dds", 3)["domain_id"] == 3  # --domain-id wins
    assert transport_options("inproc", None) == {}
    monkeypatch.setenv("ROS_DOMAIN_ID", "")
    assert transport_options("dds", None)["domain_id"] == 0
    monkeypatch.setenv("ROS_LOCALHOST_ONLY", "1")  # as ROS 2 users know it
    assert transport_options("dds", None)["localhost_only"] is True
    assert transport_options("dds", None, localhost_only=False)["localhost_only"] is False
    monkeypatch.setenv("ROS_DOMAIN_ID", "seven")
    with pytest.raises(MjscopeError, match=r"ROS_DOMAIN_ID='seven' is not a number"):
        transport_options("dds", None)


def test_mock_arm_imports_no_mujoco_or_opengl() -> None:
    # The seed: a node that does not need MuJoCo must not pull it in (nor an OpenGL stack).
    code = (
        "import sys\n"
        "from mjscope.cli import main\n"
        "rc = main(['mock-arm', '--transport', 'inproc', '--duration', '0.1', '--side', 'left'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('mujoco', 'OpenGL'))\n"
        "print(rc, heavy[:3])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "0 []", out.stdout + out.stderr


def test_a_recording_that_fails_at_the_end_still_leaves_the_report(tmp_path, monkeypatch, capsys):
    from mjscope.exceptions import OutputError
    from mjscope.sim.recording import LiveRecorder

    def full_disk(self, keep=True, end=None):
        raise OutputError(f"cannot write {str(self_path)!r}: No space left on device")

    self_path = tmp_path / "arms.gif"
    monkeypatch.setattr(LiveRecorder, "close", full_disk)
    report = tmp_path / "run.json"
    argv = ["mirror", "--demo", "--viewer", "none", "--duration", "0.3"]
    assert main([*argv, "--record", str(self_path), "--report", str(report)]) == 2
    out, err = capsys.readouterr()
    assert json.loads(report.read_text())["ready"]  # the report made it
    assert err.count("\n") == 1 and "No space left" in err and "wrote " + str(self_path) not in out
