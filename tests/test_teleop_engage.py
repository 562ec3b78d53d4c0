"""Engaging and re-clutching without jumps; a refused engagement says why and how to recover."""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np

from mjscope.rig import load_rig_cfg
from mjscope.teleop.adapters.mock import MockRealManAdapter
from mjscope.teleop.build import build_arm
from mjscope.teleop.limits import Workspace
from mjscope.teleop.scripted import hold_pose
from mjscope.teleop.urdf import read_urdf

RIG = load_rig_cfg()
ROOT = read_urdf()
CTRL = np.array([0.3, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0])
DT = 1 / 90


def arm_at(q0: np.ndarray, side: str = "left"):
    s = RIG.sides[side]
    return build_arm(ROOT, side, s, MockRealManAdapter(side, s.joint_names, q0), None)


def test_engaging_at_all_zero_joints_is_refused_naming_the_bound_and_the_reset(caplog) -> None:
    arm = arm_at(np.zeros(7))  # the emulator's power-on pose without --joints-deg
    arm.start(0.0)
    with caplog.at_level(logging.WARNING, logger="mjscope.teleop.node"):
        c = arm.step(0.0, hold_pose(CTRL))
    assert c.state == "needs_release" and arm.stats.engage_refused == 1
    msg = caplog.records[-1].getMessage()
    assert "press X (left) / A (right) to reset to the initial pose" in msg and "(X for" in msg
    assert arm.refused_why and arm.refused_why in msg
    assert "workspace_" in arm.refused_why or "cyl_radius_limit" in arm.refused_why


def test_every_workspace_bound_is_named() -> None:
    ws = Workspace.from_side(RIG.sides["left"])
    s = RIG.sides["left"]
    assert ws.violation(np.array([0.5, 0.0, 1.0])) == ""
    assert "below workspace_min z = 0.35" in ws.violation(np.array([0.5, 0.0, 0.1]))
    assert "above workspace_max x = 0.9" in ws.violation(np.array([1.2, 0.0, 1.0]))
    inside = ws.violation(np.array([s.workspace_min[0] + 0.0, 0.0, 1.0]))
    assert "inside cyl_radius_limit 0.15 m" in inside
    low = ws.violation(np.array([0.2, 0.0, 0.4]))
    assert "below low_cyl_height 0.55 m, inside low_cyl_radius_limit 0.25 m" in low


def test_engaging_from_rest_starts_at_the_measured_joints_within_the_limits() -> None:
    s = RIG.sides["left"]
    arm = arm_at(s.initial_pose_rad())
    arm.start(0.0)
    arm.step(0.0, hold_pose(CTRL, grip=0.0))  # idle, at rest
    measured = arm.adapter.feedback(0.0).q.copy()
    measured[1] += 0.05  # the arm is not where the last command was (moved by hand, lag)
    measured[6] = arm.ik.upper[6] + 0.2  # ... and reads beyond a URDF limit
    arm.adapter._q = measured.copy()
    c = arm.step(DT, hold_pose(CTRL))  # grip pressed: engage
    assert c.state == "engaged"
    seed = np.clip(measured, arm.ik.lower, arm.ik.upper)
    step = np.abs(c.q - seed)  # from rest: at most a·dt² per joint, no jump to the old command
    assert step.max() <= max(s.joint_max_acc) * DT * DT * (1 + 1e-9)
    assert np.abs(c.q - (measured - [0, 0.05, 0, 0, 0, 0, 0])).max() > 0.04


def test_re_clutching_never_jumps_the_command() -> None:
    s = RIG.sides["left"]
    arm = arm_at(s.initial_pose_rad())
    arm.start(0.0)
    qs, t = [], 0.0
    script = [(CTRL + np.array([0.05 * min(k / 40, 1), 0, 0, 0, 0, 0, 0]), 1.0) for k in range(60)]
    script += [
        (CTRL + np.array([0.2, 0.1, 0, 0, 0, 0, 0]), 0.0)
    ] * 30  # released, controller moved away
    script += [
        (CTRL + np.array([0.2 - 0.05 * min(k / 40, 1), 0.1, 0, 0, 0, 0, 0]), 1.0) for k in range(60)
    ]
    for pose, grip in script:
        qs.append(arm.step(t, hold_pose(pose, grip=grip)).q)
        t += DT
    v = np.diff(np.array(qs), axis=0) / DT
    acc = np.diff(v, axis=0) / DT
    assert np.abs(v).max() <= max(s.joint_max_speed) * (1 + 1e-9)
    assert np.abs(acc).max() <= max(s.joint_max_acc) * (1 + 1e-6)
    assert arm.clutch.engagements == 2


def test_a_narrower_urdf_limit_still_seeds_inside_it() -> None:
    s = replace(RIG.sides["left"])
    arm = arm_at(s.initial_pose_rad())
    arm.start(0.0)
    arm.adapter._q = np.full(7, 10.0)  # nonsense feedback, far beyond every limit
    arm.step(0.0, hold_pose(CTRL, grip=0.0))
    assert np.all(arm.ik.q >= arm.ik.lower) and np.all(arm.ik.q <= arm.ik.upper)
