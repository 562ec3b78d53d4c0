"""Motion-reference adapter with SE(3) planners, and the rocking-orientation planner."""

from __future__ import annotations

import numpy as np
import pytest

from mjscope.control.lie import se3_inverse, se3_log, so3_exp
from mjscope.control.planners import (
    CircleTrajectory,
    QuinticTrajectory,
    ReferenceAdapter,
    RockingOrientation,
    SE3ToppTrajectory,
    is_se3_planner,
)
from mjscope.exceptions import ConfigError
from tests.utils import assert_close


def _topp() -> SE3ToppTrajectory:
    R1 = so3_exp([0.3, -0.5, 0.8])
    return SE3ToppTrajectory((np.zeros(3), np.eye(3)), ([0.2, 0.1, -0.1], R1),
                             0.3, 1.0, 1.0, 4.0, hold_before=0.1, hold_after=0.2)  # fmt: skip


def _rocking() -> RockingOrientation:
    circle = CircleTrajectory([0.5, 0.0, 0.3], 0.05, 2.0, 0.5, 0.1)
    return RockingOrientation(circle, so3_exp([0.1, 2.9, 0.2]), [1.0, 1.0, 0.0],
                              np.radians(15.0), 1.7, 0.5, t0=0.1)  # fmt: skip


PLANNERS = {"se3_topp": _topp, "rocking": _rocking}


@pytest.mark.parametrize("name", PLANNERS)
def test_se3_planner_passes_through_untouched(name: str) -> None:
    planner = PLANNERS[name]()
    assert is_se3_planner(planner)
    assert not is_se3_planner(QuinticTrajectory(np.zeros(3), np.ones(3), 1.0))
    adapter = ReferenceAdapter(planner, R_d=np.diag([1.0, -1.0, -1.0]))  # R_d is ignored
    ts = np.arange(0.0, 2.5, 0.037)
    T, V, Vdot = planner.get_motion_states(ts)
    batch = adapter.batch(ts)
    for k, t in enumerate(ts):
        single = adapter(float(t))
        Ts, Vs, Vds = planner.get_motion_state(float(t))
        for ref in (single, batch[k]):
            np.testing.assert_array_equal(ref.T_d, T[k])
            np.testing.assert_array_equal(ref.V_d, V[k])
            np.testing.assert_array_equal(ref.Vdot_d, Vdot[k])
            np.testing.assert_array_equal(ref.rot, T[k, :3, :3])
            assert ref.segment == planner.segment(float(t))
        assert_close(single.T_d, Ts, atol=1e-15)
        assert_close(single.V_d, Vs, atol=1e-15)
        assert_close(single.Vdot_d, Vds, atol=1e-15)
        # The world linear parts agree with the planner's own position state.
        pos, vel, acc = planner.get_state(float(t))
        assert_close(single.pos, pos, atol=1e-12)
        assert_close(single.vel, vel, atol=1e-12)
        assert_close(single.acc, acc, atol=1e-9)
        assert_close(batch[k].acc, single.acc, atol=1e-12)


def test_position_planner_needs_a_fixed_orientation() -> None:
    with pytest.raises(ValueError, match="R_d"):
        ReferenceAdapter(QuinticTrajectory(np.zeros(3), np.ones(3), 1.0))


@pytest.mark.parametrize("name", PLANNERS)
def test_twist_and_its_derivative_against_finite_differences_of_the_pose(name: str) -> None:
    planner = PLANNERS[name]()
    h = 1e-5
    ts = np.linspace(0.13, 2.3, 41)
    ts = ts[np.min(np.abs(ts[:, None] - _switch_times(planner)[None]), axis=1) > 3 * h]
    _, V, Vdot = planner.get_motion_states(ts)
    Tm, Vm, _ = planner.get_motion_states(ts - h)
    Tp, Vp, _ = planner.get_motion_states(ts + h)
    V_fd = se3_log(se3_inverse(Tm) @ Tp) / (2 * h)  # body twist, O(h²)
    assert_close(V, V_fd, atol=1e-6, what="V_d vs FD of T_d")
    assert_close(Vdot, (Vp - Vm) / (2 * h), atol=1e-6, what="V̇_d vs FD of V_d")


def _switch_times(planner: object) -> np.ndarray:
    """Where the SE(3)-TOPP acceleration jumps (no derivative there); none for rocking."""
    if isinstance(planner, SE3ToppTrajectory):
        a, c = planner.t_start + planner.t_acc, planner.t_start + planner.t_acc + planner.t_cruise
        return np.array([planner.t_start, a, c, planner.t_end])
    return np.array([-1.0])


def test_rocking_starts_at_rest_and_stays_within_its_amplitude() -> None:
    planner = _rocking()
    T, V, Vdot = planner.get_motion_states([0.0, 0.05, 0.1])
    assert_close(T[:, :3, :3], np.broadcast_to(planner.R0, (3, 3, 3)), atol=1e-15)
    assert_close(V[:, 3:], np.zeros((3, 3)), atol=1e-15)
    assert_close(Vdot[:, 3:], np.zeros((3, 3)), atol=1e-12)
    ts = np.arange(0.0, 6.0, 0.001)
    th, dth, _ = planner.angles(ts)
    assert np.max(np.abs(th)) <= planner.amplitude + 1e-12
    assert np.max(np.abs(th)) > 0.99 * planner.amplitude  # reached after the ramp
    T, V, _ = planner.get_motion_states(ts)
    # The rotation stays about the body axis: R0ᵀ R = exp(θ â), angular twist θ̇ â.
    rel = np.einsum("ji,njk->nik", planner.R0, T[:, :3, :3])
    assert_close(rel, so3_exp(th[:, None] * planner.axis), atol=1e-14)
    assert_close(V[:, 3:], dth[:, None] * planner.axis, atol=1e-15)
    # The position is the circle's, untouched.
    assert_close(T[:, :3, 3], planner.position.get_states(ts)[0], atol=0.0)


def test_rocking_bad_arguments() -> None:
    circle = CircleTrajectory(np.zeros(3), 0.05, 2.0, 0.5)
    with pytest.raises(ConfigError, match="axis"):
        RockingOrientation(circle, np.eye(3), [0.0, 0.0, 0.0], 0.1, 1.0, 0.5)
    with pytest.raises(ConfigError, match="period"):
        RockingOrientation(circle, np.eye(3), [1.0, 0.0, 0.0], 0.1, 0.0, 0.5)
