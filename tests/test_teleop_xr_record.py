"""Recording any source to a replay file, and replaying it (also a live UDP capture)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from mjscope.exceptions import ConfigError, OutputError
from mjscope.teleop.xr import (
    RecordingXrSource,
    ReplayXrSource,
    UdpXrSource,
    XrRecorder,
    demo_replay_path,
    load_replay,
    send_udp_frames,
)
from tests.utils import assert_close


def _frames_equal(a, b, atol=1e-12):
    for side in ("left", "right"):
        ca, cb = a.side(side), b.side(side)
        assert (ca is None) == (cb is None)
        if ca is not None:
            assert_close(cb.pose, ca.pose, atol=atol, what=f"{side} pose")
            assert (cb.grip, cb.trigger, cb.primary, cb.secondary, cb.axis) == (
                ca.grip,
                ca.trigger,
                ca.primary,
                ca.secondary,
                ca.axis,
            )
    assert_close(b.head, a.head, atol=atol, what="head")


@pytest.mark.parametrize("frame", ["xr", "world"])
def test_record_a_replay_and_play_it_back(tmp_path, frame):
    out = tmp_path / f"rec_{frame}.jsonl"
    src = RecordingXrSource(ReplayXrSource(demo_replay_path()), XrRecorder(out, frame=frame))
    original = []
    with src:
        for k in range(0, 400):
            f = src.poll(k * 0.04)
            if f is not None:
                original.append((k * 0.04, f))
    assert src.received == len(original) == 251
    assert json.loads(out.read_text().splitlines()[0]) == {"frame": frame}
    rows = load_replay(out)
    assert len(rows) == len(original)
    for row, (t, f) in zip(rows, original, strict=True):
        assert row.t == pytest.approx(t, abs=1e-9)
        _frames_equal(f, row.frame)


def test_capture_a_live_udp_session_and_replay_it(tmp_path):
    demo = load_replay(demo_replay_path())[::25]  # 11 rows
    out = tmp_path / "capture.jsonl"
    with RecordingXrSource(UdpXrSource(port=0), XrRecorder(out)) as live:
        port = live.source.port
        seen = []
        deadline = time.monotonic() + 3.0
        for row in demo:
            send_udp_frames([row.frame], port)
            while time.monotonic() < deadline:  # bounded: one frame per datagram
                f = live.poll(time.monotonic())
                if f is not None:
                    seen.append(f)
                    break
                time.sleep(0.002)
        assert live.received == len(demo) == len(seen)
    rows = load_replay(out)
    assert len(rows) == len(demo)
    assert rows[0].t == 0.0 and np.all(np.diff([r.t for r in rows]) >= 0)
    for row, want in zip(rows, demo, strict=True):
        _frames_equal(want.frame, row.frame)


def test_recorder_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"write a \.jsonl"):
        XrRecorder(tmp_path / "x.yaml")
    with pytest.raises(ConfigError, match="in frame xr or world"):
        XrRecorder(tmp_path / "x.jsonl", frame="robot")
    rec = XrRecorder(tmp_path / "x.jsonl")
    rec.close()
    with pytest.raises(OutputError, match="closed"):
        rec.write(0.0, load_replay(demo_replay_path())[0].frame)
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError):
        XrRecorder(tmp_path / "file" / "x.jsonl")
