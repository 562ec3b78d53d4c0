import math

import mujoco
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjscope.bridge.messages import JointState
from mjscope.bridge.transport import make_transport
from mjscope.exceptions import MjscopeError, UnknownNameError
from mjscope.hand.bridge import (
    TOPIC_CMD,
    TOPIC_CMD_LEGACY,
    TOPIC_NOMINAL,
    TOPIC_SDK_STATE,
    TOPIC_STATE,
    HandBridge,
    HandBridgeCfg,
)
from mjscope.hand.mapping import clamp_to_limits, sdk_range_to_full_urdf_positions
from mjscope.hand.model import build_hand_model
from mjscope.hand.profile import load_profile
from mjscope.models.robots.g20_left_constants import FINGERS
from tests.utils import assert_close

P = load_profile()
HAND = build_hand_model("g20_left", P)


def _bridge(transport=None, **cfg) -> HandBridge:
    return HandBridge(HAND, HandBridgeCfg(**cfg), transport)


def test_starts_open_within_limit_margin():
    b = _bridge()
    open_full = sdk_range_to_full_urdf_positions(P.open_command, P)
    assert b.goal["index_mcp_pitch"] == pytest.approx(0.05)  # 0 clamped to lower + 0.05
    assert b.goal["thumb_cmc_yaw"] == pytest.approx(open_full["thumb_cmc_yaw"])
    assert b.goal["index_mcp_roll"] == pytest.approx(0.12)  # 0.1336 clamped to 0.17 - 0.05
    assert b.goal["middle_mcp_roll"] == pytest.approx(open_full["middle_mcp_roll"])
    assert b.tracking_error() == (0.0, 0.0)


def test_partial_nominal_merges_with_previous_goal():
    b = _bridge(slew_rad_s=0.0)
    b.set_nominal_targets({"index_pip": 1.0, "thumb_mcp": 0.5})
    first = dict(b.goal)
    b.set_nominal_targets({"middle_pip": 0.7})
    assert b.goal["index_pip"] == 1.0 and b.goal["thumb_mcp"] == 0.5  # kept
    assert b.goal["middle_pip"] == 0.7 and b.goal["middle_dip"] == pytest.approx(0.89 * 0.7)
    assert b.goal["thumb_ip"] == pytest.approx(0.51)
    assert {k: v for k, v in b.goal.items() if not k.startswith("middle")} == {
        k: v for k, v in first.items() if not k.startswith("middle")
    }
    assert b.track_nominal == {j: b.goal[j] for j in P.active_joints}
    b.set_nominal_targets({"index_pip": 1.0, "index_dip": 0.2})  # explicit mimic kept
    assert b.goal["index_dip"] == 0.2


def test_api_rejects_unknown_joint_and_non_finite_target():
    b = _bridge()
    goal = dict(b.goal)
    with pytest.raises(UnknownNameError, match="index_tip"):
        b.set_nominal_targets({"index_tip": 0.1})
    with pytest.raises(MjscopeError, match="not finite"):
        b.set_nominal_targets({"index_pip": math.nan})
    assert b.goal == goal


def test_slew_reaches_goal_in_expected_steps():
    b = _bridge(slew_rad_s=5.0, self_collision=False)  # 5 rad/s * 0.01 s = 0.05 rad/step
    b.set_nominal_targets({"index_pip": 1.0})
    expected = math.ceil((1.0 - 0.05) / 0.05 - 1e-9)  # from the open 0.05 rad: 19 steps
    for k in range(1, expected + 1):
        b.step()
        q = b.positions()
        assert q["index_dip"] == pytest.approx(0.89 * q["index_pip"], abs=1e-12)  # re-completed
        if k < expected:
            assert q["index_pip"] == pytest.approx(0.05 + 0.05 * k) and q["index_pip"] < 1.0
    assert b.positions()["index_pip"] == pytest.approx(1.0, abs=1e-12)
    assert b.tracking_error()[0] == pytest.approx(0.0, abs=1e-12)
    instant = _bridge(slew_rad_s=0.0, self_collision=False)
    instant.set_nominal_targets({"index_pip": 1.0})
    instant.step()
    assert instant.positions()["index_pip"] == 1.0


def _tip(b: HandBridge, body: str) -> np.ndarray:
    i = b.model.body(body).id
    return b.data.xpos[i] + b.data.xmat[i].reshape(3, 3) @ np.array([-0.002, 0.0, 0.022])


def test_directions_open_spreads_fist_closes_no_crossing():
    zero = mujoco.MjData(HAND.model)
    mujoco.mj_forward(HAND.model, zero)
    b = _bridge(slew_rad_s=0.0)
    b.step()
    tips = [_tip(b, f"{f}_distal") for f in FINGERS]
    mcp_gap = [zero.xpos[b.model.body(f"{f}_metacarpals").id][1] for f in FINGERS]
    for i in range(3):  # open: neighbouring tips further apart than their knuckles
        assert tips[i + 1][1] - tips[i][1] > (mcp_gap[i + 1] - mcp_gap[i]) + 0.004
    open_tips, open_thumb = tips, _tip(b, "thumb_distal")
    b.command_sdk(P.fist_command)
    for _ in range(3):
        b.step()
    fist = [_tip(b, f"{f}_distal") for f in FINGERS]
    palm_z = b.data.xpos[b.model.body("hand_base_link").id][2]
    for f, o, t in zip(FINGERS, open_tips, fist, strict=True):
        assert t[2] < o[2] - 0.08, f  # tip curled down toward the palm
        assert t[0] > o[0] + 0.03, f  # to the palm side (+x)
        assert t[2] - palm_z < 0.14, f
        for j in ("mcp_pitch", "pip", "dip"):
            assert b.positions()[f"{f}_{j}"] > 1.0, (f, j)
    assert np.linalg.norm(_tip(b, "thumb_distal") - fist[1]) < np.linalg.norm(
        open_thumb - open_tips[1]
    )
    for seq in (open_tips, fist):  # index < middle < ring < pinky across the hand: no crossing
        ys = [t[1] for t in seq]
        assert all(ys[i] + 0.012 < ys[i + 1] for i in range(3)), ys
    assert b.projector.depths(b.data.qpos.copy())[1] <= 1e-3


def test_legacy_command_by_name_and_index_over_transport():
    with make_transport("inproc") as bus:
        b = _bridge(bus, slew_rad_s=0.0)
        pub = bus.publisher(TOPIC_CMD, JointState)
        pub.publish(JointState(name=["index_mcp_pitch"], position=[0.0]))
        b.step()
        assert b.goal["index_mcp_pitch"] == pytest.approx(1.35)  # 1.4 clamped by the margin
        assert b.goal["middle_mcp_pitch"] == pytest.approx(0.05)  # unnamed slots: 255
        assert b.goal["index_mcp_roll"] == pytest.approx(0.12)  # slot 6 at 255 → 0.26 → clamp
        pub.publish(JointState(position=[128.0] * 20))
        b.step()
        expect = sdk_range_to_full_urdf_positions([128.0] * 20, P)
        assert b.goal["thumb_mcp"] == pytest.approx(expect["thumb_mcp"])
        assert b.rejects.total == 0


def test_legacy_sdk_topic_and_nominal_topic():
    with make_transport("inproc") as bus:
        b = _bridge(bus, legacy_sdk=True)
        assert b.command_topic == TOPIC_CMD_LEGACY
        bus.publisher(TOPIC_CMD_LEGACY, JointState).publish(JointState(position=[0.0] * 20))
        b.step()
        assert b.goal["pinky_mcp_pitch"] == pytest.approx(1.35)
        n = _bridge(bus, plan_nominal=True)
        bus.publisher(TOPIC_NOMINAL, JointState).publish(
            JointState(name=["ring_pip", "thumb_ip"], position=[0.9, 0.4])
        )
        n.step()
        assert n.goal["ring_pip"] == 0.9 and n.goal["thumb_ip"] == 0.4


BAD_LEGACY = [
    (JointState(position=[100.0] * 19), "wrong_count"),
    (JointState(position=[100.0] * 21), "wrong_count"),
    (JointState(name=["index_pip", "ring_pip"], position=[1.0]), "length_mismatch"),
    (JointState(position=[100.0] * 19 + [math.nan]), "non_finite"),
    (JointState(name=["index_tip"], position=[10.0]), "unknown"),
    (JointState(name=["index_dip"], position=[10.0]), "unknown"),  # mimic: no slot
    (JointState(position=[100.0] * 19 + [300.0]), "out_of_range"),
    (JointState(name=["ring_pip"], position=[-1.0]), "out_of_range"),
    (JointState(name=["ring_pip"], position=["x"]), "non_numeric"),
    ("not a message", "bad_type"),
]
BAD_NOMINAL = [
    (JointState(name=["index_pip"], position=[math.inf]), "non_finite"),
    (JointState(name=["index_pipx"], position=[0.1]), "unknown"),
    (JointState(name=["index_pip"], position=[30.0]), "out_of_range"),  # degrees sent as rad
    (JointState(name=["index_pip"], position=[-5.0]), "out_of_range"),  # beyond [0, 1.57] rad
    (JointState(name=["index_pip", "ring_pip"], position=[0.5, 1.9]), "out_of_range"),  # whole
    (JointState(name=["index_pip", "index_pip"], position=[0.1, 0.2]), "duplicate"),
    (JointState(name=["index_pip"], position=[]), "empty_position"),
]


@pytest.mark.parametrize(("nominal", "cases"), [(False, BAD_LEGACY), (True, BAD_NOMINAL)])
def test_bad_frames_rejected_whole_counted_state_intact(nominal, cases):
    with make_transport("inproc") as bus:
        b = _bridge(bus, plan_nominal=nominal, slew_rad_s=0.0)
        b.step()
        goal, qpos = dict(b.goal), b.data.qpos.copy()
        topic = TOPIC_NOMINAL if nominal else TOPIC_CMD
        pub = bus.publisher(topic, JointState)
        for msg, _ in cases:
            pub.publish(msg)
            b.step()
        assert b.goal == goal and np.array_equal(b.data.qpos, qpos)
        expected: dict[str, int] = {}
        for _, reason in cases:
            expected[reason] = expected.get(reason, 0) + 1
        assert b.rejects.as_dict() == dict(sorted(expected.items()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.lists(st.sampled_from([*P.active_joints, "bogus", ""]), max_size=25),
    values=st.lists(
        st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-999, 999)),
        max_size=25,
    ),
)
def test_fuzzed_frames_never_raise_and_are_applied_whole_or_not(names, values):
    b = _bridge(slew_rad_s=0.0)
    before = dict(b.goal)
    ok = b.handle_legacy(JointState(name=names, position=values))
    if not ok:
        assert b.goal == before and b.rejects.total == 1
    else:
        assert all(math.isfinite(v) for v in b.goal.values())


def test_state_published_at_50hz_and_sdk_state_round_trips():
    with make_transport("inproc") as bus:
        states = bus.subscriber(TOPIC_STATE, JointState)
        sdk = bus.subscriber(TOPIC_SDK_STATE, JointState)
        b = _bridge(bus, slew_rad_s=0.0, publish_sdk_state=True)
        b.command_sdk([128.0] * 20)
        for _ in range(100):  # 1 s at 100 Hz control
            b.step()
        got = states.take()
        assert len(got) == 50
        last = got[-1]
        assert last.name == list(HAND.qadr) and len(last.velocity) == 21
        assert_close(last.position, list(b.positions().values()), atol=0.0)
        raw = np.array(sdk.take()[-1].position)
        expect = np.full(20, 128.0)
        expect[11:15] = 0.0
        assert_close(raw, expect, atol=1.0, what="SDK state [count]")


def test_recover_if_invalid_resets_to_open():
    b = _bridge(slew_rad_s=0.0)
    open_goal = dict(b.goal)
    b.command_sdk(P.fist_command)
    b.step()
    b.data.qpos[3] = math.nan
    assert b.recover_if_invalid()
    assert b.recoveries == 1 and b.goal == open_goal
    assert np.isfinite(b.data.qpos).all()
    assert b.positions()["index_pip"] == pytest.approx(open_goal["index_pip"])
    assert not b.recover_if_invalid()


def test_goal_from_sdk_equals_the_mapping_chain_bit_for_bit():
    rng = np.random.default_rng(7)
    b = _bridge(slew_rad_s=0.0)
    cmds = [*rng.uniform(-20.0, 280.0, (20, 20)), np.zeros(20), np.full(20, 255.0)]
    for raw in cmds:  # out-of-range values are clamped to 0..255 like the mapping does
        b.command_sdk(raw)
        full = sdk_range_to_full_urdf_positions(raw, P)
        assert b.goal == clamp_to_limits(full, HAND.limits, P.limit_margin)
        assert b.track_nominal == {j: b.goal[j] for j in P.active_joints}
    goal = dict(b.goal)
    with pytest.raises(MjscopeError, match="not finite"):
        b.command_sdk([100.0] * 19 + [math.nan])
    assert b.goal == goal


def test_slew_keeps_an_explicit_mimic_offset_and_lands_on_the_goal_exactly():
    b = _bridge(slew_rad_s=5.0, self_collision=False)
    b.set_nominal_targets({"index_pip": 1.0, "index_dip": 0.95})  # 0.06 above the ratio
    offset = 0.95 - 0.89 * 1.0
    for _ in range(10):
        b.step()
        q = b.positions()
        assert q["index_dip"] == pytest.approx(0.89 * q["index_pip"] + offset, abs=1e-12)
    for _ in range(15):
        b.step()
    assert b.positions() == b.goal == b.applied  # exactly, mimic included


def test_pd_drive_writes_the_slewed_targets_to_the_actuators():
    hand = build_hand_model("g20_left", P, pd=True)
    b = HandBridge(hand, HandBridgeCfg(pd_drive=True, slew_rad_s=5.0))
    b.set_nominal_targets({"index_pip": 1.0, "thumb_mcp": 0.5})
    b.step()
    applied = b.applied
    assert applied["index_pip"] == pytest.approx(0.05 + 0.05)  # one slew step from 0.05
    for j, a in hand.actuator.items():
        assert b.data.ctrl[a] == applied[j], j
    assert len(hand.actuator) == len(P.active_joints)
