"""Hostile peers on a real Cyclone DDS domain (loopback only): no sample can end a command.

A raw RTPS writer (:mod:`mjscope.bridge.transport.hostile`) puts samples on the topics that no DDS
library would write: names and frame ids that are not UTF-8, truncated CDR, lengths far beyond
the payload, a 1 MB name, a sample over Cyclone's size limit. Valid frames go between them from
the same writer, so their order is exact: every valid frame must arrive and be applied, every
hostile one must be counted by reason (or dropped by Cyclone DDS before the application) and
change nothing.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable

import mujoco
import numpy as np

from mjscope.bridge.messages import JointState
from mjscope.bridge.transport.dds import DdsTransport
from mjscope.bridge.transport.hostile import RawRtpsWriter, encode_joint_state, hostile_samples
from mjscope.hand.bridge import TOPIC_CMD, HandBridge, HandBridgeCfg
from mjscope.hand.model import build_hand_model
from mjscope.hand.profile import load_profile
from mjscope.mirror.config import RenderCfg, load_rig_cfg
from mjscope.mirror.mirror import Mirror
from mjscope.models import JointIndex, load
from tests.utils import assert_close

DOMAIN = 101 + (os.getpid() + 53) % 120  # one domain per test run; never the default 0
TIMEOUT_S = 20.0  # generous: the machine is shared
SETTLE_S = 0.3  # time for a sample Cyclone drops to have been dropped [s]
LEFT = [f"left_joint{i}" for i in range(1, 8)]
RIGHT = [f"right_joint{i}" for i in range(1, 8)]
ORDER = [
    "utf8_name",
    "truncated",
    "utf8_frame_id",
    "name_count_beyond_payload",
    "huge_name",
    "string_length_beyond_payload",
    "position_count_beyond_payload",
    "unterminated_string",
    "over_dds_limit",
    "nan",
    "wrong_names",
]


def wait_for(cond: Callable[[], bool], timeout: float = TIMEOUT_S) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return False


def discover(w: RawRtpsWriter, seen: Callable[[], bool]) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline and not seen():
        w.announce()
        time.sleep(0.1)
    assert seen(), "the raw writer was never discovered"


def test_catalogue_covers_the_reasons_the_brief_names() -> None:
    samples = hostile_samples(LEFT)
    assert set(ORDER) == set(samples)
    assert len(samples["huge_name"].data) > 1_000_000
    assert {s.reason for s in samples.values()} == {
        None,
        "undecodable",
        "too_large",
        "non_finite",
        "unknown",
    }


def test_mirror_survives_every_hostile_sample_and_loses_no_valid_frame() -> None:
    model = load("dual_rm75")
    data = mujoco.MjData(model)
    idx = JointIndex(model)
    left_adr = idx.scalar_qpos_addresses(LEFT)
    samples = hostile_samples(LEFT)
    rig = load_rig_cfg()
    with (
        DdsTransport(DOMAIN, localhost_only=True) as bus,
        RawRtpsWriter(DOMAIN, "rt" + rig.sides["left"].state_topic) as wl,
        RawRtpsWriter(DOMAIN, "rt" + rig.sides["right"].state_topic) as wr,
    ):
        mirror = Mirror(model, data, rig, RenderCfg(), bus)
        left, right = mirror.sides["left"].stats, mirror.sides["right"].stats

        def upd(cond: Callable[[], bool]) -> Callable[[], bool]:
            return lambda: (mirror.update(), cond())[1]

        discover(wl, upd(lambda: left.publishers >= 1))
        discover(wr, upd(lambda: right.publishers >= 1))
        wr.write(encode_joint_state([n.encode() for n in RIGHT], [-0.5] * 7))
        counted: Counter[str] = Counter()
        valid, want = 0, np.zeros(7)
        for k, kind in enumerate(["warmup", *ORDER]):
            if kind != "warmup":
                bad = samples[kind]
                wl.write(bad.data)
                if bad.reason is None:  # Cyclone drops it: nothing may arrive
                    time.sleep(SETTLE_S)
                    mirror.update()
                else:
                    counted[bad.reason] += 1
                    assert wait_for(upd(lambda: left.rejects.total == sum(counted.values()))), kind
                assert left.received == valid + sum(counted.values()), kind
                assert left.rejects.as_dict() == dict(sorted(counted.items())), kind
                if valid:  # the pose is the last valid frame's, exactly
                    assert_close(data.qpos[left_adr], want, atol=0.0, what=f"pose after {kind}")
            want = np.linspace(-1.0, 1.0, 7) * (0.1 + 0.05 * k)
            wl.write(encode_joint_state([n.encode() for n in LEFT], want.tolist(), stamp=(k, 0)))
            valid += 1
            assert wait_for(upd(lambda v=valid: left.valid == v)), f"valid frame after {kind} lost"
            assert_close(data.qpos[left_adr], want, atol=0.0, what=f"frame after {kind}")
        assert mirror.ready
        rep = mirror.report()["topics"][rig.sides["left"].state_topic]
        assert rep["valid"] == len(ORDER) + 1 and rep["received"] == rep["valid"] + sum(
            counted.values()
        )
        assert rep["rejected_by_reason"] == {
            "non_finite": 1,
            "too_large": 1,
            "undecodable": 2,
            "unknown": 1,
        }
        status = {s.side: s for s in mirror.status()}
        assert status["left"].rejected == 5
        assert status["left"].rejected_by_reason["undecodable"] == 2
        assert right.valid == 1 and right.rejects.total == 0


P = load_profile()
SLOT_NAMES = [s.joint for s in P.slots]


def test_hand_bridge_survives_every_hostile_command_and_applies_every_valid_one() -> None:
    hand = build_hand_model("g20_left", P)
    ref = HandBridge(hand, HandBridgeCfg(slew_rad_s=0.0))
    samples = hostile_samples(SLOT_NAMES[:3])
    with (
        DdsTransport(DOMAIN, localhost_only=True) as bus,
        RawRtpsWriter(DOMAIN, "rt" + TOPIC_CMD) as w,
    ):
        b = HandBridge(hand, HandBridgeCfg(slew_rad_s=0.0), bus)
        sub = b._sub
        assert sub is not None
        discover(w, lambda: sub.publisher_count() >= 1)

        def step(cond: Callable[[], bool]) -> Callable[[], bool]:
            return lambda: (b.step(), cond())[1]

        counted: Counter[str] = Counter()
        goal = b.goal
        for k, kind in enumerate(["warmup", *ORDER]):
            if kind != "warmup":
                bad = samples[kind]
                w.write(bad.data)
                if bad.reason is None:
                    time.sleep(SETTLE_S)
                    b.step()
                else:
                    counted[bad.reason] += 1
                    assert wait_for(step(lambda: b.rejects.total == sum(counted.values()))), kind
                assert b.rejects.as_dict() == dict(sorted(counted.items())), kind
                assert b.goal == goal, f"goal changed by {kind}"
            raw = [float((37 * k + 11 * i) % 256) for i in range(20)]
            w.write(encode_joint_state([], raw))
            assert wait_for(step(lambda n=k + 1: b.commands_applied == n)), f"command after {kind}"
            ref.command_sdk(raw)
            goal = b.goal
            assert goal == ref.goal
        assert b.rejects.as_dict() == {
            "non_finite": 1,
            "too_large": 1,
            "undecodable": 2,
            "unknown": 1,
        }
        assert np.isfinite(b.data.qpos).all() and b.recoveries == 0
        b.close()


def test_one_undecodable_sample_does_not_cost_the_valid_ones_taken_with_it() -> None:
    """Samples waiting together: the bad one in the middle is replaced, the others kept."""
    rig = load_rig_cfg()
    topic = rig.sides["left"].state_topic
    with (
        DdsTransport(DOMAIN, localhost_only=True) as bus,
        RawRtpsWriter(DOMAIN, "rt" + topic) as w,
    ):
        sub = bus.subscriber(topic, JointState, depth=100)
        discover(w, lambda: sub.publisher_count() >= 1)
        bad = hostile_samples(LEFT)["utf8_name"].data
        for k in range(150):  # more than one take chunk
            pos = [float(k)] * 7
            w.write(bad if k % 50 == 25 else encode_joint_state([n.encode() for n in LEFT], pos))
        time.sleep(1.0)
        got = sub.take()
        bad_at = [i for i, m in enumerate(got) if not isinstance(m, JointState)]
        assert len(got) == 100  # the newest 100 (depth), in order
        kept = [m.position[0] for m in got if isinstance(m, JointState)]
        assert kept == sorted(kept) and kept[-1] == 149.0
        assert len(bad_at) == 2 and all(got[i].reason == "undecodable" for i in bad_at)
        assert sub.rejected == {"undecodable": 2}  # type: ignore[attr-defined]
