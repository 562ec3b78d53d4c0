"""SE3ToppTrajectory: geodesic, time-optimal bang-cruise-bang profile, body twists, validation."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from scipy.spatial.transform import Rotation

from mjscope.control.planners import SE3ToppTrajectory
from mjscope.control.planners.se3_topp import se3_log
from mjscope.exceptions import ConfigError
from tests.utils import assert_close

BOUNDS = {"v_max": 0.5, "a_max": 1.0, "w_max": 1.0, "alpha_max": 2.0}


def pose(rotvec, pos) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = Rotation.from_rotvec(rotvec).as_matrix()
    T[:3, 3] = pos
    return T


def random_pose(rng: np.random.Generator, max_angle: float = np.deg2rad(170)) -> np.ndarray:
    axis = rng.normal(size=3)
    angle = rng.uniform(0.0, max_angle)
    return pose(angle * axis / np.linalg.norm(axis), rng.uniform(-0.5, 0.5, 3))


START = pose([0.1, -0.2, 0.3], [0.4, 0.0, 0.3])
CASES = {
    # screw motion, trapezoidal (long linear path)
    "screw_trapezoid": (START, START @ pose([0.0, 0.4, 0.2], [0.6, -0.3, 0.2]), BOUNDS),
    # short motion, triangular
    "screw_triangle": (START, START @ pose([0.05, 0.0, 0.02], [0.02, 0.01, 0.0]), BOUNDS),
    "pure_rotation_170deg": (
        START,
        START @ pose(np.deg2rad(170) * np.array([0, 0.6, 0.8]), [0] * 3),
        BOUNDS,
    ),
    "pure_translation": (START, START @ pose([0, 0, 0], [0.3, -0.2, 0.5]), BOUNDS),
    "angular_limited": (START, START @ pose([2.5, 0.5, -0.3], [0.05, 0.0, 0.0]), BOUNDS),
}


def make(name: str, **kw) -> SE3ToppTrajectory:
    T0, T1, b = CASES[name]
    return SE3ToppTrajectory(T0, T1, **b, **kw)


def switches(tr: SE3ToppTrajectory) -> np.ndarray:
    """Instants where s̈ jumps [s]; (4,)."""
    return tr.t_start + np.array([0.0, tr.t_acc, tr.t_acc + tr.t_cruise, tr.t_motion])


def fd_twist(tr: SE3ToppTrajectory, t: float, h: float = 1e-5) -> np.ndarray:
    """Central difference of the body twist: V^ ≈ T⁻¹ (T(t+h) − T(t−h)) / 2h."""
    T = tr.get_motion_state(t)[0]
    Tp, Tm = tr.get_motion_state(t + h)[0], tr.get_motion_state(t - h)[0]
    Vhat = np.linalg.inv(T) @ (Tp - Tm) / (2 * h)
    return np.concatenate([Vhat[:3, 3], [Vhat[2, 1], Vhat[0, 2], Vhat[1, 0]]])


@pytest.mark.parametrize("name", list(CASES))
def test_boundary_conditions(name: str) -> None:
    tr = make(name, t0=0.3, hold_before=0.2, hold_after=0.5)
    T0, T1, _ = CASES[name]
    for t, T_exp in [(0.0, T0), (tr.t_start, T0), (tr.t_end, T1), (tr.duration + 1.0, T1)]:
        T, V, Vdot = tr.get_motion_state(t)
        assert_close(T, T_exp, atol=1e-12, what=f"pose at t={t}")
        assert_close(V, np.zeros(6), atol=0.0, what=f"V at t={t}")
        assert_close(Vdot, np.zeros(6), atol=0.0, what=f"Vdot at t={t}")
    # the geodesic itself arrives at the goal (not only the s >= 1 branch)
    T_near = tr.get_motion_state(tr.t_end - 1e-9)[0]
    assert_close(T_near, T1, atol=1e-8, what="pose just before arrival")
    assert tr.duration == pytest.approx(tr.t_end + 0.5)
    assert tr.t_start == pytest.approx(0.5)


@pytest.mark.parametrize("name", list(CASES))
def test_bounds_hold_and_one_is_active(name: str) -> None:
    tr = make(name)
    ts = np.linspace(-0.1, tr.t_end + 0.1, 2000)
    _, V, Vdot = tr.get_motion_states(ts)
    _, vel, _ = tr.get_states(ts)
    b = CASES[name][2]
    v_lin, w = np.linalg.norm(V[:, :3], axis=1), np.linalg.norm(V[:, 3:], axis=1)
    a_lin, alpha = np.linalg.norm(Vdot[:, :3], axis=1), np.linalg.norm(Vdot[:, 3:], axis=1)
    assert v_lin.max() <= b["v_max"] + 1e-9
    assert w.max() <= b["w_max"] + 1e-9
    assert a_lin.max() <= b["a_max"] + 1e-9
    assert alpha.max() <= b["alpha_max"] + 1e-9
    assert np.linalg.norm(vel, axis=1).max() <= b["v_max"] + 1e-9  # world speed, too
    # time-optimal: the acceleration bound of the binding component is reached ...
    acc_ratio = max(a_lin.max() / b["a_max"], alpha.max() / b["alpha_max"])
    assert acc_ratio == pytest.approx(1.0, abs=1e-12)
    # ... and, when cruising, the binding speed bound too
    if not tr.triangular:
        assert max(v_lin.max() / b["v_max"], w.max() / b["w_max"]) == pytest.approx(1.0, abs=1e-12)


def test_duration_golden_values() -> None:
    # pure translation of 0.5 m at v 0.5, a 1.0: trapezoid T = L/v + v/a = 1.5 s
    tr = SE3ToppTrajectory(np.eye(4), pose([0, 0, 0], [0.3, 0.4, 0.0]), **BOUNDS)
    assert not tr.triangular
    assert tr.t_motion == pytest.approx(1.5, rel=1e-12)
    # 0.1 m: triangle T = 2 sqrt(L/a) = 2 sqrt(0.1)
    tr = SE3ToppTrajectory(np.eye(4), pose([0, 0, 0], [0.1, 0.0, 0.0]), **BOUNDS)
    assert tr.triangular
    assert tr.t_motion == pytest.approx(2 * np.sqrt(0.1), rel=1e-12)
    # pure rotation of 3 rad at w 1, alpha 2: T = 3/1 + 1/2 = 3.5 s
    tr = SE3ToppTrajectory(np.eye(4), pose([0, 3.0, 0], [0, 0, 0]), **BOUNDS)
    assert tr.t_motion == pytest.approx(3.5, rel=1e-12)
    assert tr.length_lin == 0.0
    # rotation 0.2 rad + translation 0.05 m: angular triangle 2 sqrt(0.1) > linear 2 sqrt(0.05)
    tr = SE3ToppTrajectory(np.eye(4), pose([0.2, 0, 0], [0.05, 0, 0]), **BOUNDS)
    assert tr.t_motion == pytest.approx(2 * np.sqrt(0.2 / 2.0), rel=1e-12)


@pytest.mark.parametrize("name", ["screw_trapezoid", "screw_triangle"])
def test_profile_kind(name: str) -> None:
    tr = make(name)
    assert tr.triangular == (name == "screw_triangle")
    assert (tr.t_cruise > 0) == (name == "screw_trapezoid")


@pytest.mark.parametrize("name", list(CASES))
def test_continuity_of_pose_and_velocity(name: str) -> None:
    tr = make(name, hold_before=0.1)
    eps = 1e-9
    for ts in switches(tr):
        (Tm, Vm, _), (Tp, Vp, _) = tr.get_motion_state(ts - eps), tr.get_motion_state(ts + eps)
        assert_close(Tp, Tm, atol=1e-8, what=f"pose across t={ts}")
        assert_close(Vp, Vm, atol=1e-8, what=f"twist across t={ts}")
    # dense sampling: steps bounded by the rate bounds
    ts = np.linspace(0.0, tr.duration, 20001)
    T, V, _ = tr.get_motion_states(ts)
    dt = ts[1] - ts[0]
    assert (
        np.linalg.norm(np.diff(T[:, :3, 3], axis=0), axis=1).max() <= BOUNDS["v_max"] * dt * 1.0001
    )
    assert (
        np.linalg.norm(np.diff(V[:, 3:], axis=0), axis=1).max() <= BOUNDS["alpha_max"] * dt * 1.0001
    )


@pytest.mark.parametrize("name", list(CASES))
def test_twist_against_finite_differences(name: str) -> None:
    tr = make(name)
    ts = np.linspace(tr.t_start, tr.t_end, 41)[1:-1]
    ts = ts[np.min(np.abs(ts[:, None] - switches(tr)), axis=1) > 1e-3]
    V_scale = max(np.linalg.norm(tr.get_motion_states(ts)[1], axis=1).max(), 1e-3)
    A_scale = np.linalg.norm(tr.sddot_max * tr.xi)
    h = 1e-5
    for t in ts:
        _, V, Vdot = tr.get_motion_state(t)
        assert_close(fd_twist(tr, t), V, atol=1e-6 * V_scale, rtol=1e-6, what=f"V at t={t}")
        Vdot_fd = (tr.get_motion_state(t + h)[1] - tr.get_motion_state(t - h)[1]) / (2 * h)
        assert_close(Vdot_fd, Vdot, atol=1e-6 * A_scale, rtol=1e-6, what=f"Vdot at t={t}")


@pytest.mark.parametrize("name", list(CASES))
def test_get_state_consistent_with_motion_state(name: str) -> None:
    tr = make(name)
    ts = np.linspace(-0.1, tr.t_end + 0.1, 57)
    h = 1e-6
    for t in ts:
        T, V, _ = tr.get_motion_state(t)
        pos, vel, _ = tr.get_state(t)
        assert_close(pos, T[:3, 3], atol=0.0, what="position")
        assert_close(vel, T[:3, :3] @ V[:3], atol=1e-15, what="world velocity")
        if np.min(np.abs(t - switches(tr))) < 1e-4:
            continue  # the acceleration jumps there; the FD of the position is O(h) off
        vel_fd = (tr.get_state(t + h)[0] - tr.get_state(t - h)[0]) / (2 * h)
        assert_close(vel_fd, vel, atol=1e-7, what="world velocity vs FD of position")
    # batch rows equal single calls
    pos_b, vel_b, acc_b = tr.get_states(ts)
    for i, t in enumerate(ts):
        for a, b in zip((pos_b[i], vel_b[i], acc_b[i]), tr.get_state(t), strict=True):
            assert_close(a, b, atol=1e-15, what=f"batch row {i}")


def test_world_acceleration_includes_screw_term() -> None:
    tr = make("screw_trapezoid")
    t, h = tr.t_start + 0.5 * tr.t_acc, 1e-5
    acc_fd = (tr.get_state(t + h)[1] - tr.get_state(t - h)[1]) / (2 * h)
    assert_close(acc_fd, tr.get_state(t)[2], atol=1e-7, what="world acceleration")


def test_pure_rotation_keeps_position_and_pure_translation_keeps_orientation() -> None:
    tr = make("pure_rotation_170deg")
    T, V, _ = tr.get_motion_states(np.linspace(0, tr.t_end, 200))
    assert_close(T[:, :3, 3], np.broadcast_to(START[:3, 3], (200, 3)), atol=1e-12, what="pos")
    assert_close(V[:, :3], np.zeros((200, 3)), atol=1e-15, what="linear twist")
    assert tr.length_ang == pytest.approx(np.deg2rad(170), rel=1e-12)
    tr = make("pure_translation")
    T, V, _ = tr.get_motion_states(np.linspace(0, tr.t_end, 200))
    assert_close(T[:, :3, :3], np.broadcast_to(START[:3, :3], (200, 3, 3)), atol=1e-15, what="R")
    assert_close(V[:, 3:], np.zeros((200, 3)), atol=1e-15, what="angular twist")
    # straight line in the world frame
    d = T[:, :3, 3] - START[:3, 3]
    u = (CASES["pure_translation"][1][:3, 3] - START[:3, 3]) / np.linalg.norm(d[-1])
    assert_close(np.cross(d, u), np.zeros((200, 3)), atol=1e-12, what="off-line distance")


def test_geodesic_against_pinocchio() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        T0, T1 = random_pose(rng), random_pose(rng)
        tr = SE3ToppTrajectory(T0, T1, **BOUNDS)
        xi_pin = pin.log6(pin.SE3(np.linalg.inv(T0) @ T1)).vector
        assert_close(tr.xi, xi_pin, atol=1e-10, what="log6")
        s, _, _ = tr.profile(np.linspace(tr.t_start, tr.t_end, 7))
        T = tr.get_motion_states(np.linspace(tr.t_start, tr.t_end, 7))[0]
        for si, Ti in zip(s, T, strict=True):
            T_pin = T0 @ pin.exp6(pin.Motion(si * xi_pin)).homogeneous
            assert_close(Ti, T_pin, atol=1e-10, what=f"T(s={si})")


def test_log_small_angles_and_near_pi() -> None:
    for angle in [0.0, 1e-9, 1e-5, 5e-3, 1.5e-2, 3.0, np.pi - 1e-6]:
        T = pose(angle * np.array([0.0, 0.6, 0.8]), [0.1, -0.2, 0.3])
        xi_pin = pin.log6(pin.SE3(T)).vector
        assert_close(se3_log(T), xi_pin, atol=1e-9, what=f"log at angle {angle}")


def test_zero_length_motion_is_a_hold() -> None:
    tr = SE3ToppTrajectory(START, START.copy(), **BOUNDS, hold_after=1.0)
    assert tr.is_hold and tr.t_motion == 0.0 and tr.duration == 1.0
    for t in [-1.0, 0.0, 0.5, 2.0]:
        T, V, Vdot = tr.get_motion_state(t)
        assert_close(T, START, atol=0.0, what="hold pose")
        assert not V.any() and not Vdot.any()


def test_pose_as_position_and_rotation() -> None:
    T1 = CASES["screw_trapezoid"][1]
    a = SE3ToppTrajectory((START[:3, 3], START[:3, :3]), (T1[:3, 3], T1[:3, :3]), **BOUNDS)
    b = make("screw_trapezoid")
    assert a.t_motion == b.t_motion
    assert_close(a.xi, b.xi, atol=0.0, what="xi")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"v_max": 0.0}, "v_max"),
        ({"a_max": -1.0}, "a_max"),
        ({"w_max": float("nan")}, "w_max"),
        ({"alpha_max": float("inf")}, "alpha_max"),
        ({"v_max": "fast"}, "v_max"),
        ({"hold_before": -0.1}, "hold_before"),
        ({"hold_after": float("nan")}, "hold_after"),
        ({"t0": float("inf")}, "t0"),
    ],
)
def test_invalid_bounds(kwargs: dict, match: str) -> None:
    args = {**BOUNDS, **kwargs}
    with pytest.raises(ConfigError, match=match):
        SE3ToppTrajectory(START, np.eye(4), **args)


@pytest.mark.parametrize(
    ("goal", "match"),
    [
        (np.diag([1.0, 1.0, -1.0, 1.0]), "goal: rotation must be proper"),  # reflection
        (np.diag([1.0, 2.0, 1.0, 1.0]), "goal: rotation must be proper"),  # scaled
        (np.full((4, 4), np.nan), "goal: entries must be finite"),
        (np.eye(3), r"goal: expected a \(4, 4\)"),
        (([0.0, 0.0], np.eye(3)), r"goal: expected \(pos"),
        (np.vstack([np.eye(4)[:3], [[0, 0, 1, 1]]]), "goal: last row"),
    ],
)
def test_invalid_poses(goal, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        SE3ToppTrajectory(START, goal, **BOUNDS)
