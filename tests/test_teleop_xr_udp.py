"""The UDP XR source on loopback: newest frame wins, bounded drain, counted rejects."""

from __future__ import annotations

import json
import socket
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjscope.exceptions import MjscopeError
from mjscope.teleop.xr import (
    REASONS,
    ControllerState,
    UdpXrSource,
    XrFrame,
    make_xr_source,
    send_udp_frames,
)
from tests.utils import assert_close


def frame(stamp: int, x: float = 0.3, grip: float = 1.0) -> XrFrame:
    pose = np.array([x, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0])
    return XrFrame(stamp_ns=stamp, left=ControllerState(pose=pose, grip=grip, primary=True))


def poll_until(src: UdpXrSource, want, timeout_s: float = 2.0):
    """Poll (bounded in time) until ``want(frame, src)`` holds; return the last frame."""
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        f = src.poll(time.monotonic())
        last = f or last
        if want(last, src):
            return last
        time.sleep(0.005)
    return last


@pytest.fixture
def src():
    with UdpXrSource(port=0) as s:
        yield s


def test_binds_loopback_on_a_free_port(src):
    assert src.host == "127.0.0.1"
    assert src.port > 0
    assert src.poll(0.0) is None


def test_frames_round_trip_and_newest_wins(src):
    assert send_udp_frames([frame(1, 0.1), frame(2, 0.2), frame(3, 0.3)], src.port) == 3
    got = poll_until(src, lambda f, s: s.received == 3)
    assert src.received == 3
    assert got.stamp_ns == 3
    assert_close(got.left.pose, [0.3, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0], atol=1e-12, what="pose")
    assert got.left.primary and got.left.grip == 1.0 and got.right is None
    assert src.poll(10.0) is None  # drained: nothing new


def test_malformed_datagrams_are_counted_by_reason_and_good_ones_still_win(src):
    good = frame(7)
    payloads = [b"nope", b"[]", json.dumps({"Controller": {}}), good, b"{}", b""]
    send_udp_frames(payloads, src.port)
    got = poll_until(src, lambda f, s: s.received + sum(s.rejects.values()) + s.dropped == 6)
    assert got is not None and got.stamp_ns == 7
    # parsed from the newest back until both sides are known (only left ever comes): the 4 kept
    assert dict(src.rejects) == {"not_json": 1, "missing_field": 2} and src.received == 1
    assert src.dropped == 2  # b"nope" and b"[]": superseded, never parsed
    assert set(src.rejects) <= set(REASONS)


def both(stamp: int, x: float) -> XrFrame:
    pose = np.array([x, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0])
    return XrFrame(stamp, left=ControllerState(pose=pose), right=ControllerState(pose=-pose))


def test_a_drain_parses_only_the_newest_when_it_carries_both_sides(src):
    send_udp_frames([both(k, 0.01 * k) for k in range(1, 101)], src.port)  # fits the buffer
    got = poll_until(src, lambda f, s: s.received + s.dropped == 100)
    assert got is not None and got.stamp_ns == 100 and src.received <= 4  # one per poll
    assert src.dropped == 100 - src.received and not src.rejects


def test_sides_are_merged_from_older_datagrams_of_the_same_drain(src):
    pose = np.array([0.1, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0])
    right_only = XrFrame(1, right=ControllerState(pose=pose, grip=0.5))
    send_udp_frames([right_only, frame(2, x=0.4)], src.port)
    got = poll_until(src, lambda f, s: s.received == 2)
    assert got.stamp_ns == 2 and got.left is not None and got.right is not None
    assert got.right.grip == 0.5 and got.left.pose[0] == pytest.approx(0.4)


def test_too_large_datagram_is_rejected():
    with UdpXrSource(port=0, max_bytes=600) as s:
        big = json.dumps({"Controller": {}, "pad": "x" * 600})
        send_udp_frames([big, frame(1)], s.port)
        poll_until(s, lambda f, src: src.received == 1 and src.rejects["too_large"] == 1)
        assert s.rejects["too_large"] == 1 and s.received == 1


def test_drain_is_bounded_per_poll():
    with UdpXrSource(port=0, max_per_poll=2) as s:
        send_udp_frames([frame(k) for k in range(1, 6)], s.port)
        time.sleep(0.05)
        stamps = []
        for _ in range(10):
            f = s.poll(0.0)
            if f is not None:
                stamps.append(f.stamp_ns)
        assert stamps == [2, 4, 5]


def test_message_without_stamp_is_stamped_with_the_callers_clock(src):
    msg = {"Controller": {"right": {"pose": "0,0,-1,0,0,0,1", "grip": 0.5}}}
    send_udp_frames([json.dumps(msg)], src.port)
    got = poll_until(src, lambda f, s: f is not None)
    assert got is not None
    assert 0 < got.stamp_ns
    assert_close(got.right.pose[:3], [1.0, 0.0, 0.0], atol=1e-12, what="-xr z is world x")


def test_close_then_poll_is_none():
    s = UdpXrSource(port=0)
    port = s.port
    s.close()
    s.close()
    assert s.poll(0.0) is None
    with UdpXrSource(port=port) as again:  # the port is free again
        assert again.port == port


def test_busy_port_is_a_clear_error(src):
    with pytest.raises(MjscopeError, match=rf"cannot bind .*127\.0\.0\.1:{src.port}.*choose"):
        UdpXrSource(port=src.port)


def test_bad_limits_are_rejected():
    with pytest.raises(MjscopeError, match="max_bytes"):
        UdpXrSource(port=0, max_bytes=0)


def test_factory_builds_it_with_options():
    with make_xr_source("udp", port=0, host="127.0.0.1", max_bytes=1024) as s:
        assert isinstance(s, UdpXrSource) and s.max_bytes == 1024


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=512))
def test_fuzz_accept_never_raises(data):
    with UdpXrSource(port=0, max_bytes=400) as s:
        out = s.accept(data, now=1.0)
        assert (out is None) == (sum(s.rejects.values()) == 1)
        assert s.received == (0 if out is None else 1)
        assert set(s.rejects) <= set(REASONS)


def test_fuzz_over_the_socket():
    rng = np.random.default_rng(0)
    payloads = [rng.bytes(int(rng.integers(0, 300))) for _ in range(40)]
    payloads += [b'{"value": "' + rng.bytes(50).hex().encode() + b'"}' for _ in range(10)]
    with UdpXrSource(port=0) as s:
        tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        with tx:
            for p in payloads:
                tx.sendto(p, ("127.0.0.1", s.port))
        total = len(payloads)
        poll_until(
            s, lambda f, src: sum(src.rejects.values()) + src.received + src.dropped == total
        )
        assert sum(s.rejects.values()) + s.received + s.dropped == total
        assert s.rejects["not_json"] >= 1 and s.received == 0
