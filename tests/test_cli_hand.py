import json
import re
import time

import pytest
from rich.console import Console

from mjscope.bridge.messages import JointState
from mjscope.cli import main
from mjscope.cli.hand import demo


@pytest.mark.parametrize("extra", [[], ["--pd-drive", "--hand-gravity"]])
def test_track_test_exit_codes(extra, tmp_path, capsys):
    report = tmp_path / "track.json"
    assert main(["hand", "--track-test", "--report", str(report), *extra]) == 0
    assert "PASS" in capsys.readouterr().out
    data = json.loads(report.read_text())
    assert data["track_test"]["passed"] and data["track_test"]["max_error"] <= 0.02


def test_failed_track_test_exits_1_with_its_report(tmp_path) -> None:
    # One exit-code policy (DESIGN): a failed check is 1; the Isaac script used 2.
    from mjscope.hand.session import HandCmdCfg, run_hand

    report = tmp_path / "track.json"
    # PD tracking settles near, not onto, the goal: a 1e-9 rad threshold fails it.
    cfg = HandCmdCfg(track_test=True, pd_drive=True, threshold=1e-9, report=str(report))
    assert run_hand(cfg, Console(quiet=True)) == 1
    data = json.loads(report.read_text())
    assert not data["track_test"]["passed"] and data["track_test"]["max_error"] > 1e-9


def test_command_fist_reports_pose_and_penetration(tmp_path, capsys):
    report, snap = tmp_path / "fist.json", tmp_path / "fist.png"
    rc = main(
        [
            "hand",
            "--command",
            "fist",
            "--collide-all",
            "--report",
            str(report),
            "--snapshot",
            str(snap),
        ]
    )
    assert rc == 0
    data = json.loads(report.read_text())
    assert data["max_penetration_m"] <= 1e-3 and data["limited_chains"]
    assert data["applied"]["index_dip"] == pytest.approx(1.08)
    assert snap.stat().st_size > 1000
    assert "max penetration" in capsys.readouterr().out


def test_command_file_by_joint_name(tmp_path):
    cmd = tmp_path / "pose.yaml"
    cmd.write_text("index_pip: 0.9\nthumb_mcp: 0.3\n")
    report = tmp_path / "r.json"
    assert main(["hand", "--command", str(cmd), "--report", str(report)]) == 0
    applied = json.loads(report.read_text())["applied"]
    assert applied["index_pip"] == pytest.approx(0.9) and applied["thumb_ip"] == pytest.approx(
        0.306
    )


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--command", "wave"], "use open, fist or an existing"),
        (["--profile", "nope", "--track-test"], "unknown hand profile"),
        (["--model", "missing.urdf", "--track-test"], "not found"),
        (["--hand-gravity", "--track-test"], "needs --pd-drive"),
        (["--slew-rad-s", "-1", "--track-test"], "must be >= 0"),
        (["--penetration-tol", "0", "--track-test"], "must be > 0"),
        (["--record", "x.avi", "--duration", "1"], ".mp4 or .gif"),
        (["--track-test", "--record", "x.gif"], "use --snapshot"),
        (["--viewer", "native", "--duration", "0.1", "--transport", "inproc"], "needs a display"),
    ],
)
def test_user_errors_are_one_line_exit_2(argv, match, capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["hand", *argv]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("sdk: [" + ", ".join(["300"] + ["0"] * 19) + "]\n", "sdk value 300 outside 0..255"),
        ("sdk: [" + ", ".join(["-1"] * 20) + "]\n", "sdk value -1 outside 0..255"),
        ("", "empty command"),
        ("sdk: [1, 2\n", "not valid YAML"),
    ],
)
def test_bad_command_files_are_one_line_errors(text, match, tmp_path, capsys):
    cmd = tmp_path / "cmd.yaml"
    cmd.write_text(text)
    assert main(["hand", "--command", str(cmd)]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1 and "Traceback" not in err


def test_unwritable_report_fails_before_the_run(tmp_path, capsys):
    (tmp_path / "r.json").mkdir()
    assert main(["hand", "--track-test", "--report", str(tmp_path / "r.json")]) == 2
    out, err = capsys.readouterr()
    assert "is a folder" in err and err.count("\n") == 1 and "track test" not in out


def test_live_inproc_run_with_recording(tmp_path, capsys):
    gif, report = tmp_path / "live.gif", tmp_path / "live.json"
    argv = ["hand", "--transport", "inproc", "--duration", "0.2", "--record", str(gif)]
    assert main([*argv, "--report", str(report), "--publish-sdk-state"]) == 0
    data = json.loads(report.read_text())
    assert data["steps"] == 20 and data["recoveries"] == 0 and data["rejected"] == {}
    assert gif.stat().st_size > 1000


def test_demo_writes_gif_and_strip(tmp_path):
    files, code = demo(tmp_path, Console(quiet=True))
    assert code == 0 and {f.suffix for f in files} == {".gif", ".png", ".html"}
    assert all(f.parent == tmp_path / "hand" and f.stat().st_size > 1000 for f in files)


def test_bridge_over_dds():
    from mjscope.bridge.transport import make_transport
    from mjscope.hand.bridge import TOPIC_CMD, TOPIC_STATE, HandBridge, HandBridgeCfg
    from mjscope.hand.model import build_hand_model
    from mjscope.hand.profile import load_profile

    p = load_profile()
    with make_transport("dds", domain_id=117) as bus:
        b = HandBridge(build_hand_model("g20_left", p), HandBridgeCfg(slew_rad_s=0.0), bus)
        pub = bus.publisher(TOPIC_CMD, JointState)
        states = bus.subscriber(TOPIC_STATE, JointState)
        got = []
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and (b.goal["index_pip"] < 1.0 or not got):
            pub.publish(JointState(name=["index_pip"], position=[0.0]))
            b.step()
            got += states.take()
            time.sleep(0.02)
        assert b.goal["index_pip"] == pytest.approx(1.08 / 0.89)
        assert got and "index_pip" in got[-1].name


def test_abbreviations_are_errors_and_isaac_slew_is_explained(capsys) -> None:
    # The Isaac bridge's --slew-rad was rad per physics step (1/120 s): 0.02 rad/step = 2.4 rad/s.
    assert main(["hand", "--slew-rad", "0.02", "--track-test"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "rad per physics step" in err and "--slew-rad-s 2.4" in err
    with pytest.raises(SystemExit) as e:  # a prefix of --penetration-tol is not that option
        main(["hand", "--penetration", "0.01", "--track-test"])
    assert e.value.code == 2 and "unrecognized arguments: --penetration" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("index_pip: 300\n", r"angle \[rad\] 300 outside"),
        ("index_pip: -5\n", r"target -5 rad for 'index_pip' is outside its range \[0, 1.57\]"),
        ("index_pip: .nan\n", r"index_pip: nan is not a finite number"),
    ],
)
def test_out_of_range_command_values_are_rejected_not_clamped(text, match, tmp_path, capsys):
    # The same rule as a nominal frame on the bus: beyond the joint's range is a mistake.
    cmd = tmp_path / "pose.yaml"
    cmd.write_text(text)
    assert main(["hand", "--command", str(cmd)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(match, err), err
