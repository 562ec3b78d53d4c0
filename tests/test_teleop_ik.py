"""The Placo QP IK of one arm: chain extraction, FK, convergence, limits, rejected steps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mjscope.exceptions import ConfigError, UnknownNameError
from mjscope.teleop.config import IkCfg
from mjscope.teleop.ik import ArmIk
from mjscope.teleop.poses import Pose, quat_angle
from mjscope.teleop.urdf import arm_chain, end_link, joint_names, read_urdf
from tests.utils import assert_close, asset

LEFT = tuple(f"left_joint{i}" for i in range(1, 8))
Q0 = np.deg2rad([0.0, -30.0, 0.0, -90.0, 0.0, -60.0, 0.0])
DT = 1 / 90
VMAX = np.full(7, 1.5)


def _ik(cfg: IkCfg | None = None) -> ArmIk:
    root = read_urdf()
    return ArmIk(arm_chain(root, LEFT), LEFT, end_link(root, LEFT[-1]), DT, VMAX, Q0, cfg)


def test_the_arm_chain_holds_only_that_arm() -> None:
    root = read_urdf()
    assert len(joint_names(root)) == 14
    ik = _ik()
    assert ik.ee_frame == "left_Link7"
    assert sorted(ik.robot.joint_names()) == sorted(LEFT)
    assert_close(ik.q, Q0, 1e-12)


def test_ee_pose_is_the_link7_frame_at_the_initial_pose() -> None:
    ik = _ik()
    ee = ik.ee_pose()
    assert_close(ee.p, [0.338202503, 0.0, 0.620134665], 1e-8, what="MuJoCo's left_flange")


def test_error_strictly_decreases_and_converges_within_budget() -> None:
    ik = _ik()
    start = ik.ee_pose()
    target = Pose(start.p + np.array([0.05, -0.08, 0.06]), start.q)
    errors = []
    for _ in range(300):
        r = ik.solve(target)
        assert r.ok, r.reason
        errors.append(r.position_error)
    e = np.array(errors)
    first = int(np.argmax(e < 2e-3))
    assert np.all(np.diff(e[: first + 1]) < 0), "error must shrink every step until converged"
    assert first < 150 and e[-1] < 1e-3


def test_each_step_respects_the_velocity_limits() -> None:
    ik = _ik()
    start = ik.ee_pose()
    target = Pose(start.p + np.array([0.3, -0.3, 0.3]), start.q)
    q_prev = ik.q
    for _ in range(50):
        r = ik.solve(target)
        assert np.all(np.abs(r.q - q_prev) <= VMAX * DT * (1 + 1e-6))
        assert np.all((r.q >= ik.lower - 1e-9) & (r.q <= ik.upper + 1e-9))
        q_prev = r.q


def test_an_infeasible_qp_is_rejected_and_the_model_does_not_move() -> None:
    ik = _ik()
    q = Q0.copy()
    q[1] = ik.upper[1] + 0.5  # beyond its limit by more than one step can return
    ik.set_q(q)
    r = ik.solve(ik.ee_pose())
    assert not r.ok and r.reason == "qp_failure"
    assert_close(ik.q, q, 0.0)


def test_a_non_finite_target_is_rejected() -> None:
    ik = _ik()
    r = ik.solve(Pose(np.array([np.nan, 0.0, 1.0]), np.array([1.0, 0, 0, 0])))
    assert not r.ok and r.reason in ("qp_failure", "non_finite")
    assert_close(ik.q, Q0, 0.0)


def test_a_step_that_raises_the_error_is_not_converged() -> None:
    ik = _ik(IkCfg(posture_weight=100.0))  # the posture task wins over the frame task
    ik.set_q(Q0 + 0.3)
    r = ik.solve(ik.ee_pose())  # target = where it is: any step away is a worse frame error
    assert not r.ok and r.reason == "not_converged"
    assert_close(ik.q, Q0 + 0.3, 0.0)


def test_a_rejected_step_leaves_the_model_exactly_where_it_was_and_the_ik_goes_on() -> None:
    ik = _ik(IkCfg(posture_weight=100.0))
    ik.set_q(Q0 + 0.3)
    fk0 = ik.ee_pose()
    assert ik.solve(fk0).reason == "not_converged"  # Placo's solve moved the model first
    assert_close(ik.ee_pose().p, fk0.p, 0.0, what="FK after the reject [m]")
    fresh = _ik(IkCfg(posture_weight=100.0))
    fresh.set_q(Q0 + 0.3)
    target = Pose(fk0.p + np.array([0.02, 0.0, 0.0]), fk0.q)
    assert_close(ik.solve(target).q, fresh.solve(target).q, 0.0, what="the next step")


def test_the_joints_read_from_the_ik_are_a_copy_not_placos_memory() -> None:
    ik = _ik()
    q = ik.q
    q += 0.5  # a caller's array: Placo's solve reuses and swaps its own storage
    assert_close(ik.q, Q0, 0.0)
    r = ik.solve(ik.ee_pose())
    r.q[:] = 9.0
    assert np.all(np.abs(ik.q) < 4.0)


def test_orientation_targets_are_tracked() -> None:
    ik = _ik()
    start = ik.ee_pose()
    w = np.array([np.cos(0.15), 0.0, 0.0, np.sin(0.15)])  # 0.3 rad about world z
    from mjscope.teleop.poses import quat_mul

    target = Pose(start.p, quat_mul(w, start.q))
    for _ in range(200):
        r = ik.solve(target)
    assert r.ok and quat_angle(ik.ee_pose().q, target.q) < 2e-3


def test_a_user_urdf_with_package_meshes_loads_without_them() -> None:
    root = read_urdf(asset("rm75", "urdf", "rm_75.urdf"))
    joints = tuple(f"joint{i}" for i in range(1, 8))
    ik = ArmIk(arm_chain(root, joints), joints, end_link(root, "joint7"), DT, VMAX, np.zeros(7))
    assert_close(ik.ee_pose().p, [0.0, 0.0, 0.8505], 1e-4, what="flange at q = 0 (facts §1c)")


def test_missing_joints_and_frames_are_one_line_errors(tmp_path: Path) -> None:
    root = read_urdf()
    with pytest.raises(UnknownNameError, match="map-prefix"):
        arm_chain(root, ("joint1",))
    with pytest.raises(UnknownNameError, match="end-effector frame 'nope'"):
        ArmIk(arm_chain(root, LEFT), LEFT, "nope", DT, VMAX, Q0)
    bad = tmp_path / "x.urdf"
    bad.write_text("<robot><link")
    with pytest.raises(ConfigError, match="not valid XML"):
        read_urdf(bad)
    with pytest.raises(ConfigError, match="not found"):
        read_urdf(tmp_path / "missing.urdf")
