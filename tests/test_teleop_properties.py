"""Limits as properties over seeded random XR streams (hypothesis, derandomized).

Every cycle of every stream: the command is finite, within the joint position limits, and its
speed and acceleration (from consecutive commands) within ``joint_max_speed``/``joint_max_acc``;
every engaged target lies in the workspace and moves within the Cartesian speed limits. A reset
is not a command (the mock jumps), so the limits restart from rest there.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mjscope.rig import load_rig_cfg
from mjscope.teleop.adapters.mock import MockRealManAdapter
from mjscope.teleop.build import build_arm
from mjscope.teleop.node import TeleopArm
from mjscope.teleop.poses import canonical, quat_angle
from mjscope.teleop.scripted import hold_pose
from mjscope.teleop.urdf import read_urdf
from mjscope.teleop.xr.base import ControllerState

RIG = load_rig_cfg()
ROOT = read_urdf()
CYCLES = 240


def random_stream(seed: int, n: int) -> list[ControllerState | None]:
    """A wild operator: jumps, fast turns, grip flicks, X/A presses, dropped frames."""
    rng = np.random.default_rng(seed)
    p = np.array([0.3, 0.2, 1.0])
    q = np.array([1.0, 0.0, 0.0, 0.0])
    grip, out = 1.0, []
    for _ in range(n):
        p = p + rng.normal(0.0, 0.02, 3) + (rng.random() < 0.03) * rng.normal(0, 0.4, 3)
        q = canonical(q + np.r_[0.0, rng.normal(0.0, 0.08, 3)])
        if rng.random() < 0.04:
            grip = 1.0 - grip
        if rng.random() < 0.1:
            out.append(None)  # no frame this cycle
            continue
        out.append(hold_pose(np.r_[p, q], grip=grip, primary=bool(rng.random() < 0.02)))
    return out


def _arm(side: str) -> TeleopArm:
    cfg = replace(RIG.sides[side], max_linear_speed=0.5, joint_max_speed=(2.0,) * 7)
    adapter = MockRealManAdapter(side, cfg.joint_names, cfg.initial_pose_rad())
    arm = build_arm(ROOT, side, cfg, adapter, None)
    arm.start(0.0)
    return arm


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["left", "right"]))
def test_commands_and_targets_stay_within_every_limit(seed: int, side: str) -> None:
    arm = _arm(side)
    dt, vmax, amax = arm.dt, arm.joints.vmax, arm.joints.amax
    q_prev, v_prev, target_prev = arm.joints.q.copy(), np.zeros(7), None
    for k, ctrl in enumerate(random_stream(seed, CYCLES)):
        c = arm.step(k * dt, ctrl)
        assert np.all(np.isfinite(c.q))
        assert np.all((c.q >= arm.joints.lower) & (c.q <= arm.joints.upper))
        if c.state == "reset":
            q_prev, v_prev, target_prev = c.q.copy(), np.zeros(7), None
            continue
        v = (c.q - q_prev) / dt
        a = (v - v_prev) / dt
        assert np.all(np.abs(v) <= vmax * (1 + 1e-9)), (k, v)
        assert np.all(np.abs(a) <= amax * (1 + 1e-6) + 1e-6), (k, a)
        if c.target is not None:
            assert c.target.is_finite() and arm.workspace.contains(c.target.p)
            if target_prev is not None:
                assert np.linalg.norm(c.target.p - target_prev.p) <= 0.5 * dt + 1e-12
                assert quat_angle(c.target.q, target_prev.q) <= 1.5 * dt + 1e-9
        target_prev = c.target
        q_prev, v_prev = c.q.copy(), v
    assert arm.stats.cycles == CYCLES


def test_the_random_streams_exercise_the_limits() -> None:
    # Guards the property above against streams too tame to test anything.
    arm = _arm("left")
    for k, ctrl in enumerate(random_stream(7, CYCLES)):
        arm.step(k * arm.dt, ctrl)
    clamps = arm.stats.clamps
    assert clamps["workspace"] > 0 and clamps["linear_speed"] > 0 and clamps["joint_acc"] > 0
    assert clamps["orientation_speed"] > 0 and arm.stats.engaged_cycles > 50


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.floats(0.2, 2.0), st.floats(0.05, 0.5))
def test_a_stopped_stream_times_out_within_its_configured_time(
    stop_at: float, timeout: float
) -> None:
    cfg = replace(RIG.sides["left"], xr_timeout_s=timeout)
    arm = build_arm(
        ROOT, "left", cfg, MockRealManAdapter("left", cfg.joint_names, cfg.initial_pose_rad()), None
    )
    arm.start(0.0)
    dt = arm.dt
    first = None
    for k in range(int((stop_at + timeout + 0.5) / dt)):
        t = k * dt
        ctrl = hold_pose([0.3, 0.2, 1.0 + 0.1 * t, 1, 0, 0, 0]) if t < stop_at else None
        if arm.step(t, ctrl).state == "xr_timeout" and first is None:
            first = t
    last_frame = max(k * dt for k in range(int(stop_at / dt) + 1) if k * dt < stop_at)
    assert first is not None
    assert last_frame + timeout - 1e-9 <= first <= last_frame + timeout + dt + 1e-9
