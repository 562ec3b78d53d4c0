"""Joint limits of the sent command: position, speed, acceleration by construction; braking."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mjscope.teleop.joint_limits import JointLimiter
from tests.utils import assert_close

DT = 1 / 90
LO, HI = np.array([-1.0, -2.0, -0.5]), np.array([1.0, 2.0, 0.5])
VMAX, AMAX = np.array([1.5, 1.0, 3.0]), np.array([8.0, 4.0, 20.0])


def _limiter(q0: list[float] | None = None) -> JointLimiter:
    return JointLimiter(LO, HI, VMAX, AMAX, DT, q0 if q0 is not None else [0.0, 0.0, 0.0])


def test_a_far_target_ramps_up_at_the_acceleration_limit() -> None:
    lim = _limiter()
    v = []
    for _ in range(40):
        s = lim.step([0.9, 1.9, 0.45])
        v.append(s.v.copy())
    v = np.array(v)
    assert_close(v[0], AMAX * DT, 1e-12, what="first cycle: a·dt")
    assert_close(v[1], 2 * AMAX * DT, 1e-12, what="second cycle: 2·a·dt")
    assert np.all(np.abs(v) <= VMAX + 1e-12)
    assert abs(np.abs(v[:, 1]).max() - VMAX[1]) < 1e-12  # reaches the limit on the long joint


def test_a_near_target_is_reached_exactly() -> None:
    lim = _limiter()
    for _ in range(200):
        s = lim.step([0.01, -0.02, 0.005])
    assert_close(s.q, [0.01, -0.02, 0.005], 1e-12)
    assert lim.at_rest


def test_brake_stops_within_acceleration_and_then_holds() -> None:
    lim = _limiter()
    for _ in range(30):
        lim.step([0.9, 1.9, 0.45])
    speed0 = lim.v.copy()
    cycles = 0
    while not lim.at_rest:
        s = lim.brake()
        assert np.all(np.abs(s.acc) <= AMAX + 1e-9)
        cycles += 1
    assert cycles <= int(np.ceil(np.max(np.abs(speed0) / (AMAX * DT)))) + 1
    q = lim.q.copy()
    for _ in range(5):
        assert np.array_equal(lim.brake().q, q)


def test_position_limits_are_approached_without_overshoot() -> None:
    lim = _limiter()
    qs = [lim.step([5.0, 5.0, 5.0]).q for _ in range(400)]  # a target beyond every limit
    qs = np.array(qs)
    assert np.all(qs <= HI + 1e-12)
    assert_close(qs[-1], HI, 1e-6, what="comes to rest at the limit")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(*(st.floats(-3.0, 3.0, allow_nan=False) for _ in range(3))),
        min_size=1,
        max_size=60,
    ),
    st.lists(st.booleans(), min_size=60, max_size=60),
)
def test_every_command_is_within_every_limit(targets: list, brakes: list[bool]) -> None:
    lim = _limiter([0.2, -0.3, 0.1])
    q_prev, v_prev = lim.q.copy(), np.zeros(3)
    for target, brake in zip(targets, brakes, strict=False):
        s = lim.brake() if brake else lim.step(target)
        v = (s.q - q_prev) / DT
        a = (v - v_prev) / DT
        assert np.all(np.isfinite(s.q))
        assert np.all((s.q >= LO) & (s.q <= HI))
        assert np.all(np.abs(v) <= VMAX * (1 + 1e-9))
        assert np.all(np.abs(a) <= AMAX * (1 + 1e-6) + 1e-6)
        q_prev, v_prev = s.q, v


def test_clamps_name_the_binding_limit() -> None:
    lim = _limiter()
    assert "joint_acc" in lim.step([0.9, 0.0, 0.0]).clamps
    lim = _limiter()
    seen = {c for _ in range(100) for c in lim.step([5.0, 0.0, 0.0]).clamps}
    assert seen == {"joint_acc", "joint_speed", "joint_position"}
    lim = JointLimiter(LO, HI, VMAX, [1e6] * 3, DT, [0.0, 0.0, 0.0])
    assert lim.step([0.5, 0.0, 0.0]).clamps == ("joint_speed",)


def _reference_step(q0, v0, q_des, lo, hi, vmax, amax, dt):
    """The limiter's vector formula (module docstring), in NumPy, as it was written first."""
    v_des = (q_des - q0) * (1.0 / dt)
    d = np.maximum(np.stack([hi - q0, q0 - lo]), 0.0)
    cap = amax * (np.sqrt(0.25 * dt * dt + (2.0 / amax) * d) - 0.5 * dt)
    lo_v = np.maximum(np.maximum(v0 - amax * dt, -vmax), -cap[1])
    hi_v = np.minimum(np.minimum(v0 + amax * dt, vmax), cap[0])
    v = np.minimum(np.maximum(v_des, lo_v), hi_v)
    return np.minimum(np.maximum(q0 + v * dt, lo), hi), v


def test_the_per_joint_loop_is_the_vector_formula_bit_for_bit() -> None:
    rng = np.random.default_rng(7)
    lo, hi = -np.linspace(1.0, 3.0, 7), np.linspace(0.5, 2.5, 7)
    vmax, amax, dt = np.linspace(1.0, 3.0, 7), np.linspace(5.0, 20.0, 7), 1 / 90
    lim = JointLimiter(lo, hi, vmax, amax, dt, np.zeros(7))
    near = np.inf
    for i in range(3000):  # pushed into each limit in turn, then random: every bound binds
        phase = (i // 300) % 3
        q_des = (
            hi + 1.0
            if phase == 0
            else lo - 1.0
            if phase == 1
            else lim.q + rng.normal(scale=rng.choice([0.001, 0.05, 1.0]), size=7)
        )
        q0, v0 = lim.q.copy(), lim.v.copy()
        step = lim.step(q_des)
        q_ref, v_ref = _reference_step(q0, v0, q_des, lo, hi, vmax, amax, dt)
        assert np.array_equal(step.q, q_ref) and np.array_equal(step.v, v_ref)
        near = min(near, float(np.minimum(hi - lim.q, lim.q - lo).max()))
    assert near < 1e-6  # at some point every joint stood at a limit (the caps did bind)
