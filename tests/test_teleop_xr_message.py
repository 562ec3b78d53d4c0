"""The PC-service message parser: golden values, every reject reason, fuzzing."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjscope.teleop.xr import (
    REASONS,
    ControllerState,
    XrFrame,
    XrMessageError,
    encode_pc_message,
    parse_pc_message,
    xr_pose_to_world,
)
from tests.utils import assert_close

LEFT_XR = "0.1,0.2,0.3,0.0,0.0,0.0,1.0"
RIGHT_XR = [-0.1, 0.2, 0.3, 0.0, 0.7071068, 0.0, 0.7071068]


def inner(**over):
    msg = {
        "Controller": {
            "left": {
                "pose": LEFT_XR,
                "trigger": 0.25,
                "grip": 0.9,
                "axisX": 0.5,
                "axisY": -0.5,
                "axisClick": True,
                "primaryButton": True,
                "secondaryButton": False,
                "menuButton": False,
            },
            "right": {"pose": RIGHT_XR, "grip": 0.1, "secondaryButton": True, "menuButton": 1},
        },
        "Head": {"pose": "0,1.6,0,0,0,0,1"},
        "timeStampNs": 123456789,
        "Input": 0,
    }
    msg.update(over)
    return msg


def wrapped(obj) -> bytes:
    return json.dumps({"value": json.dumps(obj)}).encode()


def reason_of(data, now_ns=0) -> str:
    with pytest.raises(XrMessageError) as e:
        parse_pc_message(data, now_ns)
    return e.value.reason


def test_golden_wrapped_message():
    f = parse_pc_message(wrapped(inner()))
    assert f.stamp_ns == 123456789
    assert f.left is not None and f.right is not None and f.head is not None
    assert_close(f.left.pose, [-0.3, -0.1, 0.2, 1.0, 0.0, 0.0, 0.0], atol=1e-15, what="left")
    assert (f.left.grip, f.left.trigger, f.left.axis) == (0.9, 0.25, (0.5, -0.5))
    assert f.left.primary and f.left.axis_click and not f.left.secondary and not f.left.menu
    assert f.right.secondary and f.right.menu and not f.right.primary
    assert (f.right.grip, f.right.trigger, f.right.axis) == (0.1, 0.0, (0.0, 0.0))
    assert_close(f.right.pose, xr_pose_to_world(RIGHT_XR), atol=1e-15, what="right")
    assert_close(f.head, [0.0, 0.0, 1.6, 1.0, 0.0, 0.0, 0.0], atol=1e-15, what="head")


def test_inner_object_alone_and_value_as_object_parse_the_same():
    a = parse_pc_message(wrapped(inner()))
    b = parse_pc_message(json.dumps(inner()))
    c = parse_pc_message(json.dumps({"value": inner()}))
    for other in (b, c):
        assert other.stamp_ns == a.stamp_ns
        assert_close(other.right.pose, a.right.pose, what="right pose")
        assert other.left.grip == a.left.grip


def test_missing_stamp_uses_now_and_untracked_side_is_none():
    msg = inner()
    del msg["timeStampNs"]
    msg["Controller"]["right"]["pose"] = "0,0,0,0,0,0,0"
    f = parse_pc_message(wrapped(msg), now_ns=777)
    assert f.stamp_ns == 777
    assert f.right is None and f.left is not None
    assert parse_pc_message(wrapped(inner(timeStampNs=0)), now_ns=0).stamp_ns == 1


def test_encode_then_parse_round_trips():
    f = parse_pc_message(wrapped(inner()))
    for wrap in (True, False):
        g = parse_pc_message(encode_pc_message(f, wrap=wrap))
        assert g.stamp_ns == f.stamp_ns
        for a, b in ((f.left, g.left), (f.right, g.right)):
            assert_close(b.pose, a.pose, atol=1e-15, what="pose")
            assert (b.grip, b.trigger, b.axis, b.primary, b.secondary, b.menu, b.axis_click) == (
                a.grip,
                a.trigger,
                a.axis,
                a.primary,
                a.secondary,
                a.menu,
                a.axis_click,
            )
        assert_close(g.head, f.head, atol=1e-15, what="head")
    assert json.loads(encode_pc_message(f))["value"].startswith("{")


def test_encode_leaves_out_an_absent_side():
    c = ControllerState(pose=np.array([0.1, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0]), grip=1.0)
    text = encode_pc_message(XrFrame(stamp_ns=9, right=c), wrap=False)
    assert set(json.loads(text)["Controller"]) == {"right"}
    assert parse_pc_message(text).left is None


def ctrl(**over):
    side = {"pose": LEFT_XR, "grip": 0.5}
    side.update(over)
    return {"Controller": {"left": side}, "timeStampNs": 5}


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xff\xfe\x00garbage", "not_json"),
        (b"{not json", "not_json"),
        (b"[" * 100_000, "not_json"),  # too deep for the JSON parser
        (b'{"grip": ' + b"9" * 5000 + b"}", "not_json"),  # more digits than int() takes
        (b"[1, 2]", "not_object"),
        (b'"text"', "not_object"),
        (json.dumps({"value": 5}).encode(), "bad_value"),
        (json.dumps({"value": "[1]"}).encode(), "bad_value"),
        (json.dumps({"value": "{bad"}).encode(), "not_json"),
        (json.dumps({"Head": {"pose": LEFT_XR}}).encode(), "missing_field"),
        (json.dumps({"Controller": []}).encode(), "bad_value"),
        (json.dumps({"Controller": {}}).encode(), "missing_field"),
        (json.dumps({"Controller": {"left": 3}}).encode(), "bad_value"),
        (json.dumps({"Controller": {"left": {"grip": 1}}}).encode(), "missing_field"),
        (json.dumps(ctrl(pose="1,2,3")).encode(), "bad_pose"),
        (json.dumps(ctrl(pose="a,b,c,d,e,f,g")).encode(), "bad_pose"),
        (json.dumps(ctrl(pose=[0, 0, 0, 0, 0, 0, True])).encode(), "bad_pose"),
        (json.dumps(ctrl(pose=[0, 0, 0, 0, 0, 0, 1e400])).encode(), "bad_pose"),
        (json.dumps(ctrl(pose="0,0,0,0,0,0,nan")).encode(), "bad_pose"),
        (json.dumps(ctrl(pose="0,0,0,0,0,0,3")).encode(), "bad_pose"),  # not a unit quaternion
        (json.dumps(ctrl(pose="0.1,0,0,0,0,0,0")).encode(), "bad_pose"),  # zero quaternion
        (json.dumps(ctrl(pose="50,0,0,0,0,0,1")).encode(), "bad_pose"),  # 50 m away
        (json.dumps(ctrl(pose={"x": 1})).encode(), "bad_pose"),
        (json.dumps(ctrl(grip=1.5)).encode(), "bad_value"),
        (json.dumps(ctrl(grip=-0.1)).encode(), "bad_value"),
        (json.dumps(ctrl(grip="1")).encode(), "bad_value"),
        (json.dumps(ctrl(grip=True)).encode(), "bad_value"),
        (b'{"Controller": {"left": {"pose": "0,0,0,0,0,0,1", "grip": NaN}}}', "bad_value"),
        (json.dumps(ctrl(trigger=10**400)).encode(), "bad_value"),
        (json.dumps(ctrl(axisX=2.0)).encode(), "bad_value"),
        (json.dumps(ctrl(primaryButton=2)).encode(), "bad_value"),
        (json.dumps(ctrl(menuButton="yes")).encode(), "bad_value"),
        (json.dumps({**ctrl(), "timeStampNs": -1}).encode(), "bad_value"),
        (json.dumps({**ctrl(), "timeStampNs": "5"}).encode(), "bad_value"),
        (json.dumps({**ctrl(), "timeStampNs": 2**64}).encode(), "bad_value"),
        (json.dumps({**ctrl(), "Head": {"pose": "1"}}).encode(), "bad_pose"),
        (json.dumps({**ctrl(), "Head": 1}).encode(), "missing_field"),
    ],
)
def test_each_reject_reason(data, reason):
    assert reason in REASONS
    assert reason_of(data) == reason


def test_grip_just_outside_range_is_clipped_within_slack():
    f = parse_pc_message(json.dumps(ctrl(grip=1.0 + 1e-9)))
    assert f.left.grip == 1.0


def _parse_or_reason(data: bytes) -> XrFrame | str:
    try:
        return parse_pc_message(data, now_ns=1)
    except XrMessageError as e:
        assert e.reason in REASONS, e.reason
        return e.reason


def _check_frame(f: XrFrame) -> None:
    assert f.stamp_ns >= 1
    for side in (f.left, f.right):
        if side is not None:
            assert side.pose.shape == (7,) and np.all(np.isfinite(side.pose))
            assert abs(np.linalg.norm(side.pose[3:]) - 1.0) < 1e-9 and side.pose[3] >= 0.0
            assert 0.0 <= side.grip <= 1.0 and 0.0 <= side.trigger <= 1.0
            assert all(-1.0 <= a <= 1.0 for a in side.axis)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2048))
def test_fuzz_any_bytes_give_a_frame_or_a_counted_reason(data):
    out = _parse_or_reason(data)
    if isinstance(out, XrFrame):
        _check_frame(out)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=8) | st.dictionaries(st.text(max_size=8), children)
    ),
    max_leaves=20,
)
side_values = st.fixed_dictionaries(
    {},
    optional={
        "pose": st.one_of(
            st.lists(st.floats(-2, 2), min_size=7, max_size=7).map(lambda v: ",".join(map(str, v))),
            st.lists(st.floats(allow_nan=True) | st.integers() | st.booleans(), max_size=8),
            json_values,
        ),
        "grip": json_values | st.floats(0, 1),
        "trigger": json_values | st.floats(0, 1),
        "axisX": json_values | st.floats(-1, 1),
        "primaryButton": json_values | st.booleans(),
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    left=side_values | json_values,
    right=side_values,
    head=json_values,
    stamp=json_values | st.integers(0, 2**63),
    wrap=st.booleans(),
)
def test_fuzz_structured_messages(left, right, head, stamp, wrap):
    msg = {"Controller": {"left": left, "right": right}, "Head": head, "timeStampNs": stamp}
    text = json.dumps(msg)
    data = (json.dumps({"value": text}) if wrap else text).encode()
    out = _parse_or_reason(data)
    if isinstance(out, XrFrame):
        _check_frame(out)
