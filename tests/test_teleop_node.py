"""One arm's teleop chain: the seed's checks (initial pose, A/X reset, re-anchor, grip release),
timeouts, safe stops, IK failures, tracking and the workspace boundary."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mjscope.bridge.messages import JointState
from mjscope.bridge.transport.inproc import InprocTransport
from mjscope.rig import SideCfg, load_rig_cfg
from mjscope.teleop.adapters.base import AdapterError, Feedback
from mjscope.teleop.adapters.mock import MockRealManAdapter
from mjscope.teleop.build import build_arm
from mjscope.teleop.limits import Workspace
from mjscope.teleop.node import TeleopArm
from mjscope.teleop.scripted import hold_pose
from mjscope.teleop.urdf import read_urdf
from tests.utils import assert_close

RIG = load_rig_cfg()
ROOT = read_urdf()
CTRL = np.array([0.3, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0])  # a controller pose, world frame
DT = 1 / 90


def make_arm(
    side: str = "left",
    adapter: MockRealManAdapter | None = None,
    transport: InprocTransport | None = None,
    **overrides: object,
) -> TeleopArm:
    cfg: SideCfg = replace(RIG.sides[side], **overrides)  # type: ignore[arg-type]
    ad = adapter or MockRealManAdapter(side, cfg.joint_names, cfg.initial_pose_rad())
    return build_arm(ROOT, side, cfg, ad, transport)


def run(arm: TeleopArm, t0: float, t1: float, ctrl_at) -> float:
    """Step ``arm`` from t0 to t1 with ``ctrl_at(t)`` (a ControllerState or None)."""
    n = round((t1 - t0) / DT)
    for k in range(n):
        t = t0 + k * DT
        arm.step(t, ctrl_at(t))
    return t0 + n * DT


def ee(arm: TeleopArm) -> np.ndarray:
    return arm.ik.fk(arm.adapter.feedback(0.0).q).p


def held(dx: float = 0.0, dz: float = 0.0, grip: float = 1.0, primary: bool = False):
    pose = CTRL + np.array([dx, 0.0, dz, 0, 0, 0, 0])
    return hold_pose(pose, grip=grip, primary=primary)


@pytest.mark.parametrize("side", ["left", "right"])
def test_yaml_initial_angles_reach_joint_states_through_the_mock(side: str) -> None:
    with InprocTransport() as bus:
        sub = bus.subscriber(RIG.sides[side].state_topic, JointState)
        arm = make_arm(side, transport=bus)
        arm.start(0.0)
        msgs = sub.take()
    assert len(msgs) == 1  # one frame at start-up, before any XR input
    want = np.radians(RIG.sides[side].initial_joint_pose_deg)
    assert msgs[0].name == list(RIG.sides[side].joint_names)
    assert_close(msgs[0].position, want, 1e-12, what="published initial pose [rad]")


def test_state_and_target_reach_a_late_subscriber_and_a_silent_topic_still_counts() -> None:
    side = RIG.sides["left"]
    with InprocTransport() as bus:
        arm = make_arm(transport=bus)
        arm.start(0.0)
        t = run(arm, 0.0, 0.2, lambda t: held(dx=0.1 * t))  # nobody listens: nothing built
        assert arm.out.published == round(0.2 / DT) + 1
        state = bus.subscriber(side.state_topic, JointState)
        target = bus.subscriber(side.target_topic, JointState)
        c = arm.step(t, held(dx=0.1 * t))
        (st,), (tg,) = state.take(), target.take()
    assert arm.out.published == round(0.2 / DT) + 2
    assert st.name == tg.name == list(side.joint_names) and st.stamp == tg.stamp
    assert tg.position == c.q.tolist()  # the command sent ...
    assert_close(st.position, c.q, 0.0, what="... is the mock's feedback")


def test_reset_returns_the_arm_to_its_yaml_pose_and_publishes_it() -> None:
    with InprocTransport() as bus:
        sub = bus.subscriber(RIG.sides["left"].state_topic, JointState)
        arm = make_arm(transport=bus)
        arm.start(0.0)
        t = run(arm, 0.0, 0.5, lambda t: held(dx=0.1 * min(t / 0.3, 1.0)))
        assert np.abs(arm.adapter.feedback(t).q - arm.adapter.initial_q).max() > 0.05
        c = arm.step(t, held(dx=0.1, grip=0.0, primary=True))
        last = sub.take()[-1]
    assert c.state == "reset" and arm.stats.resets == 1
    want = np.radians(RIG.sides["left"].initial_joint_pose_deg)
    assert_close(last.position, want, 1e-12, what="published after reset")
    assert_close(arm.joints.q, want, 1e-12) and arm.joints.at_rest


def test_reset_with_grip_held_reanchors_without_a_jump() -> None:
    arm = make_arm()
    arm.start(0.0)
    home = ee(arm)
    t = run(arm, 0.0, 1.0, lambda t: held(dx=0.06 * min(t / 0.4, 1.0)))
    assert np.linalg.norm(ee(arm) - home) > 0.05
    arm.step(t, held(dx=0.06, primary=True))  # X pressed, grip still held
    assert_close(ee(arm), home, 1e-9, what="reset pose")
    c = arm.step(t + DT, held(dx=0.06, primary=True))  # next cycle: re-anchored here
    assert c.state == "engaged" and arm.clutch.engagements == 2
    assert_close(c.target.p, home, 1e-9, what="no jump: target = reset pose")
    run(arm, t + 2 * DT, t + 2.0, lambda t: held(dx=0.06, dz=0.03))  # then the controller moves
    assert_close(ee(arm) - home, [0.0, 0.0, 0.03], 2e-3, what="EE moved by the new delta")


class RealLikeAdapter(MockRealManAdapter):
    """A test double with the real adapter's reset rule (grip release required)."""

    kind = "real"
    grip_release_after_reset = True


def test_the_real_path_keeps_the_grip_release_requirement_after_reset() -> None:
    side = RIG.sides["left"]
    arm = make_arm(adapter=RealLikeAdapter("left", side.joint_names, side.initial_pose_rad()))
    arm.start(0.0)
    t = run(arm, 0.0, 0.5, lambda t: held(dx=0.05 * min(t / 0.3, 1.0)))
    arm.step(t, held(dx=0.05, primary=True))
    q_reset = arm.adapter.feedback(t).q
    t = run(arm, t + DT, t + 1.0, lambda t: held(dx=0.05 + (t - 0.5)))  # grip held, moving
    assert_close(arm.adapter.feedback(t).q, q_reset, 0.0, what="no motion until grip released")
    assert arm.step(t, held(dx=0.5)).state == "needs_release"
    arm.step(t + DT, held(dx=0.5, grip=0.0))  # released ...
    t0 = t + 2 * DT
    run(arm, t0, t0 + 1.0, lambda t: held(dx=0.5 - 0.04 * min((t - t0) / 0.3, 1.0)))  # pressed
    assert_close(ee(arm) - arm.ik.fk(q_reset).p, [-0.04, 0.0, 0.0], 2e-3, what="moves again")


def test_an_xr_stream_that_stops_triggers_the_timeout_stop_within_its_time() -> None:
    arm = make_arm(xr_timeout_s=0.2)
    arm.start(0.0)
    states = {}
    for k in range(200):
        t = k * DT
        ctrl = held(dx=0.1 * min(t, 0.5)) if t < 1.0 else None  # the stream stops at 1 s
        states[t] = arm.step(t, ctrl).state
    stopped_at = min(t for t, s in states.items() if s == "xr_timeout")
    assert 1.0 + 0.2 - DT < stopped_at <= 1.0 + 0.2 + DT
    assert arm.stats.xr_timeouts == 1 and not arm.clutch.anchored
    q = arm.joints.q.copy()  # braked to rest by now: nothing moves
    assert arm.joints.at_rest
    arm.step(3.0, held(dx=0.5))  # XR back with the grip held: still no motion
    assert_close(arm.joints.q, q, 0.0)


class StaleAdapter(MockRealManAdapter):
    """Feedback that stops being updated at ``stale_after`` [s]."""

    stale_after = 0.5

    def feedback(self, now: float) -> Feedback | None:
        fb = super().feedback(now)
        return None if fb is None else Feedback(fb.q, min(now, self.stale_after))


def test_lost_feedback_is_a_latched_safe_stop() -> None:
    side = RIG.sides["left"]
    arm = make_arm(adapter=StaleAdapter("left", side.joint_names, side.initial_pose_rad()))
    arm.start(0.0)
    run(arm, 0.0, 1.0, lambda t: held(dx=0.2 * t))
    assert arm.stopped.startswith("no joint feedback") and arm.stats.feedback_timeouts == 1
    sent = arm.adapter.sent
    run(arm, 1.0, 1.5, lambda t: held(dx=0.2 * t))
    assert arm.adapter.sent == sent  # braked to rest: nothing more is sent


class FailingAdapter(MockRealManAdapter):
    def send(self, q, now):
        if now > 0.3:
            raise AdapterError("left arm at 127.0.0.1:1: send failed")
        super().send(q, now)


def test_a_failed_send_is_a_safe_stop_not_a_traceback() -> None:
    side = RIG.sides["left"]
    arm = make_arm(adapter=FailingAdapter("left", side.joint_names, side.initial_pose_rad()))
    arm.start(0.0)
    run(arm, 0.0, 0.6, lambda t: held(dx=0.1 * t))
    assert "send failed" in arm.stopped


def test_a_failed_qp_holds_the_last_good_command() -> None:
    arm = make_arm()
    arm.start(0.0)
    t = run(arm, 0.0, 0.3, lambda t: held(dx=0.2 * t))
    q_good, v = arm.joints.q.copy(), np.abs(arm.joints.v)
    assert v.max() > 0.1  # it was moving when the QP started failing
    task = arm.ik.solver.add_joints_task()  # a real infeasible QP: a hard joint task beyond
    task.set_joints({n: 3.0 for n in arm.ik.joints})  # what the joint and speed limits allow
    task.configure("infeasible", "hard")
    qs = [arm.step(t + k * DT, held(dx=0.2 * (t + k * DT))).q for k in range(30)]
    assert arm.stats.ik_rejects["qp_failure"] == 30
    braking = v * v / (2 * arm.joints.amax) + v * DT  # the stopping distance at joint_max_acc
    assert np.all(np.abs(qs[-1] - q_good) <= braking + 1e-12)
    assert_close(qs[-1], qs[-2], 0.0, what="then held still")


@pytest.mark.parametrize("scale", [1.0, 1.5])
def test_a_10cm_controller_motion_moves_the_ee_by_10cm_times_scale(scale: float) -> None:
    arm = make_arm(scale_factor=scale)
    arm.start(0.0)
    start = ee(arm)
    direction = np.array([0.6, -0.0, 0.8])  # 10 cm along this unit vector
    move = lambda t: hold_pose(CTRL + np.r_[0.1 * min(t, 1.0) * direction, 0, 0, 0, 0])  # noqa: E731
    run(arm, 0.0, 3.0, move)
    assert_close(ee(arm) - start, 0.1 * scale * direction, 2e-3, what="settled EE motion")


def test_a_motion_leaving_the_workspace_stops_at_its_boundary() -> None:
    arm = make_arm(workspace_max=(0.9, 0.4, 0.75))  # 13 cm above the initial EE
    arm.start(0.0)
    top = arm.cfg.workspace_max[2]
    run(arm, 0.0, 4.0, lambda t: held(dz=min(t, 1.0)))  # 1 m up: far beyond the box
    p = ee(arm)
    assert abs(p[2] - top) < 2e-3 and arm.stats.clamps["workspace"] > 0


def test_an_arm_outside_the_workspace_does_not_engage() -> None:
    arm = make_arm(workspace_min=(0.1, -0.6, 0.35), workspace_max=(0.9, 0.4, 1.4))
    arm.start(0.0)
    ws = Workspace(np.array([0.5, -0.6, 0.35]), np.array([0.9, 0.4, 1.4]), np.zeros(2))
    arm.workspace = arm.cartesian.workspace = ws  # the arm's EE (x = 0.34) is now outside
    run(arm, 0.0, 0.5, lambda t: held(dx=0.1 * t))
    assert arm.stats.engage_refused == 1 and arm.stats.engaged_cycles == 0
    assert_close(arm.joints.q, arm.adapter.initial_q, 0.0)
