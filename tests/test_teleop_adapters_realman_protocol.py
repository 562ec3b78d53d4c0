"""The RealMan wire codec: framing, units, messages and parsers, against captured bytes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjscope.exceptions import ConfigError
from mjscope.teleop.realman.config import RealManCfg, parse_address
from mjscope.teleop.realman.limits import joint_limit_commands, tool_limit_commands
from mjscope.teleop.realman.messages import (
    JointReport,
    movej_canfd,
    parse_arm_state,
    parse_push,
    set_realtime_push,
)
from mjscope.teleop.realman.protocol import (
    LineFramer,
    decode,
    deg_s_to_wire_speed,
    encode,
    rad_to_wire,
    wire_to_rad,
)

# rm_movej_canfd([1, 2, 3, 4, 5, 6, 7.5], False) as the vendor SDK 1.1.6 sent it (facts §5).
SDK_CANFD = (
    b'{"command":"movej_canfd","joint":[1000,2000,3000,4000,5000,6000,7500],'
    b'"follow":false,"expand":0,"trajectory_mode":0,"radio":0}\r\n'
)
# The 7-DoF push example of the JSON docs (udpConfig), with the SDK's required "err".
DOC_PUSH = (
    b'{"arm_current_status":"idle","arm_err":0,"err":[0],"joint_status":{"joint_current":'
    b'[43000,2085000,1020000,1000,257000,-57000,1000],"joint_en_flag":[1,1,1,1,1,1,1],'
    b'"joint_err_code":[0,0,0,0,0,0,0],"joint_position":[13434,-69764,2926,-4742,-45721,'
    b'-223,-223],"joint_temperature":[33000,35000,37000,36000,37000,39000,37000],'
    b'"joint_voltage":[22000,22000,22000,22000,22000,22000,22000]},'
    b'"state":"realtime_arm_joint_state","sys_err":0,"waypoint":{"euler":[2935,2935,2935],'
    b'"position":[578568,127709,345856],"quat":[-23405,824245,106348,555663]}}\r\n'
)


def test_canfd_bytes_equal_the_vendor_sdks() -> None:
    joints = rad_to_wire(np.radians([1, 2, 3, 4, 5, 6, 7.5]))
    assert encode(movej_canfd(joints, follow=False)) == SDK_CANFD


def test_units_round_trip_at_the_wire_resolution() -> None:
    q = np.random.default_rng(0).uniform(-3.1, 3.1, 7)
    back = wire_to_rad(rad_to_wire(q))
    assert np.max(np.abs(back - q)) <= math.radians(0.0005) + 1e-15
    assert rad_to_wire([math.pi / 2, -math.pi]) == [90000, -180000]


def test_joint_limit_units_match_the_vendor_sdk() -> None:
    # The SDK sent 30 °/s as [2, 5000] and 100 °/s² as [2, 16666] (facts §2).
    assert deg_s_to_wire_speed(30.0) == 5000
    assert deg_s_to_wire_speed(100.0) == 16666
    cmds = joint_limit_commands(7, math.radians(30.0), [math.radians(100.0)] * 7)
    assert len(cmds) == 14
    assert cmds[1].msg == {"command": "set_joint_max_speed", "joint_max_speed": [2, 5000]}
    assert cmds[8].msg == {"command": "set_joint_max_acc", "joint_max_acc": [2, 16666]}
    assert {c.field for c in cmds} == {"joint_max_speed", "joint_max_acc"}


def test_limit_rules_are_checked_before_anything_is_sent() -> None:
    with pytest.raises(ConfigError, match=r"≥ 1.5"):
        joint_limit_commands(7, 1.0, 1.2)
    with pytest.raises(ConfigError, match="3 values for 7 joints"):
        joint_limit_commands(7, [1.0, 1.0, 1.0], None)
    with pytest.raises(ConfigError, match="positive"):
        joint_limit_commands(7, -1.0, None)
    with pytest.raises(ConfigError, match=r"line_acc_m_s2 = 0.5 must be ≥ 3"):
        tool_limit_commands({"line_speed_m_s": 0.25, "line_acc_m_s2": 0.5})
    (cmd,) = tool_limit_commands({"angular_speed_rad_s": 0.6, "line_acc_m_s2": None})
    assert cmd.msg == {"command": "set_arm_max_angular_speed", "arm_angular_speed": 600}


def test_realtime_push_request_has_the_documented_fields() -> None:
    msg = set_realtime_push("127.0.0.1", 8089, 1)
    assert msg == {
        "command": "set_realtime_push",
        "cycle": 1,
        "enable": True,
        "port": 8089,
        "ip": "127.0.0.1",
        "force_coordinate": 0,
        "custom": {"joint_speed": True, "arm_current_status": True},
    }


def test_framer_splits_on_crlf_only_across_reads() -> None:
    pretty = json.dumps({"command": "get_joint_degree"}, indent="\t").encode()
    assert b"\n" in pretty
    f = LineFramer(4096)
    stream = pretty + b"\r\n" + b'{"a":1}\r\n{"b":2}\r\n'
    got = (
        f.feed(stream[:5]) + f.feed(stream[5 : len(pretty) + 1]) + f.feed(stream[len(pretty) + 1 :])
    )
    assert got == [pretty, b'{"a":1}', b'{"b":2}']
    assert [decode(x)[0] for x in got] == [{"command": "get_joint_degree"}, {"a": 1}, {"b": 2}]


def test_framer_drops_an_oversized_line_and_recovers() -> None:
    f = LineFramer(100)
    assert f.feed(b"x" * 150) == []
    assert f.feed(b"y" * 150) == []
    assert f.feed(b"tail\r\n{}\r\n") == [b"{}"]
    assert f.oversized == 1
    assert f.feed(b"z" * 120 + b"\r\nok\r\n") == [b"ok"] and f.oversized == 2


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.binary(min_size=0, max_size=40).filter(lambda b: b"\r" not in b), max_size=8),
    st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=10),
)
def test_framer_gives_the_same_lines_however_the_stream_is_cut(lines, cuts) -> None:
    stream = b"".join(line + b"\r\n" for line in lines)
    f, got, i, k = LineFramer(64), [], 0, 0
    while i < len(stream):
        step = cuts[k % len(cuts)]
        got += f.feed(stream[i : i + step])
        i, k = i + step, k + 1
    assert got == lines


def test_decode_names_the_reason() -> None:
    assert decode(b"\xff\xfe") == (None, "not_utf8")
    assert decode(b'{"a":') == (None, "not_json")
    assert decode(b"[1,2]") == (None, "not_object")
    assert decode(b"[" * 100_000 + b"]" * 100_000) == (None, "too_deep")
    assert decode(b'{"state":"x"}') == ({"state": "x"}, "")


def test_the_documented_push_datagram_parses() -> None:
    report = parse_push(DOC_PUSH, 7)
    assert report == JointReport([13434, -69764, 2926, -4742, -45721, -223, -223], 0, "idle")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (DOC_PUSH.replace(b"realtime_arm_joint_state", b"other"), "wrong_state"),
        (DOC_PUSH.replace(b"-223,-223]", b'-223,"x"]'), "bad_field"),
        (DOC_PUSH.replace(b"-223,-223]", b"-223]"), "bad_field"),  # 6 joints for 7
        (DOC_PUSH.replace(b"-223,-223]", b"-223,1.5]"), "bad_field"),  # floats: not the wire
        (DOC_PUSH.replace(b'"arm_err":0', b'"arm_err":"x"'), "bad_field"),
        (DOC_PUSH.replace(b"-223,-223]", b"-223," + b"9" * 400 + b"]"), "bad_field"),  # > 32 bit
        (DOC_PUSH.replace(b'"err":[0]', b'"err":[true]'), "bad_field"),
        (DOC_PUSH[:-20], "not_json"),
        (b"x" * 2000, "oversized"),
    ],
)
def test_bad_push_datagrams_are_refused_by_reason(data: bytes, reason: str) -> None:
    assert parse_push(data, 7) == reason


def test_errors_in_a_push_and_in_the_arm_state() -> None:
    data = DOC_PUSH.replace(b'"err":[0]', b'"err":[0,4098]')
    assert parse_push(data, 7) == JointReport(
        [13434, -69764, 2926, -4742, -45721, -223, -223], 4098, "idle"
    )
    state = {
        "state": "current_arm_state",
        "arm_state": {"joint": [1] * 7, "pose": [0] * 6, "err": [0]},
    }
    assert parse_arm_state(state, 7) == JointReport([1] * 7, 0, "")
    third_gen = {
        "state": "current_arm_state",
        "arm_state": {"joint": [1] * 7, "arm_err": 0, "sys_err": 4097},
    }
    assert parse_arm_state(third_gen, 7) == JointReport([1] * 7, 0x1001, "")
    assert (
        parse_arm_state({"state": "current_arm_state", "arm_state": {"joint": [1] * 6}}, 7) is None
    )


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2500))
def test_arbitrary_datagrams_never_raise(data: bytes) -> None:
    out = parse_push(data, 7)
    assert isinstance(out, (str, JointReport))


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
        max_leaves=30,
    )
)
def test_arbitrary_json_in_a_push_never_raises(value) -> None:
    body = {
        "state": "realtime_arm_joint_state",
        "joint_status": {"joint_position": value},
        "err": value,
    }
    out = parse_push(json.dumps(body).encode(), 7)
    assert isinstance(out, (str, JointReport))


def test_address_and_cfg_errors_say_the_fix() -> None:
    assert parse_address("127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert parse_address("arm.local:1") == ("arm.local", 1)
    for bad in ("127.0.0.1", "127.0.0.1:0", ":8080", "h:99999", "h:x"):
        with pytest.raises(ConfigError, match="HOST:PORT"):
            parse_address(bad)
    with pytest.raises(ConfigError, match="feedback_timeout_s"):
        RealManCfg(feedback_timeout_s=0.0)
    with pytest.raises(ConfigError, match="valid"):
        RealManCfg(feedback="udp")
    with pytest.raises(ConfigError, match="IPv4"):
        RealManCfg(push_ip="localhost")
    assert RealManCfg().move_to_initial_pose_on_connect is False
