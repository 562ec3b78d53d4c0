"""The fault policy end to end: two emulated controllers on 127.0.0.1, scripted XR.

Default (bimanual): a controller that goes away safe-stops its arm within one feedback
timeout, the other arm is stopped too, and the run ends (exit 1) within a second, naming the
arm and the cause. ``--isolate-faults`` keeps the healthy arm running and exits 1 at the end.
"""

from __future__ import annotations

import io
import json
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from mjscope.rig import load_rig_cfg
from mjscope.teleop.emulator import Faults, RmEmulator, RmEmulatorCfg
from mjscope.teleop.session import TeleopCmdCfg, run_teleop

RIG = load_rig_cfg()


def emulator(side: str, **faults: float) -> RmEmulator:
    pose = tuple(RIG.sides[side].initial_joint_pose_deg)
    return RmEmulator(RmEmulatorCfg(port=0, initial_joints_deg=pose), Faults(**faults))


def inject_when_running(emu: RmEmulator, faults: dict) -> list[float]:
    """Set ``faults`` on ``emu`` once teleop runs against it (the push flows after connect).

    Returns:
        A list that receives the monotonic time of the injection.
    """
    at: list[float] = []

    def wait_then_inject() -> None:
        deadline = time.monotonic() + 60.0
        while emu.pushes < 50 and time.monotonic() < deadline:
            time.sleep(0.01)
        for k, v in faults.items():
            setattr(emu.faults, k, v)
        at.append(time.monotonic())

    threading.Thread(target=wait_then_inject, daemon=True).start()
    return at


def run_pair(tmp_path: Path, right_faults: dict, **cfg: object) -> tuple[int, dict, str, float]:
    """Run both real arms against two emulators; (exit code, report, console text, end time).

    ``right_faults`` start once the arms run (a slow start-up must not meet them first).
    """
    out = io.StringIO()
    with emulator("left") as left, emulator("right") as right:
        inject_when_running(right, right_faults)
        base = TeleopCmdCfg(mode="real", transport="inproc", xr="demo", duration=6.0)
        run = replace(
            base, left_addr=left.address, right_addr=right.address, report=str(tmp_path / "r.json")
        )
        code = run_teleop(replace(run, **cfg), Console(file=out, width=200))  # type: ignore[arg-type]
        ended = time.monotonic()
        gone_at = right.gone_at
    report = json.loads((tmp_path / "r.json").read_text())
    return code, report, out.getvalue(), ended - gone_at


def test_a_controller_that_goes_away_stops_both_arms_and_exits_1_within_a_second(
    tmp_path: Path,
) -> None:
    code, report, text, after = run_pair(tmp_path, {"disconnect_after_s": 0.0})
    assert code == 1
    right, left = report["sides"]["right"], report["sides"]["left"]
    assert "closed the connection" in right["safe_stop"], right["safe_stop"]
    assert left["safe_stop"].startswith("the right arm safe-stopped")
    assert report["fault"]["side"] == "right" and report["fault_policy"] == "stop_all"
    assert after < 1.0  # the bound (measured: 0.06–0.11 s from the disconnect)
    assert "safe stop of the right arm" in text and "closed the connection" in text
    assert report["loop"]["duration_s"] < 3.0  # not the 6 s duration


def test_isolate_faults_keeps_the_healthy_arm_and_exits_1_at_the_end(tmp_path: Path) -> None:
    code, report, text, _ = run_pair(
        tmp_path, {"disconnect_after_s": 0.0}, isolate_faults=True, duration=2.5
    )
    assert code == 1
    left, right = report["sides"]["left"], report["sides"]["right"]
    assert right["safe_stop"] and left["safe_stop"] is None
    assert report["fault_policy"] == "isolate" and report["loop"]["duration_s"] >= 2.5
    assert left["loop"]["ticks"] > 0.8 * 2.5 * 90  # it kept its cycle to the end
    assert "the other arm kept running" in text


@pytest.mark.parametrize("faults", [{"drop": 1.0}, {"latency_s": 1.5}])
def test_lost_or_late_feedback_at_start_is_an_error_naming_the_arm(
    tmp_path: Path, faults: dict
) -> None:
    from mjscope.exceptions import MjscopeError

    with emulator("left") as left, emulator("right", **faults) as right:
        cfg = TeleopCmdCfg(
            mode="real", transport="inproc", xr="demo", duration=2.0,
            left_addr=left.address, right_addr=right.address,
        )  # fmt: skip
        with pytest.raises(MjscopeError, match=r"right arm at 127\.0\.0\.1:\d+"):
            run_teleop(cfg, Console(file=io.StringIO()))


def test_feedback_that_stops_mid_run_is_a_safe_stop_within_one_timeout(tmp_path: Path) -> None:
    out = io.StringIO()
    with emulator("left") as left:
        cfg = TeleopCmdCfg(
            mode="real", arm="left", transport="inproc", xr="demo", duration=6.0,
            left_addr=left.address, report=str(tmp_path / "r.json"),
        )  # fmt: skip

        cut_at = inject_when_running(left, {"drop": 1.0})  # every push lost from then on
        assert run_teleop(cfg, Console(file=out, width=200)) == 1
        ended = time.monotonic()
    r = json.loads((tmp_path / "r.json").read_text())["sides"]["left"]
    assert "feedback" in r["safe_stop"] and r["feedback_timeouts"] >= 1
    timeout = RIG.sides["left"].feedback_timeout_s  # the stop, then the exit within 1 s
    assert ended - cut_at[0] < timeout + 1.0  # measured: 0.26 s with the 0.2 s timeout
