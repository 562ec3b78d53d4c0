"""The RealMan adapter against the controller emulator on loopback."""

from __future__ import annotations

import math
import socket
import time
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from mjscope.exceptions import ConfigError
from mjscope.teleop.adapters.base import AdapterError
from mjscope.teleop.adapters.realman import RealManAdapter
from mjscope.teleop.emulator import RmEmulator, RmEmulatorCfg
from mjscope.teleop.realman.config import RealManCfg
from mjscope.teleop.realman.protocol import encode, rad_to_wire

NAMES = tuple(f"left_joint{i}" for i in range(1, 8))
POWER_ON_DEG = (5.0, -20.0, 0.0, -80.0, 0.0, -50.0, 10.0)
INITIAL_DEG = (0.0, -30.0, 0.0, -90.0, 0.0, -60.0, 0.0)  # the rig's left initial pose
RATE_HZ = 90.0

Factory = Callable[..., RealManAdapter]


@pytest.fixture
def emu() -> Iterator[RmEmulator]:
    with RmEmulator(RmEmulatorCfg(port=0, initial_joints_deg=POWER_ON_DEG)) as e:
        yield e


@pytest.fixture
def make(emu: RmEmulator) -> Iterator[Factory]:
    made: list[RealManAdapter] = []

    def factory(
        cfg: RealManCfg | None = None,
        initial_deg: tuple[float, ...] = INITIAL_DEG,
        names: tuple[str, ...] = NAMES,
        address: str | None = None,
    ) -> RealManAdapter:
        a = RealManAdapter("left", names, np.radians(initial_deg), address or emu.address, cfg)
        made.append(a)
        return a

    yield factory
    for a in made:
        a.close()


def stream(a: RealManAdapter, seconds: float, amp_deg: float = 10.0) -> list[np.ndarray]:
    """Send a sine on joint 1 at RATE_HZ from the power-on pose; return the targets [rad]."""
    sent, t0, k = [], time.monotonic(), 0
    while (now := time.monotonic()) < t0 + seconds:
        q = np.radians(POWER_ON_DEG) + np.radians(
            [amp_deg * math.sin(2 * math.pi * (now - t0)), *[0] * 6]
        )
        a.send(q, now)
        sent.append(q)
        k += 1
        time.sleep(max(0.0, t0 + k / RATE_HZ - time.monotonic()))
    return sent


def one_line(e: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(e.value)
    assert "\n" not in text and "Traceback" not in text
    return text


def test_connect_never_moves_the_arm(make: Factory, emu: RmEmulator) -> None:
    a = make()
    assert (a.kind, a.grip_release_after_reset) == ("real", True)
    a.connect()
    time.sleep(0.2)
    fb = a.feedback(time.monotonic())
    assert fb is not None and fb.err == 0
    np.testing.assert_allclose(np.degrees(fb.q), POWER_ON_DEG, atol=5e-4)
    np.testing.assert_array_equal(emu.joints_deg(), POWER_ON_DEG)
    moves = ("movej", "movej_canfd", "movej_follow", "set_arm_stop")
    assert all(emu.controller.counts[m] == 0 for m in moves), emu.controller.counts


def test_move_to_initial_pose_on_connect_is_an_option(make: Factory, emu: RmEmulator) -> None:
    a = make(RealManCfg(move_to_initial_pose_on_connect=True, reset_speed_percent=100))
    a.connect()
    assert emu.controller.counts["movej"] == 1
    np.testing.assert_allclose(emu.joints_deg(), INITIAL_DEG, atol=1e-9)


def test_commands_arrive_at_the_control_rate_in_millidegrees(
    make: Factory, emu: RmEmulator
) -> None:
    a = make()
    a.connect()
    sent = stream(a, 1.5)
    log = emu.canfd_log()
    assert len(log) == len(sent) == a.sent
    assert [j for _, j in log] == [rad_to_wire(q) for q in sent]  # 0.001° integers, in order
    period = np.diff([t for t, _ in log])
    assert abs(np.median(period) - 1 / RATE_HZ) < 0.1 / RATE_HZ, np.median(period)
    assert np.percentile(period, 90) < 2.0 / RATE_HZ
    time.sleep(0.2)  # the arm settles on the last target; the feedback follows it
    np.testing.assert_allclose(emu.joints_deg(), np.degrees(sent[-1]), atol=5e-4)
    np.testing.assert_allclose(a.feedback(time.monotonic()).q, sent[-1], atol=math.radians(1e-3))


def test_feedback_is_the_newest_push_stamped_on_arrival(make: Factory, emu: RmEmulator) -> None:
    a = make()
    a.connect()
    seen: dict[float, list[int]] = {}
    t0, k = time.monotonic(), 0
    while (now := time.monotonic()) < t0 + 1.0:
        if k % 11 == 0:
            a.send(np.radians(POWER_ON_DEG) + np.radians([20 * (now - t0), *[0] * 6]), now)
        fb = a.feedback(time.monotonic())
        seen.setdefault(fb.stamp, rad_to_wire(fb.q))
        k += 1
        time.sleep(0.001)
    pushes = emu.pushes_sent()
    lat = []
    for stamp, joints in seen.items():
        sent_at = [t for t, j in pushes if j == joints and t <= stamp]
        assert sent_at, "a feedback that no push carried"
        lat.append(stamp - sent_at[-1])
    assert len(lat) > 100  # new feedback ~ every 5 ms
    assert np.median(lat) < 0.005, np.median(lat)


def test_an_unanswering_controller_is_a_safe_stop(make: Factory, emu: RmEmulator) -> None:
    a = make()
    a.connect()
    stream(a, 0.2)
    emu.faults.silent = True
    t0 = time.monotonic()
    with pytest.raises(AdapterError) as e:
        while time.monotonic() < t0 + 2.0:
            a.send(a.initial_q, time.monotonic())
            time.sleep(1 / RATE_HZ)
    took = time.monotonic() - t0
    text = one_line(e)
    assert "feedback lost" in text and "safe stop" in text and emu.address in text
    assert took < a.cfg.feedback_timeout_s + 0.15, took
    sent = a.sent
    with pytest.raises(AdapterError, match="feedback lost"):
        a.send(a.initial_q, time.monotonic())
    assert a.sent == sent  # nothing goes out blind
    with pytest.raises(AdapterError, match="feedback lost"):
        a.feedback(time.monotonic())


def test_a_closed_controller_is_a_safe_stop(make: Factory, emu: RmEmulator) -> None:
    a = make()
    a.connect()
    emu.stop()
    time.sleep(0.1)
    with pytest.raises(AdapterError, match="closed the connection; safe stop"):
        a.feedback(time.monotonic())


def test_no_controller_is_a_one_line_error_with_the_fix(make: Factory) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: refused
        a = make(address=f"127.0.0.1:{port}")
        with pytest.raises(AdapterError) as e:
            a.connect()
    text = one_line(e)
    assert f"left arm at 127.0.0.1:{port}: cannot connect" in text and "rm-emulator" in text


@pytest.mark.parametrize("fault", ["silent", "drop_replies", "latency_s"])
def test_a_controller_that_does_not_answer_in_time(
    make: Factory, emu: RmEmulator, fault: str
) -> None:
    setattr(emu.faults, fault, 0.5 if fault == "latency_s" else True)
    a = make(RealManCfg(reply_timeout_s=0.2))
    t0 = time.monotonic()
    with pytest.raises(AdapterError) as e:
        a.connect()
    assert "no reply to get_current_arm_state within 0.2 s" in one_line(e)
    assert time.monotonic() - t0 < 1.0


def test_malformed_replies_are_counted(make: Factory, emu: RmEmulator) -> None:
    emu.faults.malformed_replies = True
    a = make(RealManCfg(reply_timeout_s=0.3))
    for _ in range(3):
        with pytest.raises(AdapterError, match="no reply"):
            a.connect()
    assert a.bad_replies["not_json"] + a.bad_replies["not_utf8"] + a.bad_replies["not_object"] == 3


def test_hostile_datagrams_are_counted_and_change_nothing(make: Factory, emu: RmEmulator) -> None:
    a = make()
    a.connect()
    target = a.push_address
    assert target is not None and target[0] == "127.0.0.1"
    bad = [b"\xff", b"{}", b"[1]", b'{"state":"realtime_arm_joint_state"}', b"x" * 5000]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for d in bad:
            s.sendto(d, target)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.2", 0))  # another loopback address: not the controller
        s.sendto(encode(emu.controller.push_datagram()), target)  # valid, but foreign
    time.sleep(0.1)
    assert dict(a.bad_feedback) == {
        "not_utf8": 1,
        "wrong_state": 1,
        "not_object": 1,
        "bad_field": 1,
        "oversized": 1,
        "foreign_source": 1,
    }
    np.testing.assert_allclose(np.degrees(a.feedback(time.monotonic()).q), POWER_ON_DEG, atol=5e-4)


def test_a_malformed_push_is_counted_then_lost_feedback(make: Factory, emu: RmEmulator) -> None:
    a = make()
    a.connect()
    emu.faults.malformed_push = True
    time.sleep(a.cfg.feedback_timeout_s + 0.05)
    with pytest.raises(AdapterError, match="feedback lost"):
        a.feedback(time.monotonic())
    assert sum(a.bad_feedback.values()) > 20 and set(a.bad_feedback) <= {
        "not_json",
        "not_utf8",
        "not_object",
    }


def test_reset_moves_to_the_initial_pose_through_the_controller(
    make: Factory, emu: RmEmulator
) -> None:
    a = make(RealManCfg(reset_speed_percent=100))
    a.connect()
    stream(a, 0.3)
    t0 = time.monotonic()
    a.reset(time.monotonic())
    assert emu.controller.counts["movej"] == 1
    assert time.monotonic() - t0 > 0.1  # a planned move, not a jump
    np.testing.assert_allclose(emu.joints_deg(), INITIAL_DEG, atol=1e-9)
    fb = a.feedback(time.monotonic())
    assert fb.stamp > t0
    np.testing.assert_allclose(np.degrees(fb.q), INITIAL_DEG, atol=5e-4)
    a.send(a.initial_q, time.monotonic())  # streaming resumes from there


def test_a_reset_beyond_a_limit_is_refused(make: Factory, emu: RmEmulator) -> None:
    a = make(initial_deg=(0.0, 140.0, 0.0, -90.0, 0.0, -60.0, 0.0))
    a.connect()
    with pytest.raises(AdapterError) as e:
        a.reset(time.monotonic())
    assert "refused movej to the initial pose" in one_line(e) and "0x1002" in str(e.value)
    np.testing.assert_array_equal(emu.joints_deg(), POWER_ON_DEG)


def test_a_reset_that_does_not_arrive_times_out(make: Factory, emu: RmEmulator) -> None:
    a = make(RealManCfg(reset_speed_percent=1, reset_timeout_s=0.3))
    a.connect()
    with pytest.raises(AdapterError, match=r"no arrival at the initial pose within 0\.3 s"):
        a.reset(time.monotonic())


def test_close_never_moves_the_arm(make: Factory, emu: RmEmulator) -> None:
    a = make()
    a.connect()
    stream(a, 0.2)
    time.sleep(0.1)
    counts, held = dict(emu.controller.counts), emu.joints_deg()
    a.close()
    time.sleep(0.2)
    assert dict(emu.controller.counts) == counts  # close sends nothing at all
    stats = a.stats()  # still there for the report
    assert stats["sent"] == emu.controller.counts["movej_canfd"] and stats["feedback_received"] > 40
    np.testing.assert_array_equal(emu.joints_deg(), held)
    with pytest.raises(AdapterError, match="not connected"):
        a.send(a.initial_q, time.monotonic())


def test_configure_limits_sets_the_controllers_own(make: Factory, emu: RmEmulator) -> None:
    a = make()
    a.connect()
    a.configure_limits(
        joint_max_speed_rad_s=math.radians(30.0),
        joint_max_acc_rad_s2=math.radians(100.0),
        line_speed_m_s=0.2,
    )
    arm = emu.controller.arm
    np.testing.assert_allclose(arm.vmax, 30.0)
    np.testing.assert_allclose(arm.amax, 99.996)  # 16666 × 0.001 RPM/s, truncated as the SDK does
    assert emu.controller.tool_limits["arm_line_speed"] == 200
    before = sum(emu.controller.counts.values())
    with pytest.raises(ConfigError, match=r"≥ 1\.5"):
        a.configure_limits(joint_max_speed_rad_s=1.0, joint_max_acc_rad_s2=1.0)
    assert sum(emu.controller.counts.values()) == before  # nothing sent


def test_poll_feedback_is_the_configured_fallback(make: Factory, emu: RmEmulator) -> None:
    a = make(RealManCfg(feedback="poll"))
    a.connect()
    time.sleep(0.2)
    assert a.push_address is None and emu.controller.counts["set_realtime_push"] == 0
    assert emu.controller.counts["get_current_arm_state"] > 5
    np.testing.assert_allclose(np.degrees(a.feedback(time.monotonic()).q), POWER_ON_DEG, atol=5e-4)


def test_controller_errors_reach_the_feedback_and_block_connect(
    make: Factory, emu: RmEmulator
) -> None:
    a = make()
    a.connect()
    emu.faults.arm_err = 0x1002
    time.sleep(0.05)
    assert a.feedback(time.monotonic()).err == 0x1002
    a.close()
    with pytest.raises(AdapterError, match="reports error 0x1002; clear it"):
        a.connect()


def test_wrong_arm_and_bad_targets_are_refused(make: Factory, emu: RmEmulator) -> None:
    six = make(initial_deg=INITIAL_DEG[:6], names=NAMES[:6])
    with pytest.raises(AdapterError, match="no 6-joint state"):
        six.connect()
    a = make()
    a.connect()
    for bad in ([math.nan] * 7, [0.0] * 6):
        with pytest.raises(AdapterError, match="refused target"):
            a.send(bad, time.monotonic())
    assert a.sent == 0 and emu.controller.counts["movej_canfd"] == 0
