"""Fuzzing the mirror with hostile frames: it never crashes and only moves on a valid frame."""

from __future__ import annotations

import math

import mujoco
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjscope.bridge.messages import JointState, Stamp
from mjscope.mirror.config import load_rig_cfg
from mjscope.mirror.mirror import Mirror
from mjscope.models import JointIndex, load

MODEL = load("dual_rm75")
RIG = load_rig_cfg()
LEFT = list(RIG.sides["left"].joint_names)
RIGHT = list(RIG.sides["right"].joint_names)
INDEX = JointIndex(MODEL)

names = st.one_of(
    st.sampled_from([*LEFT, *RIGHT, "joint1", "", "left_joint8"]),
    st.text(max_size=20),  # unicode, control characters, empty
    st.integers(),
    st.none(),
)
numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-4, max_value=4),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.booleans(),
    st.text(max_size=5),
    st.none(),
)


@st.composite
def frames(draw: st.DrawFn) -> JointState:
    kind = draw(st.sampled_from(["random", "near_valid", "huge", "valid"]))
    if kind == "huge":
        n = draw(st.integers(min_value=257, max_value=5000))
        return JointState(name=[f"j{i}" for i in range(n)], position=[0.0] * n)
    if kind == "random":
        return JointState(
            stamp=draw(st.builds(Stamp, st.integers(-(2**40), 2**40), st.integers(0, 10**9))),
            frame_id=draw(st.text(max_size=10)),
            name=draw(st.lists(names, max_size=16)),
            position=draw(st.lists(numbers, max_size=16)),
            velocity=draw(st.lists(numbers, max_size=16)),
            effort=draw(st.lists(numbers, max_size=16)),
        )
    order = draw(st.permutations(LEFT))
    pos = draw(st.lists(st.floats(-3, 3), min_size=7, max_size=7))
    msg = JointState(name=list(order), position=pos)
    if kind == "near_valid":  # one corruption of a valid frame
        i = draw(st.integers(0, 6))
        choice = draw(st.sampled_from(["value", "name", "drop", "extra", "velocity"]))
        if choice == "value":
            msg.position[i] = draw(numbers)
        elif choice == "name":
            msg.name[i] = draw(names)
        elif choice == "drop":
            del msg.name[i]
        elif choice == "extra":
            msg.name.append(draw(names))
            msg.position.append(draw(numbers))
        else:
            msg.velocity = draw(st.lists(numbers, max_size=9))
    return msg


def _finite_float(v: float) -> bool:
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _fully_valid(msg: JointState) -> bool:
    def finite(vals: list, n: int, allow_empty: bool) -> bool:
        if not vals:
            return allow_empty
        ok = all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals)
        return len(vals) == n and ok and all(_finite_float(v) for v in vals)

    return (
        sorted(n for n in msg.name if isinstance(n, str)) == sorted(LEFT)
        and len(msg.name) == 7
        and finite(msg.position, 7, False)
        and finite(msg.velocity, 7, True)
        and finite(msg.effort, 7, True)
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(frames(), min_size=1, max_size=6))
def test_random_frames_never_crash_and_move_only_when_valid(batch: list[JointState]) -> None:
    data = mujoco.MjData(MODEL)
    mirror = Mirror(MODEL, data, RIG)
    mirror.apply("right", JointState(name=RIGHT, position=[0.1] * 7))
    adr = INDEX.scalar_qpos_addresses(LEFT)
    for msg in batch:
        before = data.qpos.copy()
        ok = mirror.apply("left", msg)
        assert ok == _fully_valid(msg), msg
        if ok:
            want = dict(zip(msg.name, msg.position, strict=True))
            assert np.array_equal(data.qpos[adr], [float(want[n]) for n in LEFT])
            assert np.array_equal(np.delete(data.qpos, adr), np.delete(before, adr))
        else:
            assert np.array_equal(data.qpos, before)
    st_left = mirror.sides["left"].stats
    assert st_left.received == len(batch) == st_left.valid + st_left.rejects.total


@st.composite
def stamps(draw: st.DrawFn) -> object:
    big = st.integers(-(10**400), 10**400)
    return draw(
        st.one_of(
            st.builds(Stamp, st.integers(0, 2**31), st.integers(0, 10**9 - 1)),
            st.builds(Stamp, big, big),
            st.builds(Stamp, st.floats(), st.integers(0, 10)),
            st.none(),
        )
    )


@st.composite
def plain_valid(draw: st.DrawFn) -> JointState:
    """What real publishers send: all joints, plain floats, maybe velocity and effort."""
    order = draw(st.permutations(LEFT))
    finite = st.floats(-10, 10)
    vel = draw(st.one_of(st.just([]), st.lists(finite, min_size=7, max_size=7)))
    return JointState(
        stamp=Stamp(draw(st.integers(0, 2**31)), draw(st.integers(0, 10**9 - 1))),
        name=list(order),
        position=draw(st.lists(finite, min_size=7, max_size=7)),
        velocity=vel,
        effort=list(vel),
    )


def _full_checks(msg: object, require_all: bool) -> object:
    from unittest.mock import patch

    import mjscope.bridge.validation as V

    with patch.object(V, "_fast_accept", lambda *a: None):
        try:
            return V.validate_joint_state(msg, LEFT, require_all=require_all)
        except V.InvalidFrame as e:
            return e.reason


def _same(a: object, b: object) -> bool:
    def eq(x: object, y: object) -> bool:
        return (x is None and y is None) or (
            isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and np.array_equal(x, y)
        )

    return (
        a.names == b.names  # type: ignore[attr-defined]
        and a.stamp == b.stamp  # type: ignore[attr-defined]
        and all(eq(getattr(a, f), getattr(b, f)) for f in ("position", "velocity", "effort"))
    )


@settings(max_examples=300, deadline=None)
@given(st.one_of(frames(), plain_valid()), stamps(), st.booleans())
def test_fast_path_returns_exactly_what_the_full_checks_return(
    msg: JointState, stamp: object, require_all: bool
) -> None:
    import mjscope.bridge.validation as V

    if msg.name and stamp is not None:
        msg.stamp = stamp  # type: ignore[assignment]
    fast = V._fast_accept(msg, LEFT, require_all, 256)
    full = _full_checks(msg, require_all)
    if fast is not None:
        assert not isinstance(full, str), f"fast path accepted a frame rejected as {full}"
        assert _same(fast, full)


@settings(max_examples=100, deadline=None)
@given(plain_valid())
def test_fast_path_takes_every_plain_valid_frame(msg: JointState) -> None:
    import mjscope.bridge.validation as V

    fast = V._fast_accept(msg, LEFT, True, 256)
    assert fast is not None and _same(fast, _full_checks(msg, True))
