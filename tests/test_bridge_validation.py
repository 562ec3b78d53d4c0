from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.validation import (
    REJECT_REASONS,
    InvalidFrame,
    RejectCounter,
    validate_joint_state,
)

NAMES = [f"joint{i}" for i in range(1, 8)]


def _msg(**kw) -> JointState:
    base = dict(stamp=Stamp(3, 500), name=list(NAMES), position=[0.1 * i for i in range(7)])
    base.update(kw)
    return JointState(**base)


def test_valid_frame_in_any_order() -> None:
    names = list(reversed(NAMES))
    f = validate_joint_state(_msg(name=names, velocity=[0.0] * 7), NAMES)
    assert f.names == tuple(names) and f.position.shape == (7,) and f.effort is None
    assert f.stamp == pytest.approx(3.0000005)


@pytest.mark.parametrize(
    ("kw", "reason"),
    [
        ({"name": NAMES[:6], "position": [0.0] * 6}, "missing"),
        ({"name": [*NAMES, "joint8"], "position": [0.0] * 8}, "wrong_count"),
        ({"name": [*NAMES[:6], "joint1"]}, "duplicate"),
        ({"name": [*NAMES[:6], "elbow"]}, "unknown"),
        ({"position": [0.0] * 6}, "length_mismatch"),
        ({"velocity": [0.0] * 3}, "length_mismatch"),
        ({"position": [0.0] * 6 + [math.nan]}, "non_finite"),
        ({"effort": [math.inf] * 7}, "non_finite"),
        ({"position": [0.0] * 6 + ["1.0"]}, "non_numeric"),
        ({"position": [0.0] * 6 + [True]}, "non_numeric"),
        ({"position": []}, "empty_position"),
        ({"name": "joint1"}, "bad_type"),
        ({"name": [*NAMES[:6], 7]}, "bad_type"),
        ({"name": NAMES * 40, "position": [0.0] * 280}, "too_large"),
    ],
)
def test_each_reject_reason(kw: dict, reason: str) -> None:
    with pytest.raises(InvalidFrame) as e:
        validate_joint_state(_msg(**kw), NAMES)
    assert e.value.reason == reason and reason in REJECT_REASONS


def test_subset_allowed_when_not_require_all() -> None:
    f = validate_joint_state(_msg(name=["joint3"], position=[0.2]), NAMES, require_all=False)
    assert f.names == ("joint3",)
    with pytest.raises(InvalidFrame, match="missing"):
        validate_joint_state(_msg(name=["joint3"], position=[0.2]), ["joint1", "joint3"])


def test_not_a_joint_state() -> None:
    with pytest.raises(InvalidFrame, match="bad_type"):
        validate_joint_state({"name": NAMES}, NAMES)


def test_reject_counter_counts_by_reason() -> None:
    c = RejectCounter("/t", log_interval=10.0)
    for reason in ("unknown", "unknown", "non_finite"):
        c.reject(InvalidFrame(reason, "x"))
    assert c.as_dict() == {"non_finite": 1, "unknown": 2} and c.total == 3


values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-10, 10),
    st.text(max_size=3),
    st.none(),
    st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(
    names=st.lists(st.one_of(st.sampled_from(NAMES), st.text(max_size=8)), max_size=12),
    pos=st.lists(values, max_size=12),
    vel=st.lists(values, max_size=12),
)
def test_fuzz_either_valid_or_one_invalid_frame(names, pos, vel) -> None:
    msg = JointState(name=names, position=pos, velocity=vel)
    try:
        f = validate_joint_state(msg, NAMES)
    except InvalidFrame as e:
        assert e.reason in REJECT_REASONS
        return
    assert sorted(f.names) == sorted(NAMES)
    assert all(math.isfinite(x) for x in f.position)
