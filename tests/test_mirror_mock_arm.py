"""Mock arm sources: initial pose from YAML, sine motion, immediate reset on a command."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from mjscope.bridge.messages import JointState
from mjscope.bridge.transport.inproc import InprocTransport
from mjscope.exceptions import MjscopeError
from mjscope.mirror.config import load_rig_cfg
from mjscope.mirror.mock_arm import SINE_AMPLITUDE_RAD, MockArm, run_mock_arms, sine_offsets
from tests.utils import assert_close

RIG = load_rig_cfg()


def test_publishes_initial_pose_in_radians_on_state_and_target() -> None:
    side = RIG.sides["right"]
    with InprocTransport() as bus:
        states = bus.subscriber(side.state_topic, JointState)
        targets = bus.subscriber(side.target_topic, JointState)
        arm = MockArm(bus, "right", side)
        arm.step(0.0)
        (s,), (t,) = states.take(), targets.take()
    assert s.name == list(side.joint_names) and t.name == s.name
    assert_close(s.position, np.radians(side.initial_joint_pose_deg), atol=1e-15)
    assert s.stamp.sec > 1_600_000_000  # wall-clock stamp


def test_reset_command_returns_to_initial_pose_at_once() -> None:
    side = RIG.sides["left"]
    with InprocTransport() as bus:
        states = bus.subscriber(side.state_topic, JointState)
        cmd = bus.publisher(side.command_topic, str)
        arm = MockArm(bus, "left", side, motion="sine")
        for k in range(100):
            arm.step(k / 90)
        moved = np.asarray(states.take()[-1].position)
        assert np.abs(moved - arm.initial).max() > 0.05
        cmd.publish("reset")
        arm.step(100 / 90)
        (after,) = states.take()
    assert_close(after.position, arm.initial, atol=0.0, what="pose right after reset")
    assert arm.resets == 1


def test_unknown_command_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    side = RIG.sides["left"]
    with InprocTransport() as bus:
        arm = MockArm(bus, "left", side)
        bus.publisher(side.command_topic, str).publish("explode")
        assert not arm.handle_commands(0.0)
    assert "ignored command 'explode'" in caplog.text


def test_sine_offsets_start_at_zero_and_stay_bounded() -> None:
    assert_close(sine_offsets(0.0, 7), np.zeros(7), atol=1e-15)
    t = np.linspace(0, 10, 301)
    offs = np.array([sine_offsets(x, 7) for x in t])
    assert np.abs(offs).max() <= 2 * SINE_AMPLITUDE_RAD + 1e-12
    assert np.abs(offs).max() > SINE_AMPLITUDE_RAD  # it really moves


def test_unknown_motion_is_a_user_error() -> None:
    with InprocTransport() as bus, pytest.raises(MjscopeError, match="none, sine"):
        MockArm(bus, "left", RIG.sides["left"], motion="circle")


def test_run_loop_publishes_at_the_control_rate() -> None:
    with InprocTransport() as bus:
        sub = bus.subscriber(RIG.sides["left"].state_topic, JointState, depth=1000)
        arms = [MockArm(bus, n, s) for n, s in RIG.sides.items()]
        cycles = run_mock_arms(arms, duration=0.5, stop=threading.Event())
        got = len(sub.take())
    assert got == arms[0].published
    assert cycles - 3 <= got <= cycles
    assert math.isclose(got, 45, abs_tol=12)  # 90 Hz for 0.5 s on a busy machine


def test_each_arm_publishes_at_its_own_rate() -> None:
    from dataclasses import replace

    slow = replace(RIG.sides["right"], control_rate_hz=30.0)
    with InprocTransport() as bus:
        arms = [MockArm(bus, "left", RIG.sides["left"]), MockArm(bus, "right", slow)]
        run_mock_arms(arms, duration=0.6)
    fast_n, slow_n = arms[0].published, arms[1].published
    assert math.isclose(fast_n / slow_n, 3.0, rel_tol=0.25), (fast_n, slow_n)
