"""``mjscope mirror`` and ``mjscope hand`` as processes, fed hostile samples over DDS.

The symptom this guards against: one DDS sample whose name was not UTF-8 ended either command
with a traceback and no report. Here each command runs as a user starts it (loopback only via
``ROS_LOCALHOST_ONLY=1``), a raw RTPS writer sends valid frames with every kind of hostile
sample between them, and the command must finish normally and report each reject by reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mjscope.bridge.transport.hostile import RawRtpsWriter, encode_joint_state, hostile_samples
from mjscope.hand.bridge import TOPIC_CMD, HandBridge, HandBridgeCfg
from mjscope.hand.model import build_hand_model
from mjscope.hand.profile import load_profile
from mjscope.mirror.config import load_rig_cfg

DOMAIN = 101 + (os.getpid() + 89) % 120  # one domain per test run; never the default 0
DISCOVERY_S = 2.0  # announce this long before sending: loopback discovery takes ~0.2 s
GAP_S = 0.05  # between two samples [s]
EXPECTED = {"non_finite": 1, "too_large": 1, "undecodable": 2, "unknown": 1}


def start(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "ROS_LOCALHOST_ONLY": "1", "MUJOCO_GL": "egl"}
    env.pop("CYCLONEDDS_URI", None)
    return subprocess.Popen(
        [sys.executable, "-m", "mjscope", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def wait_line(p: subprocess.Popen, text: str) -> None:
    assert p.stdout is not None
    for line in p.stdout:
        if text in line:
            return
    pytest.fail(f"{text!r} never printed; stderr: {p.stderr.read() if p.stderr else ''}")


def announce(*writers: RawRtpsWriter) -> None:
    end = time.monotonic() + DISCOVERY_S
    while time.monotonic() < end:
        for w in writers:
            w.announce()
        time.sleep(0.1)


def finish(p: subprocess.Popen) -> tuple[str, str]:
    out, err = p.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert p.returncode == 0, out + err
    return out, err


def test_mirror_process_counts_hostile_samples_and_writes_its_report(tmp_path: Path) -> None:
    rig = load_rig_cfg()
    left, right = (rig.sides[s] for s in ("left", "right"))
    samples = hostile_samples(list(left.joint_names))
    rep = tmp_path / "r.json"
    bus = ["--transport", "dds", "--domain-id", str(DOMAIN), "--duration", "8"]
    p = start(["mirror", *bus, "--viewer", "none", "--report", str(rep)])
    try:
        wait_line(p, "mirroring")
        with (
            RawRtpsWriter(DOMAIN, "rt" + left.state_topic) as wl,
            RawRtpsWriter(DOMAIN, "rt" + right.state_topic) as wr,
        ):
            announce(wl, wr)
            wr.write(encode_joint_state([n.encode() for n in right.joint_names], [-0.2] * 7))
            last: list[float] = []
            for k, kind in enumerate(["warmup", *samples]):
                if kind != "warmup":
                    wl.write(samples[kind].data)
                    time.sleep(GAP_S)
                last = [0.01 * k + 0.001 * i for i in range(7)]
                wl.write(encode_joint_state([n.encode() for n in left.joint_names], last))
                time.sleep(GAP_S)
    finally:
        out, _ = finish(p)
    report = json.loads(rep.read_text())
    t = report["topics"][left.state_topic]
    assert t["rejected_by_reason"] == EXPECTED, out
    assert t["valid"] == len(samples) + 1 and t["received"] == t["valid"] + sum(EXPECTED.values())
    got = [report["joint_positions_rad"][n] for n in left.joint_names]
    assert got == pytest.approx(last, abs=1e-12)
    assert "undecodable 2" in out or "'undecodable': 2" in out  # the summary says it too


def test_hand_process_counts_hostile_commands_and_writes_its_report(tmp_path: Path) -> None:
    profile = load_profile()
    samples = hostile_samples([s.joint for s in profile.slots][:3])
    rep = tmp_path / "r.json"
    bus = ["--transport", "dds", "--domain-id", str(DOMAIN), "--duration", "8"]
    p = start(["hand", *bus, "--report", str(rep)])
    raw = [128.0] * 20
    try:
        wait_line(p, "listening on")
        with RawRtpsWriter(DOMAIN, "rt" + TOPIC_CMD) as w:
            announce(w)
            for kind in ["warmup", *samples]:
                if kind != "warmup":
                    w.write(samples[kind].data)
                    time.sleep(GAP_S)
                w.write(encode_joint_state([], raw))
                time.sleep(GAP_S)
    finally:
        out, _ = finish(p)
    report = json.loads(rep.read_text())
    assert report["rejected"] == EXPECTED, out
    assert report["recoveries"] == 0
    ref = HandBridge(build_hand_model("g20_left", profile), HandBridgeCfg(slew_rad_s=0.0))
    ref.command_sdk(raw)
    ref.step()  # the same goal, reached at once, with the same projection
    for j, q in ref.positions().items():
        assert report["applied"][j] == pytest.approx(q, abs=2e-3), j
