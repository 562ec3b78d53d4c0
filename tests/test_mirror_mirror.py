"""The mirror core: name mapping, whole-frame validation, waiting, hold-last-pose, warnings."""

from __future__ import annotations

import logging
import math
from dataclasses import replace

import mujoco
import numpy as np
import pytest

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.inproc import InprocTransport
from mjscope.exceptions import ConfigError, UnknownNameError
from mjscope.mirror.config import RenderCfg, RigCfg, load_rig_cfg
from mjscope.mirror.mirror import Mirror
from mjscope.models import JointIndex, load
from mjscope.sim.render import OffscreenRenderer
from tests.utils import assert_close, asset

LEFT = [f"left_joint{i}" for i in range(1, 8)]
RIGHT = [f"right_joint{i}" for i in range(1, 8)]


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture(scope="module")
def model() -> mujoco.MjModel:
    return load("dual_rm75")


def make(model: mujoco.MjModel, bus: InprocTransport | None = None, rig: RigCfg | None = None):
    clock = Clock()
    data = mujoco.MjData(model)
    mirror = Mirror(model, data, rig or load_rig_cfg(), RenderCfg(), bus, clock=clock)
    return mirror, data, clock


def frame(names: list[str], pos, **kw) -> JointState:
    return JointState(stamp=Stamp(10, 0), name=list(names), position=list(pos), **kw)


def qpos_of(model: mujoco.MjModel, data: mujoco.MjData, names: list[str]) -> np.ndarray:
    return data.qpos[JointIndex(model).scalar_qpos_addresses(names)].copy()


def test_fourteen_names_map_to_their_own_qpos(model: mujoco.MjModel) -> None:
    mirror, data, _ = make(model)
    left = np.linspace(0.1, 0.7, 7)
    right = -np.linspace(0.15, 1.05, 7)
    assert mirror.apply("left", frame(LEFT, left))
    assert mirror.apply("right", frame(RIGHT, right))
    for i in range(7):
        adr_l = model.jnt_qposadr[model.joint(LEFT[i]).id]
        adr_r = model.jnt_qposadr[model.joint(RIGHT[i]).id]
        assert data.qpos[adr_l] == left[i] and data.qpos[adr_r] == right[i]
    assert mirror.joint_positions()["right_joint4"] == right[3]


def test_shuffled_message_order_never_crosses_arms(model: mujoco.MjModel) -> None:
    rng = np.random.default_rng(0)
    mirror, data, _ = make(model)
    for _ in range(50):
        for side, names in (("left", LEFT), ("right", RIGHT)):
            values = dict(zip(names, rng.uniform(-1, 1, 7), strict=True))
            order = list(rng.permutation(names))
            assert mirror.apply(side, frame(order, [values[n] for n in order]))
            assert_close(qpos_of(model, data, names), [values[n] for n in names])
    # Feeding the left side's message to the right topic is rejected, not mirrored.
    before = data.qpos.copy()
    assert not mirror.apply("right", frame(LEFT, np.zeros(7)))
    assert_close(data.qpos, before)
    assert mirror.sides["right"].stats.rejects.as_dict() == {"unknown": 1}


def test_mock_initial_angles_from_yaml_reach_mujoco(model: mujoco.MjModel) -> None:
    from mjscope.mirror.mock_arm import MockArm

    rig = load_rig_cfg()
    with InprocTransport() as bus:
        mirror, data, _ = make(model, bus, rig)
        arms = [MockArm(bus, n, s) for n, s in rig.sides.items()]
        for a in arms:
            a.step(0.0)
        assert mirror.update()
    for side, names in (("left", LEFT), ("right", RIGHT)):
        want = np.deg2rad(rig.sides[side].initial_joint_pose_deg)
        assert_close(qpos_of(model, data, names), want, atol=1e-12, what=side)
    assert not np.allclose(rig.sides["left"].initial_joint_pose_deg, 0.0)


BAD_FRAMES = {
    "missing": frame(LEFT[:6], [0.5] * 6),
    "wrong_count": frame([*LEFT, "left_joint8"], [0.5] * 8),
    "duplicate": frame([*LEFT[:6], LEFT[0]], [0.5] * 7),
    "unknown": frame([*LEFT[:6], "right_joint7"], [0.5] * 7),
    "length_mismatch": frame(LEFT, [0.5] * 6),
    "non_finite": frame(LEFT, [0.5] * 6 + [math.nan]),
    "non_numeric": frame(LEFT, [0.5] * 6 + ["1.0"]),
    "non_finite_velocity": frame(LEFT, [0.5] * 7, velocity=[0.0] * 6 + [math.inf]),
    "velocity_length": frame(LEFT, [0.5] * 7, velocity=[0.0] * 3),
}


@pytest.mark.parametrize("kind", sorted(BAD_FRAMES))
def test_invalid_frame_never_partially_changes_the_pose(model: mujoco.MjModel, kind: str) -> None:
    with InprocTransport() as bus:
        mirror, data, _ = make(model, bus)
        pubs = {s: bus.publisher(c.cfg.state_topic, JointState) for s, c in mirror.sides.items()}
        good = np.linspace(-0.3, 0.3, 7)
        pubs["left"].publish(frame(LEFT, good))
        pubs["right"].publish(frame(RIGHT, -good))
        assert mirror.update()
        before = data.qpos.copy()
        pubs["left"].publish(BAD_FRAMES[kind])
        assert not mirror.update()
        assert_close(data.qpos, before, atol=0.0, what=kind)
        stats = mirror.sides["left"].stats
        assert (stats.received, stats.valid, stats.rejects.total) == (2, 1, 1)


def test_coalesces_to_newest_valid_but_counts_every_frame(model: mujoco.MjModel) -> None:
    with InprocTransport() as bus:
        mirror, data, _ = make(model, bus)
        pub = bus.publisher("/xr_rm/left_rm75/joint_states", JointState)
        for k in range(5):
            pub.publish(frame(LEFT, [0.1 * k] * 7))
        pub.publish(frame(LEFT, [math.nan] * 7))  # newest but invalid: the last valid wins
        mirror.update()
        assert_close(qpos_of(model, data, LEFT), [0.4] * 7)
        st = mirror.sides["left"].stats
        assert (st.received, st.valid, st.rejects.as_dict()) == (6, 5, {"non_finite": 1})
        assert mirror.forward_calls == 1


def test_waits_and_names_the_missing_side(model: mujoco.MjModel, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="mjscope.mirror.mirror")
    with InprocTransport() as bus:
        mirror, data, clock = make(model, bus)
        pub = bus.publisher("/xr_rm/left_rm75/joint_states", JointState)
        pub.publish(frame(LEFT, [0.2] * 7))
        waits = []
        for k in range(1, 101):  # 5 s at 20 Hz, wait reports every 2 s
            clock.t = 0.05 * k
            mirror.update()
            waits += [r.getMessage() for r in caplog.records if "waiting" in r.getMessage()]
            caplog.clear()
        assert not mirror.ready and mirror.missing_sides() == ["right"]
        assert len(waits) == 2 and all("'right'" in w and "right_rm75" in w for w in waits)
        assert mirror.report()["joint_positions_rad"] == {}
        # Right's arm keeps the model's zero pose in qpos, but nothing claims it is real.
        assert_close(qpos_of(model, data, RIGHT), np.zeros(7))


def test_quiet_side_holds_last_pose_and_is_reported_stale(model: mujoco.MjModel, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="mjscope.mirror.mirror")
    with InprocTransport() as bus:
        mirror, data, clock = make(model, bus)
        pl = bus.publisher("/xr_rm/left_rm75/joint_states", JointState)
        pr = bus.publisher("/xr_rm/right_rm75/joint_states", JointState)
        pl.publish(frame(LEFT, [0.3] * 7))
        pr.publish(frame(RIGHT, [-0.3] * 7))
        mirror.update()
        for k in range(1, 61):  # right keeps publishing, left goes quiet for 3 s
            clock.t = 0.05 * k
            pr.publish(frame(RIGHT, [-0.3 + 0.01 * k] * 7))
            mirror.update()
        assert_close(qpos_of(model, data, LEFT), [0.3] * 7)
        assert_close(qpos_of(model, data, RIGHT), [0.3] * 7)
        status = {s.side: s for s in mirror.status()}
        assert status["left"].stale and not status["right"].stale
        assert status["left"].age_s == pytest.approx(3.0)
        stale_logs = [r.getMessage() for r in caplog.records if "holding" in r.getMessage()]
        assert len(stale_logs) == 1 and "'left'" in stale_logs[0]
        assert mirror.report()["stale_sides"] == ["left"]


def test_second_publisher_triggers_a_warning_naming_topic_and_count(
    model: mujoco.MjModel, caplog
) -> None:
    caplog.set_level(logging.WARNING, logger="mjscope.mirror.mirror")
    topic = "/xr_rm/left_rm75/joint_states"
    with InprocTransport() as bus:
        mirror, _, clock = make(model, bus)
        bus.publisher(topic, JointState)
        mirror.update()
        assert not [r for r in caplog.records if "publishers on" in r.getMessage()]
        second = bus.publisher(topic, JointState)
        clock.t = 1.0
        mirror.update()
        warn = [r.getMessage() for r in caplog.records if "publishers on" in r.getMessage()]
        assert warn == [f"2 publishers on {topic}: states from several sources (two launches?) "
                        "would mix; stop all but one"]  # fmt: skip
        assert mirror.report()["topics"][topic]["max_publisher_count"] == 2
        second.close()
        clock.t = 2.0
        mirror.update()
        assert mirror.report()["topics"][topic]["publisher_count"] == 1


def test_report_has_rates_counts_ages_and_final_positions(model: mujoco.MjModel) -> None:
    with InprocTransport() as bus:
        mirror, _, clock = make(model, bus)
        pl = bus.publisher("/xr_rm/left_rm75/joint_states", JointState)
        pr = bus.publisher("/xr_rm/right_rm75/joint_states", JointState)
        for k in range(90):  # 1 s at 90 Hz
            clock.t = k / 90
            pl.publish(frame(LEFT, [0.01 * k] * 7))
            pr.publish(frame(RIGHT, [0.02] * 7) if k % 10 else frame(RIGHT, [math.inf] * 7))
            mirror.update()
        rep = mirror.report(now=1.0, wall_now=12.5)
    left = rep["topics"]["/xr_rm/left_rm75/joint_states"]
    right = rep["topics"]["/xr_rm/right_rm75/joint_states"]
    assert left["received"] == 90 and left["received_rate_hz"] == pytest.approx(90.0)
    assert right["rejected_by_reason"] == {"non_finite": 9} and right["valid"] == 81
    assert left["last_stamp_age_s"] == pytest.approx(2.5)
    assert left["last_receive_age_s"] == pytest.approx(1.0 - 89 / 90, abs=1e-4)
    assert rep["joint_positions_rad"]["left_joint1"] == pytest.approx(0.89)
    assert rep["joint_positions_rad"]["right_joint7"] == pytest.approx(0.02)
    assert mirror.status()[0].hz == pytest.approx(90.0, rel=0.05)


def test_config_joint_map_mirrors_one_arm_on_the_real_urdf() -> None:
    urdf = load(asset("rm75", "urdf", "rm_75.urdf"))
    rig = load_rig_cfg()
    left = rig.sides["left"]
    single = RigCfg({"left": replace(left, joint_map={n: n.removeprefix("left_") for n in LEFT})})
    mirror, data, _ = make(urdf, None, single)
    q = np.linspace(-0.5, 0.5, 7)
    assert mirror.apply("left", frame(LEFT, q))
    assert_close(data.qpos, q)
    with pytest.raises(UnknownNameError, match="joint_map"):
        make(urdf, None, rig)


def test_two_sides_on_the_same_joints_is_a_config_error(model: mujoco.MjModel) -> None:
    rig = load_rig_cfg()
    crossed = replace(rig.sides["right"], joint_map=dict(zip(RIGHT, LEFT, strict=True)))
    with pytest.raises(ConfigError, match="same model joint"):
        make(model, None, RigCfg({"left": rig.sides["left"], "right": crossed}))


def test_offscreen_render_changes_when_a_joint_moves_and_matches_the_pose(
    model: mujoco.MjModel,
) -> None:
    mirror, data, _ = make(model)
    mirror.apply("left", frame(LEFT, np.zeros(7)))
    mirror.apply("right", frame(RIGHT, np.zeros(7)))
    ref = mujoco.MjData(model)
    with OffscreenRenderer(model, 320, 240, camera="mirror") as r:
        a = r.render(data)
        mirror.apply("left", frame(LEFT, [0, -1.0, 0, -1.2, 0, 0, 0]))
        b = r.render(data)
        JointIndex(model).write_qpos(ref.qpos, LEFT, [0, -1.0, 0, -1.2, 0, 0, 0])
        mujoco.mj_forward(model, ref)
        c = r.render(ref)
    changed = np.any(a != b, axis=2).mean()
    assert changed > 0.005, f"only {changed:.4f} of pixels changed"
    assert np.array_equal(b, c)
