"""The UDP sender helper: timing against a fake clock, a replay streamed to the UDP source."""

from __future__ import annotations

import threading
import time

import pytest

from mjscope.exceptions import MjscopeError
from mjscope.teleop.xr import UdpXrSource, demo_replay_path, load_replay, stream_replay_udp
from mjscope.teleop.xr.__main__ import main
from mjscope.teleop.xr.sender import send_udp_frames, timed_frames

XR_YAML = """\
rows:
  - {t: 0.0, left: {pose: [0,1,0,0,0,0,1]}}
  - {t: 0.4, left: {pose: [0,1,0,0,0,0,1]}}
"""


class FakeClock:
    def __init__(self):
        self.now = 10.0
        self.sleeps = []

    def __call__(self):
        return self.now

    def sleep(self, dt):
        self.sleeps.append(round(dt, 9))
        self.now += dt


def test_timed_frames_follow_the_row_times(tmp_path):
    p = tmp_path / "two.yaml"
    p.write_text(XR_YAML)
    clock = FakeClock()
    frames = list(timed_frames(load_replay(p), speed=2.0, clock=clock, sleep=clock.sleep))
    assert [f.stamp_ns for f in frames] == [1, 400_000_000]
    assert clock.sleeps == [0.0, 0.2]


def test_timed_frames_loop_until_the_duration(tmp_path):
    p = tmp_path / "two.yaml"
    p.write_text(XR_YAML)
    clock = FakeClock()
    rows = load_replay(p)
    frames = list(timed_frames(rows, loop=True, duration_s=2.0, clock=clock, sleep=clock.sleep))
    # period 0.8 s: rows at 0, 0.4, 0.8, 1.2, 1.6, (2.0 is not beyond 2.0) 2.0
    assert [f.stamp_ns for f in frames] == [1, 4e8, 8e8, 12e8, 16e8, 20e8]


def test_stream_replay_to_the_udp_source():
    rows = load_replay(demo_replay_path())
    with UdpXrSource(port=0) as src:
        sent = []
        tx = threading.Thread(
            target=lambda: sent.append(stream_replay_udp(demo_replay_path(), src.port, speed=20.0))
        )
        tx.start()
        deadline = time.monotonic() + 5.0
        last = None
        while src.received + src.dropped < len(rows) and time.monotonic() < deadline:
            last = src.poll(time.monotonic()) or last
            time.sleep(0.002)
        tx.join(timeout=5.0)
        assert sent == [len(rows)]
        assert src.received + src.dropped == len(rows) and not src.rejects  # superseded: dropped
        assert last.stamp_ns == round(rows[-1].t * 1e9)


def test_send_errors_are_clear():
    with pytest.raises(MjscopeError, match="cannot send an XR datagram"):
        send_udp_frames([b"x" * 70000], 9, "127.0.0.1")
    with pytest.raises(MjscopeError, match="speed must be > 0"):
        stream_replay_udp(demo_replay_path(), 9, speed=-1.0)


def test_main_plays_a_file(tmp_path, capsys):
    p = tmp_path / "two.yaml"
    p.write_text(XR_YAML)
    with UdpXrSource(port=0) as src:
        assert main(["send", "--port", str(src.port), "--replay", str(p), "--speed", "20"]) == 0
        time.sleep(0.05)
        assert src.poll(0.0).stamp_ns == 400_000_000
    assert "sent 2 XR datagrams" in capsys.readouterr().out
    assert main(["send", "--port", "9", "--replay", str(tmp_path / "none.yaml")]) == 2
    assert "not found" in capsys.readouterr().err
