"""Replay files: format, frames, playback against the caller's clock, errors, the demo."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjscope.exceptions import ConfigError, MjscopeError
from mjscope.teleop.xr import (
    ReplayXrSource,
    demo_replay_path,
    load_replay,
    make_xr_source,
    xr_pose_to_world,
)
from tests.utils import assert_close

XR_YAML = """\
rows:
  - t: 0.0
    left: {pose: [0.1, 1.0, -0.3, 0.0, 0.0, 0.0, 1.0], grip: 0.0}
  - t: 0.5
    left: {pose: "0.1,1.0,-0.4,0,0,0,1", grip: 1.0, primary: true, axis: [0.5, -1.0]}
    right: {pose: [-0.1, 1.0, -0.3, 0.0, 0.0, 0.0, 1.0], trigger: 0.5}
    head: [0.0, 1.6, 0.0, 0.0, 0.0, 0.0, 1.0]
  - t: 1.0
    left: {pose: [0.1, 1.0, -0.5, 0.0, 0.0, 0.0, 1.0], grip: 1.0}
"""


@pytest.fixture
def xr_file(tmp_path):
    p = tmp_path / "session.yaml"
    p.write_text(XR_YAML)
    return p


def test_yaml_rows_in_the_xr_frame_are_converted(xr_file):
    rows = load_replay(xr_file)
    assert [r.t for r in rows] == [0.0, 0.5, 1.0]
    f = rows[1].frame
    assert_close(f.left.pose, xr_pose_to_world([0.1, 1.0, -0.4, 0, 0, 0, 1]), what="left")
    assert_close(f.left.pose[:3], [0.4, -0.1, 1.0], atol=1e-12, what="world position")
    assert f.left.primary and f.left.grip == 1.0 and f.left.axis == (0.5, -1.0)
    assert f.right.trigger == 0.5 and f.right.grip == 0.0
    assert_close(f.head[:3], [0.0, 0.0, 1.6], atol=1e-12, what="head")
    assert rows[0].frame.right is None and rows[0].frame.head is None


def test_world_frame_jsonl_matches_the_xr_frame_yaml(xr_file, tmp_path):
    lines = [json.dumps({"frame": "world"})]
    for r in load_replay(xr_file):
        row = {"t": r.t}
        for side in ("left", "right"):
            c = r.frame.side(side)
            if c is not None:
                row[side] = {"pose": c.pose.tolist(), "grip": c.grip, "primary": c.primary}
        lines.append(json.dumps(row))
    p = tmp_path / "world.jsonl"
    p.write_text("\n".join(lines) + "\n\n")
    a, b = load_replay(xr_file), load_replay(p)
    for ra, rb in zip(a, b, strict=True):
        assert ra.t == rb.t
        assert_close(rb.frame.left.pose, ra.frame.left.pose, atol=1e-15, what="left pose")
        assert rb.frame.left.primary == ra.frame.left.primary


def test_poll_plays_each_due_row_once_against_the_callers_clock(xr_file):
    src = ReplayXrSource(xr_file)
    f0 = src.poll(100.0)  # the first poll starts the replay
    assert f0 is not None and f0.stamp_ns == 1 and f0.left.grip == 0.0
    assert src.poll(100.2) is None
    f1 = src.poll(100.5)
    assert f1.stamp_ns == 500_000_000 and f1.left.primary
    assert src.poll(100.7) is None and not src.finished
    assert src.poll(103.0).stamp_ns == 1_000_000_000
    assert src.finished and src.poll(104.0) is None
    assert src.received == 3


def test_a_late_poll_skips_to_the_latest_row(xr_file):
    src = ReplayXrSource(xr_file, start=0.0)
    assert src.poll(-1.0) is None  # before the start
    assert src.poll(0.9).stamp_ns == 500_000_000


def test_speed_and_loop(xr_file):
    src = ReplayXrSource(xr_file, loop=True, speed=2.0, start=0.0)
    assert src.period == 1.5
    stamps = [f.stamp_ns for t in np.arange(0.0, 1.6, 0.05) if (f := src.poll(t)) is not None]
    # at 2x: rows at 0, 0.25, 0.5 s; the next cycle starts at 0.75 s, the one after at 1.5 s
    assert stamps == [1, 5e8, 1e9, 15e8, 2e9, 25e9 / 10, 3e9]
    assert not src.finished


def test_factory_replay_and_demo(xr_file):
    with make_xr_source("replay", path=xr_file, loop=True) as s:
        assert isinstance(s, ReplayXrSource) and s.loop
    with make_xr_source("demo") as d:
        assert d.poll(0.0) is not None


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("rows: [{t: 0, left: {pose: [0,0,0,0,0,0,1], gripp: 1}}]", r"unknown key\(s\) 'gripp'.*"),
        ("rows: [{t: 0, left: {pose: [0,0,0,0,0,0,1], gripp: 1}}]", r"valid keys: pose, grip,"),
        ("rows: [{t: 0, lefty: {}}]", r"rows\[0\]: unknown key\(s\) 'lefty'; valid keys: t, left"),
        ("frame: xr\nrows: []\nextra: 1", r"unknown key\(s\) 'extra'; valid keys: frame, rows"),
        ("frame: robot\nrows: [{t: 0}]", r"frame must be one of xr, world, got 'robot'"),
        ("rows: []", "has no rows"),
        ("rows: 5", "'rows' must be a list"),
        ("5", "a replay file is a mapping"),
        ("rows: [{left: {pose: [0,0,0,0,0,0,1]}}]", r"rows\[0\]: missing key 't'"),
        ("rows: [{t: 0, left: {grip: 1}}]", r"rows\[0\].left: missing key 'pose'"),
        ("rows: [{t: 0, left: {pose: [1, 2]}}]", r"rows\[0\].*bad_pose"),
        ("rows: [{t: 0, left: {pose: [0,0,0,0,0,0,1], grip: 2}}]", r"left.grip must be in"),
        ("rows: [{t: 1}, {t: 0.5}]", r"rows\[1\]: t = 0.5 goes back from 1.0"),
        ("rows: [{t: -1}]", r"t must be in"),
        ("rows: [3]", "a row is a mapping"),
        ("rows: [{t: 0, left: 3}]", "expected a mapping"),
        ("rows: [{t: 0\n", "not valid YAML"),
    ],
)
def test_yaml_errors_name_the_problem(tmp_path, text, match):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_replay(p)


@pytest.mark.parametrize(
    ("lines", "match"),
    [
        (['{"frame": "world", "loop": 1}'], r"unknown key\(s\) 'loop'; valid keys: frame"),
        (['{"t": 0}', "{oops"], r"bad.jsonl:2: not a JSON object"),
        (['{"t": 0, "x": 1}'], r"bad.jsonl:1: unknown key\(s\) 'x'"),
        (['{"left": {"pose": [0,0,0,0,0,0,1]}}'], r"bad.jsonl:1: missing key 't'"),
    ],
)
def test_jsonl_errors_name_the_line(tmp_path, lines, match):
    p = tmp_path / "bad.jsonl"
    p.write_text("\n".join(lines))
    with pytest.raises(ConfigError, match=match):
        load_replay(p)


def test_file_errors(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_replay(tmp_path / "none.yaml")
    (tmp_path / "x.csv").write_text("t\n0\n")
    with pytest.raises(ConfigError, match=r"unknown suffix; use one of \.yaml"):
        load_replay(tmp_path / "x.csv")
    (tmp_path / "bin.yaml").write_bytes(b"\xff\xfe\xfa")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_replay(tmp_path / "bin.yaml")
    with pytest.raises(MjscopeError, match="speed must be > 0"):
        ReplayXrSource(demo_replay_path(), speed=0.0)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_jsonl_files_load_or_fail_with_config_error(tmp_path_factory, data):
    p = tmp_path_factory.mktemp("fz") / "f.jsonl"
    p.write_bytes(data)
    try:
        rows = load_replay(p)
    except ConfigError:
        return
    assert rows and all(r.t >= 0.0 for r in rows)


# --- the bundled demo ---------------------------------------------------------------------


def _series(rows, side, attr):
    return np.array([getattr(r.frame.side(side), attr) for r in rows])


def _presses(flags) -> int:
    return int(np.sum(np.diff(flags.astype(int)) == 1))


def test_demo_session_has_the_scripted_events():
    rows = load_replay(demo_replay_path())
    t = np.array([r.t for r in rows])
    grip_l, grip_r = _series(rows, "left", "grip"), _series(rows, "right", "grip")
    assert grip_l[0] == 0.0 and grip_l.max() == 1.0 and grip_r.max() == 1.0
    pos_l = np.array([r.frame.left.pose[:3] for r in rows])
    held = grip_l > 0.9
    travel = np.linalg.norm(pos_l[held] - pos_l[held][0], axis=1).max()
    assert 0.09 <= travel <= 0.12, travel  # ~10 cm while engaged
    q_r = np.array([r.frame.right.pose[3:] for r in rows])
    angle = 2 * np.degrees(np.arccos(np.clip(np.abs(q_r @ q_r[0]), 0, 1))).max()
    assert 20.0 <= angle <= 45.0, angle  # the right one rotates
    x, a = _series(rows, "left", "primary"), _series(rows, "right", "primary")
    assert _presses(x) == 1 and _presses(a) == 1
    assert np.all(grip_l[x] > 0.9)  # X with the grip held
    assert np.all(grip_r[a] == 0.0) and t[a].min() > t[grip_r > 0].max()  # A after release
    assert not _series(rows, "left", "secondary").any()
    assert 5 <= t[-1] <= 20
