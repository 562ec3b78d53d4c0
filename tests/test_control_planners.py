"""Planners: boundary conditions, continuity, finite-difference velocity/acceleration."""

from __future__ import annotations

import numpy as np
import pytest

from mjscope.control.lie import so3_exp, so3_log
from mjscope.control.planners import (
    CircleTrajectory,
    Figure8Trajectory,
    QuinticTrajectory,
    ReferenceAdapter,
    Trajectory,
    TwoSegmentTrajectory,
    aligned_rotation,
    get_motion_reference,
)
from tests.utils import assert_close

P0 = np.array([0.5, 0.1, 0.3])
P1 = np.array([0.6, -0.05, 0.1])
PRE = np.array([0.6, 0.0, 0.2])


def _planners() -> dict[str, Trajectory]:
    return {
        "quintic": QuinticTrajectory(P0, P1, 1.5, t0=0.2),
        "two_segment": TwoSegmentTrajectory(P0, PRE, P1, 1.0, 0.8, t0=0.1),
        "circle": CircleTrajectory(P0, 0.05, 2.0, ramp_time=0.5, t0=0.1),
        "figure8": Figure8Trajectory(P0, 0.06, 3.0, ramp_time=0.5, t0=0.1,
                                     plane=((1, 0, 0), (0, 0, 1))),
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(_planners()))
def test_starts_at_rest_at_p0(name: str) -> None:
    pl = _planners()[name]
    for t in (-1.0, 0.0, 0.1):
        pos, vel, acc = pl.get_state(t)
        assert_close(pos, P0, atol=1e-15)
        assert_close(vel, np.zeros(3), atol=1e-15)
        assert_close(acc, np.zeros(3), atol=1e-15)


@pytest.mark.parametrize("name", ["quintic", "two_segment"])
def test_ends_at_rest_at_goal(name: str) -> None:
    pl = _planners()[name]
    for t in (pl.duration, pl.duration + 1.0):
        pos, vel, acc = pl.get_state(t)
        assert_close(pos, P1, atol=1e-15)
        assert_close(vel, np.zeros(3), atol=1e-15)
        assert_close(acc, np.zeros(3), atol=1e-12)


def test_two_segment_passes_pre_dock_point_at_rest() -> None:
    pl = _planners()["two_segment"]
    t_switch = 0.1 + 1.0
    pos, vel, _ = pl.get_state(t_switch)
    assert_close(pos, PRE, atol=1e-15)
    assert_close(vel, np.zeros(3), atol=1e-15)
    assert pl.segment(t_switch - 1e-6) == 0 and pl.segment(t_switch) == 1


@pytest.mark.parametrize("name", sorted(_planners()))
def test_finite_difference_velocity_and_acceleration(name: str) -> None:
    pl = _planners()[name]
    h = 1e-5
    for t in np.linspace(0.0, 3.0, 37):
        _, vel, acc = pl.get_state(t)
        p_plus, v_plus, _ = pl.get_state(t + h)
        p_minus, v_minus, _ = pl.get_state(t - h)
        assert_close((p_plus - p_minus) / (2 * h), vel, atol=1e-7, what=f"vel t={t}")
        assert_close((v_plus - v_minus) / (2 * h), acc, atol=1e-5, what=f"acc t={t}")


@pytest.mark.parametrize("name", sorted(_planners()))
def test_continuity(name: str) -> None:
    pl = _planners()[name]
    ts = np.arange(0.0, 3.0, 1e-3)
    states = np.array([np.concatenate(pl.get_state(t)) for t in ts])
    jumps = np.abs(np.diff(states, axis=0)).max(axis=0)
    assert jumps[:3].max() < 1e-3 and jumps[3:6].max() < 5e-3 and jumps[6:].max() < 0.1


def test_circle_geometry() -> None:
    pl = CircleTrajectory(P0, 0.05, 2.0, ramp_time=0.5)
    centre = P0 - np.array([0.05, 0.0, 0.0])
    for t in np.linspace(0.0, 4.0, 9):
        pos, _, _ = pl.get_state(t)
        assert abs(np.linalg.norm(pos - centre) - 0.05) < 1e-12
        assert pos[2] == P0[2]
    _, vel, _ = pl.get_state(3.0)
    assert abs(np.linalg.norm(vel) - 0.05 * np.pi) < 1e-12  # full speed r·ω after the ramp


def test_bad_durations() -> None:
    with pytest.raises(ValueError, match="duration must be > 0"):
        QuinticTrajectory(P0, P1, 0.0)
    with pytest.raises(ValueError, match="period and ramp_time"):
        CircleTrajectory(P0, 0.05, 0.0)


def test_motion_reference_adapter() -> None:
    pl = _planners()["two_segment"]
    R = so3_exp([0.3, -0.2, 1.0])
    ref = get_motion_reference(pl, R, 0.7)
    pos, vel, acc = pl.get_state(0.7)
    assert_close(ref.T_d[:3, :3], R)
    assert_close(ref.T_d[:3, 3], pos)
    assert_close(ref.V_d, np.concatenate([R.T @ vel, np.zeros(3)]))
    assert_close(ref.Vdot_d, np.concatenate([R.T @ acc, np.zeros(3)]))
    fast = ReferenceAdapter(pl, R)(0.7)
    for a, b in zip(fast, ref, strict=True):
        assert_close(a, b)


@pytest.mark.parametrize("name", sorted(_planners()))
def test_vectorised_states_equal_single_instants(name: str) -> None:
    pl = _planners()[name]
    ts = np.arange(-100, 3100) * 1e-3  # before the start, both segments, the holds
    states = pl.get_states(ts)
    for i, part in enumerate(("pos", "vel", "acc")):
        single = np.array([pl.get_state(float(t))[i] for t in ts])
        assert states[i].shape == (len(ts), 3)
        assert_close(states[i], single, atol=1e-15, what=part)
    assert pl.segments(ts).tolist() == [pl.segment(float(t)) for t in ts]


def test_vectorised_states_fall_back_to_a_loop_for_user_trajectories() -> None:
    class Ramp(Trajectory):
        def get_state(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            return np.full(3, t), np.ones(3), np.zeros(3)

    pos, vel, acc = Ramp().get_states([0.0, 0.5])
    assert_close(pos, [[0.0] * 3, [0.5] * 3])
    assert_close(vel, np.ones((2, 3)))
    assert acc.shape == (2, 3) and Ramp().segments([0.0, 1.0]).tolist() == [0, 0]


@pytest.mark.parametrize("name", sorted(_planners()))
def test_reference_batch_equals_single_instants(name: str) -> None:
    adapter = ReferenceAdapter(_planners()[name], so3_exp([0.3, -0.2, 1.0]))
    ts = np.arange(0, 2500, 50) * 1e-3
    batch = adapter.batch(ts)
    assert len(batch) == len(ts)
    for t, ref in zip(ts, batch, strict=True):
        single = adapter(float(t))
        for field, a, b in zip(single._fields, ref, single, strict=True):
            assert_close(a, b, atol=1e-15, what=field)
        assert type(ref.segment) is int


def test_aligned_rotation_picks_the_nearest_of_four_yaws() -> None:
    R_dock = so3_exp([0.0, 0.0, 0.3])
    R0 = so3_exp([np.pi, 0.0, 0.0]) @ so3_exp([0.02, -0.01, 0.0])  # tool roughly pointing down
    for k, yaw in enumerate((0.0, np.pi / 2, np.pi, -np.pi / 2)):
        start = so3_exp([0.0, 0.0, 0.3 + yaw + 0.2]) @ R0  # 0.2 rad off the k-th fit
        R = aligned_rotation(R_dock, start)
        assert_close(R[:, 2], -R_dock[:, 2], atol=1e-12)
        assert_close(R.T @ R, np.eye(3), atol=1e-12)
        assert abs(np.linalg.det(R) - 1.0) < 1e-12
        assert np.linalg.norm(so3_log(R @ start.T)) < 0.21, k
