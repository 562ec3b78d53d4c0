"""The real path end to end: teleop's chain → RealManAdapter → the arm-controller emulator.

The seed's rule for a real arm: after an X/A reset the arm moves to its initial pose through the
controller, feedback is re-synced, and the grip must be released before teleop moves it again.
"""

from __future__ import annotations

import time

import numpy as np

from mjscope.rig import load_rig_cfg
from mjscope.teleop.build import build_arm, make_adapter
from mjscope.teleop.emulator import RmEmulator, RmEmulatorCfg
from mjscope.teleop.scripted import hold_pose
from mjscope.teleop.urdf import read_urdf
from tests.utils import assert_close

RIG = load_rig_cfg()
CTRL = np.array([0.3, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0])  # a controller pose, world frame
DT = 1 / 90


def held(dx: float = 0.0, grip: float = 1.0, primary: bool = False):
    return hold_pose(CTRL + np.array([dx, 0, 0, 0, 0, 0, 0]), grip=grip, primary=primary)


def run_for(arm, seconds: float, ctrl_at) -> list[str]:
    """Real-time cycles (the adapter stamps feedback on the monotonic clock)."""
    states, t0 = [], time.monotonic()
    while (now := time.monotonic()) - t0 < seconds:
        states.append(arm.step(now, ctrl_at(now - t0)).state)
        time.sleep(max(0.0, DT - (time.monotonic() - now)))
    return states


def test_real_reset_needs_a_grip_release_against_the_emulator() -> None:
    side = RIG.sides["left"]
    cfg = RmEmulatorCfg(port=0, initial_joints_deg=tuple(side.initial_joint_pose_deg))
    with RmEmulator(cfg) as emu:
        adapter = make_adapter("real", "left", side, address=emu.address)
        arm = build_arm(read_urdf(), "left", side, adapter, None)
        try:
            arm.start(time.monotonic())
            assert_close(emu.joints_deg(), side.initial_joint_pose_deg, 1e-3, what="no move")
            states = run_for(arm, 0.6, lambda t: held(dx=0.05 * min(t / 0.3, 1.0)))
            assert "engaged" in states
            moved = emu.joints_deg().copy()
            assert np.abs(moved - np.asarray(side.initial_joint_pose_deg)).max() > 0.5
            arm.step(time.monotonic(), held(dx=0.05, primary=True))  # X: reset via the arm
            home = emu.joints_deg().copy()
            assert_close(home, side.initial_joint_pose_deg, 0.6, what="reset reached home")
            states = run_for(arm, 0.5, lambda t: held(dx=0.05 + t))  # grip still held, moving
            assert set(states) == {"needs_release"}, set(states)
            assert_close(emu.joints_deg(), home, 0.05, what="no motion until grip released")
            run_for(arm, 0.1, lambda t: held(grip=0.0))  # released ...
            states = run_for(arm, 0.6, lambda t: held(dx=-0.04 * min(t / 0.3, 1.0)))  # pressed
            assert "engaged" in states
            assert np.abs(emu.joints_deg() - home).max() > 0.5  # teleop moves the arm again
        finally:
            arm.close()
