"""A whole ``mjscope teleop`` run: adapter selection, option checks, report and log, isolation."""

from __future__ import annotations

import csv
import io
import json
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console

from mjscope.config import package_data_path
from mjscope.exceptions import ConfigError, MjscopeError
from mjscope.rig import load_rig_cfg
from mjscope.teleop import build
from mjscope.teleop.adapters.mock import MockRealManAdapter
from mjscope.teleop.session import TeleopCmdCfg, check_cmd_cfg, run_teleop
from tests.utils import assert_close

CON = Console(file=io.StringIO(), width=160)
BASE = TeleopCmdCfg(transport="inproc", xr="demo", duration=0.3)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_mock_mode_never_imports_mujoco_the_mirror_or_the_real_adapter() -> None:
    code = (
        "import sys\n"
        "from mjscope.cli import main\n"
        "rc = main(['teleop', '--mock', '--xr', 'demo', '--duration', '0.2', '--transport', "
        "'inproc'])\n"
        "bad = [m for m in sys.modules if m == 'mujoco' or m.startswith(('mujoco.', "
        "'mjscope.mirror', 'mjscope.teleop.adapters.realman', 'mjscope.teleop.realman'))]\n"
        "print(rc, bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "0 []"


def test_real_mode_never_creates_a_mock_and_a_dead_arm_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_mock(*a: Any, **k: Any) -> None:
        raise AssertionError("a mock arm was created in real mode")

    monkeypatch.setattr(MockRealManAdapter, "__init__", no_mock)
    cfg = replace(BASE, mode="real", arm="left", left_addr=f"127.0.0.1:{_closed_port()}")
    with pytest.raises(MjscopeError, match=r"left arm at 127\.0\.0\.1:\d+"):
        run_teleop(cfg, CON)


def test_the_adapter_is_the_modes_only() -> None:
    side = load_rig_cfg().sides["left"]
    assert build.make_adapter("mock", "left", side).kind == "mock"
    real = build.make_adapter("real", "left", side, "127.0.0.1:9")
    assert real.kind == "real" and real.grip_release_after_reset
    assert not MockRealManAdapter.grip_release_after_reset
    with pytest.raises(MjscopeError, match="needs --real"):
        build.make_adapter("mock", "left", side, "127.0.0.1:9")
    with pytest.raises(ConfigError, match="HOST:PORT"):
        build.make_adapter("real", "left", side, "nowhere")


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"mujoco": True, "arm": "left"}, "--mujoco needs --arm both"),
        ({"record": "x.mp4"}, "add --mujoco"),
        ({"xr": "replay"}, "--replay FILE"),
        ({"xr_port": 9001}, "--xr-port is for --xr udp"),
        ({"left_addr": "127.0.0.1:1"}, "need --real"),
        ({"duration": 0.0}, "must be > 0"),
        ({"arm": "middle"}, "--arm 'middle'"),
    ],
)
def test_bad_option_combinations_are_one_line_errors(changes: dict, match: str) -> None:
    with pytest.raises(MjscopeError, match=match):
        check_cmd_cfg(replace(BASE, **changes))


def test_report_and_log_hold_what_the_run_did(tmp_path: Path) -> None:
    cfg = replace(BASE, duration=2.0, report=str(tmp_path / "r.json"), log=str(tmp_path / "l.csv"))
    assert run_teleop(cfg, CON) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    rig = load_rig_cfg()
    for side, r in report["sides"].items():
        s = rig.sides[side]
        assert r["adapter"] == "mock" and r["cycles"] > 150 and 80 < r["rate_hz"] < 100
        assert r["clutch_engagements"] == 1 and r["qp_failures"] == 0
        assert set(r["clamps"]) >= {"workspace", "linear_speed", "joint_speed", "joint_acc"}
        assert r["limits"]["workspace_max"] == list(s.workspace_max)
        assert r["limits"]["scale_factor"] == s.scale_factor
        assert r["max_joint_speed"]["max"] <= max(s.joint_max_speed) + 1e-12
        assert r["max_joint_acc"]["max"] <= max(s.joint_max_acc) * (1 + 1e-9)
        assert list(r["final_joint_positions"]) == list(s.joint_names)
        assert len(r["initial_ee_pose"]["quaternion_wxyz"]) == 4
    left0 = report["sides"]["left"]["initial_ee_pose"]["position"]
    assert_close(left0, [0.338202503, 0.0, 0.620134665], 1e-8)
    rows = list(csv.DictReader((tmp_path / "l.csv").open()))
    n = sum(r["cycles"] for r in report["sides"].values())
    assert len(rows) == n and {r["side"] for r in rows} == {"left", "right"}
    engaged = [r for r in rows if r["state"] == "engaged"]
    assert engaged and all(np.isfinite(float(r["target_x"])) for r in engaged)
    assert float(rows[-1]["q7"]) == pytest.approx(
        report["sides"][rows[-1]["side"]]["final_joint_positions"][f"{rows[-1]['side']}_joint7"]
    )


def test_outputs_are_checked_before_the_run(tmp_path: Path) -> None:
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(MjscopeError, match="is a folder"):
        run_teleop(replace(BASE, report=str(tmp_path / "dir.json")), CON)
    with pytest.raises(MjscopeError, match=r"must end in \.csv"):
        run_teleop(replace(BASE, log=str(tmp_path / "l.txt")), CON)


def test_an_initial_pose_outside_the_workspace_is_a_config_error(tmp_path: Path) -> None:
    body = (
        package_data_path("config", "dual_arm_rm75.yaml")
        .read_text()
        .replace("workspace_min: [0.10, -0.60, 0.35]", "workspace_min: [0.5, -0.6, 0.35]")
    )
    (tmp_path / "rig.yaml").write_text(body)
    with pytest.raises(ConfigError, match=r"sides\.left: the initial pose puts the end effector"):
        run_teleop(replace(BASE, config=str(tmp_path / "rig.yaml")), CON)


class BrokenMirror:
    """A companion whose mirror failed: teleop must run exactly as without it."""

    def start(self, transport: Any, rig: Any) -> None:
        self.started = True

    def stop(self) -> dict[str, Any]:
        return {"error": "mirror crashed"}


def test_a_failing_mirror_changes_nothing_for_the_arms(tmp_path: Path) -> None:
    base = replace(BASE, duration=1.5, xr="demo")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run_teleop(replace(base, report=str(a)), CON) == 0
    assert run_teleop(replace(base, report=str(b), mujoco=True), CON, BrokenMirror()) == 0
    ra, rb = json.loads(a.read_text()), json.loads(b.read_text())
    assert rb["mujoco"] == {"error": "mirror crashed"} and ra["mujoco"] is None
    for side in ("left", "right"):
        assert rb["sides"][side]["safe_stop"] is None
        assert rb["sides"][side]["clutch_engagements"] == ra["sides"][side]["clutch_engagements"]


def test_per_stage_latency_per_arm_in_the_report_and_the_log(tmp_path: Path) -> None:
    cfg = replace(BASE, duration=2.0, report=str(tmp_path / "r.json"), log=str(tmp_path / "l.csv"))
    assert run_teleop(cfg, CON) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    for side, r in report["sides"].items():
        st, engaged = r["stages"], r["engaged_cycles"]
        assert engaged > 20  # ≈ 70 in 2 s on a quiet machine; fewer when it is starved
        for stage in ("target", "ik", "limits", "send"):  # every engaged cycle is timed
            n = st[stage]["n"]
            assert n == engaged if stage != "send" else n >= engaged, (side, stage, n, engaged)
            assert 0 < st[stage]["p50_us"] <= st[stage]["p99_us"] <= st[stage]["max_us"]
            assert st[stage]["p99_us"] < 1e5  # 0.1 s: a cycle stage, not a stall
        assert st["xr"]["n"] >= 40 and st["xr"]["p50_us"] >= 0  # the replay: 25 frames/s
        assert st["ack"]["n"] == 0  # a mock's feedback is its command: nothing to wait for
        assert r["loop"]["ticks"] == r["cycles"] and r["loop"]["missed"] >= 0
    rows = list(csv.DictReader((tmp_path / "l.csv").open()))
    engaged = [r for r in rows if r["state"] == "engaged"]
    assert engaged and all(float(r["ik_us"]) > 0 and float(r["send_us"]) > 0 for r in engaged)
    assert all(r["ack_us"] == "" for r in rows)


def test_the_real_arm_reports_its_feedback_ack(tmp_path: Path) -> None:
    from mjscope.teleop.emulator import RmEmulator, RmEmulatorCfg

    side = load_rig_cfg().sides["left"]
    emu_cfg = RmEmulatorCfg(port=0, initial_joints_deg=tuple(side.initial_joint_pose_deg))
    with RmEmulator(emu_cfg) as emu:
        cfg = replace(
            BASE, mode="real", arm="left", left_addr=emu.address, duration=1.0,
            report=str(tmp_path / "r.json"),
        )  # fmt: skip
        assert run_teleop(cfg, CON) == 0
    ack = json.loads((tmp_path / "r.json").read_text())["sides"]["left"]["stages"]["ack"]
    assert ack["n"] > 30  # most cycles send, and a push follows within 5 ms
    assert 0 < ack["p50_us"] < 20_000  # the push period is 5 ms; 20 ms leaves room for load
