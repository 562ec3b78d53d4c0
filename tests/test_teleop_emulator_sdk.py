"""The vendor's own SDK (PyPI ``robotic-arm``) accepts the emulator as an RM75 controller.

The SDK runs in a subprocess with a timeout: it can hang on shutdown paths (facts §5), and a
hang must fail this test, not freeze the suite. The subprocess never deletes its handle; it
prints its findings as one JSON line and leaves with ``os._exit``.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

from mjscope.teleop.emulator import RmEmulator, RmEmulatorCfg
from mjscope.teleop.emulator.arm import flange_pose
from tests.utils import skip_optional

if importlib.util.find_spec("Robotic_Arm") is None:
    skip_optional(
        "the vendor SDK is not installed (pip install robotic-arm==1.1.6, in the dev extra)"
    )

START_DEG = [1.0, -30.0, 2.0, -90.0, 3.0, -60.0, 4.0]
SDK_SCRIPT = textwrap.dedent(
    """
    import json, os, sys, time
    from Robotic_Arm.rm_robot_interface import (
        RoboticArm, rm_realtime_arm_state_callback_ptr, rm_thread_mode_e)

    port = int(sys.argv[1])
    arm = RoboticArm(rm_thread_mode_e.RM_TRIPLE_MODE_E)
    handle = arm.rm_create_robot_arm("127.0.0.1", port, level=3)
    out = {"id": handle.id}
    ret, info = arm.rm_get_robot_info()
    out["info"] = [ret, str(info["arm_model"]), int(info["arm_dof"]),
                   int(info["robot_controller_version"])]
    out["state"] = arm.rm_get_current_arm_state()
    pushed = []

    def on_state(data):
        if len(pushed) < 2000:
            pushed.append([data.errCode, list(data.joint_status.joint_position)])

    callback = rm_realtime_arm_state_callback_ptr(on_state)
    arm.rm_realtime_arm_state_call_back(callback)
    time.sleep(0.2)
    out["pushes_before"] = len(pushed)
    rets = []
    for k in range(50):  # a 10 ms stream, low follow, as the official demo does
        q = [1.0 + 0.2 * (k + 1), -30.0, 2.0, -90.0, 3.0, -60.0, 4.0]
        rets.append(arm.rm_movej_canfd(q, False))
        time.sleep(0.01)
    time.sleep(0.5)
    out["canfd_rets"] = sorted(set(rets))
    out["degree"] = arm.rm_get_joint_degree()
    out["pushed_last"] = pushed[-1] if pushed else None
    out["pushes"] = len(pushed)
    out["set_speed"] = arm.rm_set_joint_max_speed(2, 30)
    out["movej"] = arm.rm_movej([0, -20, 0, -90, 0, -60, 0], 50, 0, 0, 1)
    out["final"] = arm.rm_get_joint_degree()
    print("RESULT " + json.dumps(out), flush=True)
    os._exit(0)
    """
)


def run_sdk(port: int) -> dict[str, Any]:
    try:
        p = subprocess.run(
            [sys.executable, "-c", SDK_SCRIPT, str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the vendor SDK hung (killed after 60 s); output: {e.stdout!r}")
    lines = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
    assert p.returncode == 0 and lines, (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    return json.loads(lines[-1].removeprefix("RESULT "))


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_vendor_sdk_accepts_the_emulator() -> None:
    cfg = RmEmulatorCfg(port=0, push_port=free_udp_port(), initial_joints_deg=tuple(START_DEG))
    with RmEmulator(cfg) as emu:
        out = run_sdk(emu.port)
        joints = emu.joints_deg()
        log = emu.canfd_log()
        speed_j2 = emu.controller.arm.vmax[1]
    assert out["id"] > 0  # -1 when any connect query went unanswered
    assert out["info"] == [0, "RM_75", 7, 3]
    ret, state = out["state"]
    assert ret == 0 and state["joint"] == pytest.approx(START_DEG, abs=1e-6)
    pos, euler, _ = flange_pose(np.asarray(START_DEG))
    assert state["pose"] == pytest.approx([*np.array(pos) / 1e6, *np.array(euler) / 1e3], abs=1e-6)
    assert out["pushes_before"] > 10  # the SDK's state callback receives the push
    assert out["canfd_rets"] == [0]
    # The stream arrived, in 0.001° integers, and the emulator's joints followed it.
    assert len(log) == 50 and log[-1][1] == [11000, -30000, 2000, -90000, 3000, -60000, 4000]
    ret, degree = out["degree"]
    assert ret == 0 and degree == pytest.approx([11.0, *START_DEG[1:]], abs=1e-3)
    err, pushed = out["pushed_last"]
    assert err == 0 and pushed == pytest.approx([11.0, *START_DEG[1:]], abs=1e-3)
    assert out["pushes"] > 100  # ~5 ms push over ~1 s
    # The SDK's limit and blocking move go through too (30 °/s = 5 RPM on the wire).
    assert out["set_speed"] == 0 and speed_j2 == pytest.approx(30.0)
    assert out["movej"] == 0
    assert out["final"][1] == pytest.approx([0, -20, 0, -90, 0, -60, 0], abs=1e-3)
    np.testing.assert_allclose(joints, [0, -20, 0, -90, 0, -60, 0], atol=1e-9)
