"""Soak: the mirror and the hand bridge under full-rate DDS traffic with a fault every second.

One process runs the mirror (``dual_rm75``) and the hand bridge (``g20_left``) on one Cyclone
DDS transport (loopback only), stepping both at 100 Hz. Separate processes publish: both arms'
``joint_states`` at 2×1 kHz, the hand's legacy commands at 1 kHz, and a raw RTPS writer
(:mod:`mjscope.bridge.transport.hostile`) that sends the faults. Every second one fault, in
turn: a name that is not UTF-8 (then a ``frame_id``), a truncated sample, NaN positions, wrong
joint names — each onto all three topics — and a publisher killed (SIGKILL, no goodbye) and
restarted (the arms, then the hand). Publishers count what they sent in shared memory and are
paused before a kill, so "sent" is exact.

Rows: RSS growth of the mirror + hand process (slope over the run after a warm-up,
extrapolated to 10 min; target < 1 MiB per 10 min) and its Python heap (allocated blocks: a
per-frame leak of mjscope's would show here); valid frames sent vs applied per consumer
(target: none lost); bad frames injected vs rejects counted by reason (target: every bad frame
that reaches the application counted; truncated ones Cyclone DDS drops itself, as malformed CDR,
before the application: listed, not countable).
"""

from __future__ import annotations

import gc
import json
import logging
import mmap
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from mjscope.bridge.transport.dds import DdsTransport
from mjscope.hand.bridge import TOPIC_CMD, HandBridge, HandBridgeCfg
from mjscope.hand.model import build_hand_model
from mjscope.hand.profile import load_profile
from mjscope.mirror.config import RenderCfg, load_rig_cfg
from mjscope.mirror.mirror import Mirror
from mjscope.models import load

RATE_HZ = 1000.0  # per published topic
STEP_HZ = 100.0  # mirror update and hand control step rate
WARMUP = 0.25  # share of the run before memory is measured
BAD_FAULTS = {  # fault → the reject reason a consumer counts (None: dropped by Cyclone DDS)
    "utf8_name": "undecodable",
    "truncated": None,
    "nan": "non_finite",
    "wrong_names": "unknown",
    "utf8_frame_id": "undecodable",
}
CYCLE = ["utf8_name", "truncated", "kill", "nan", "wrong_names", "utf8_frame_id"]

PUBLISHER = r"""
import math, mmap, struct, sys, time
from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.dds import DdsTransport
domain, rate, path, topics = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4:]
with open(path, "r+b") as f:
    shm = mmap.mmap(f.fileno(), 24)  # [sent, pause request, paused]
def names(tp):
    side = "left" if "left" in tp else "right"
    return [f"{side}_joint{i}" for i in range(1, 8)]
def frame(tp, k):
    if tp.endswith("control_cmd"):
        return JointState(Stamp.now(), "", [], [float((k + 13 * i) % 256) for i in range(20)])
    pos = [0.5 * math.sin(0.001 * k + i) for i in range(7)]
    return JointState(Stamp.now(), str(k), names(tp), pos)
with DdsTransport(domain, localhost_only=True) as t:
    pubs = [(tp, t.publisher(tp, JointState)) for tp in topics]
    while not all(p.subscriber_count() > 0 for _, p in pubs):
        time.sleep(0.01)
    time.sleep(0.5)  # the subscriber has matched us too
    k, t0 = 0, time.perf_counter()
    while True:
        if struct.unpack_from("<q", shm, 8)[0]:
            struct.pack_into("<q", shm, 16, 1)
            time.sleep(0.001)
            continue
        for tp, p in pubs:
            p.publish(frame(tp, k))
        k += 1
        struct.pack_into("<q", shm, 0, k)
        wait = t0 + k / rate - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
"""

INJECTOR = r"""
import json, sys, time
from mjscope.bridge.transport.hostile import RawRtpsWriter, hostile_samples
domain, spec = int(sys.argv[1]), json.loads(sys.argv[2])
writers = [(RawRtpsWriter(domain, "rt" + tp), hostile_samples(n)) for tp, n in spec.items()]
print("ready", flush=True)
for line in sys.stdin:
    kind = line.strip()
    for w, samples in writers:
        w.announce()
        if kind != "announce":
            w.write(samples[kind].data)
    print("done", flush=True)
"""


class _Publisher:
    """One publisher process at a time on some topics; counts survive kills and restarts."""

    def __init__(self, domain: int, topics: list[str], folder: Path) -> None:
        self.domain, self.topics, self.folder = domain, topics, folder
        self.sent_before = 0  # by processes killed so far (per topic)
        self.kills = 0
        self._start()

    def _start(self) -> None:
        path = self.folder / f"{self.topics[0].replace('/', '_')}-{self.kills}.shm"
        path.write_bytes(b"\0" * 24)
        with path.open("r+b") as f:
            self._shm = mmap.mmap(f.fileno(), 24)
        cmd = [sys.executable, "-c", PUBLISHER, str(self.domain), str(RATE_HZ), str(path)]
        self._proc = subprocess.Popen([*cmd, *self.topics], stdout=subprocess.DEVNULL)

    def _pause(self) -> int:
        """Stop publishing (between two frames); returns what this process sent."""
        struct.pack_into("<q", self._shm, 8, 1)
        deadline = time.monotonic() + 30.0
        while not struct.unpack_from("<q", self._shm, 16)[0] and self._proc.poll() is None:
            if time.monotonic() > deadline:
                break
            time.sleep(0.0005)
        return int(struct.unpack_from("<q", self._shm, 0)[0])

    def kill_and_restart(self) -> None:
        """Pause, SIGKILL (no DDS goodbye), start a fresh process."""
        self.sent_before += self._pause()
        self._proc.send_signal(signal.SIGKILL)
        self._proc.wait(timeout=10)
        self.kills += 1
        self._start()

    def stop(self) -> int:
        """Pause for good; returns frames sent per topic over all processes."""
        sent = self.sent_before + self._pause()
        return sent

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait(timeout=10)


def _blocks() -> int:
    """Python's allocated memory blocks after a full collection (no garbage counted)."""
    gc.collect()
    return sys.getallocatedblocks()


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class _Soak:
    """The consumers, the publishers, the injector and the bookkeeping of one soak run."""

    def __init__(self, domain: int, folder: Path) -> None:
        rig = load_rig_cfg()
        self.bus = DdsTransport(domain, localhost_only=True)
        model = load("dual_rm75")
        self.mirror = Mirror(model, mujoco.MjData(model), rig, RenderCfg(), self.bus)
        profile = load_profile()
        self.hand = HandBridge(build_hand_model("g20_left", profile), HandBridgeCfg(), self.bus)
        self.state_topics = [s.state_topic for s in rig.sides.values()]
        self.arms = _Publisher(domain, self.state_topics, folder)
        self.cmds = _Publisher(domain, [TOPIC_CMD], folder)
        spec = {s.state_topic: list(s.joint_names) for s in rig.sides.values()}
        spec[TOPIC_CMD] = [s.joint for s in profile.slots][:3]
        self.injector = subprocess.Popen(
            [sys.executable, "-c", INJECTOR, str(domain), json.dumps(spec)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.injected: Counter[str] = Counter()
        self.rss = np.zeros((0, 2))  # (t [s], RSS [MiB]) once a second; no objects per sample
        self._n_rss = 0
        self.blocks: list[tuple[float, int]] = []  # (t [s], Python blocks) after warm-up, end

    def tick(self) -> None:
        self.hand.step()
        self.mirror.update()

    def inject(self, kind: str) -> None:
        assert self.injector.stdin is not None and self.injector.stdout is not None
        self.injector.stdin.write(kind + "\n")
        self.injector.stdin.flush()
        self.injector.stdout.readline()
        if kind != "announce":
            self.injected[kind] += 1

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Until both publishers and the injector are matched on every topic."""
        assert self.injector.stdout is not None
        self.injector.stdout.readline()  # "ready"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.inject("announce")
            for _ in range(10):
                self.tick()
                time.sleep(1.0 / STEP_HZ)
            pubs = [s.stats.publishers for s in self.mirror.sides.values()]
            assert self.hand._sub is not None
            pubs.append(self.hand._sub.publisher_count())
            if min(pubs) >= 2 and self.mirror.ready and self.hand.commands_applied > 0:
                return
        raise RuntimeError("soak: publishers not matched in time")

    def run(self, duration: float) -> None:
        self.rss = np.zeros((int(duration) + 2, 2))
        period, t0 = 1.0 / STEP_HZ, time.monotonic()
        k, fault_at, n_fault = 0, t0 + 0.5, 0
        while (now := time.monotonic()) - t0 < duration:
            self.tick()
            if now >= fault_at:
                self.fault(CYCLE[n_fault % len(CYCLE)], n_fault // len(CYCLE))
                n_fault, fault_at = n_fault + 1, fault_at + 1.0
                if self._n_rss < len(self.rss):
                    self.rss[self._n_rss] = now - t0, _rss_mib()
                    self._n_rss += 1
            if not self.blocks and now - t0 >= WARMUP * duration:
                self.blocks.append((now - t0, _blocks()))
            k += 1
            time.sleep(max(0.0, t0 + k * period - time.monotonic()))
        self.blocks.append((time.monotonic() - t0, _blocks()))

    def fault(self, kind: str, round_: int) -> None:
        if kind == "kill":
            (self.arms if round_ % 2 == 0 else self.cmds).kill_and_restart()
        else:
            self.inject(kind)

    def finish(self) -> tuple[int, int]:
        """Stop the publishers, drain what is in flight; frames sent per arm topic, commands."""
        sent = self.arms.stop(), self.cmds.stop()
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            self.tick()
            time.sleep(1.0 / STEP_HZ)
        return sent

    def close(self) -> None:
        for p in (self.arms, self.cmds):
            p.close()
        if self.injector.stdin is not None:
            self.injector.stdin.close()
        self.injector.wait(timeout=10)
        self.hand.close()
        self.bus.close()


def _slope(t: np.ndarray, y: np.ndarray) -> float:
    return float(np.polyfit(t, y, 1)[0]) if len(t) > 1 and np.ptp(t) > 0 else 0.0


def _memory_rows(soak: _Soak, duration: float) -> list[dict[str, Any]]:
    """RSS (slope) and Python heap growth after the warm-up, extrapolated to 10 min."""
    rss = soak.rss[: soak._n_rss]
    rss = rss[rss[:, 0] >= WARMUP * duration] if len(rss) > 3 else np.zeros((2, 2))
    t, mib = rss.T
    (t0, b0), (t1, b1) = soak.blocks[0], soak.blocks[-1]
    per_10min = 600.0 / max(t1 - t0, 1e-9)
    short = "too short a run to extrapolate; " if t1 - t0 < 20.0 else ""
    return [
        {
            "metric": "soak RSS growth (mirror + hand bridge process)",
            "value": _slope(t, mib) * 600.0,
            "unit": "MiB/10 min",
            "ratio": None,
            "target": "< 1 MiB/10 min",
            "met": bool(_slope(t, mib) * 600.0 < 1.0),
            "note": f"{short}RSS {mib[0]:.2f} → {mib[-1]:.2f} MiB over {t[-1] - t[0]:.0f} s after "
            f"warm-up, linear fit of {len(t)} samples; includes Cyclone DDS's receive buffer "
            "(1 MiB, filled a few bytes per sample, then recycled: a sawtooth)",
        },
        {
            "metric": "soak Python heap growth per 1000 frames received (allocated blocks)",
            "value": (b1 - b0) / max(1.0, 3 * RATE_HZ * (t1 - t0) / 1000.0),
            "unit": "blocks",
            "ratio": None,
            "target": "< 10 (one object leaked per frame: 1000)",
            "met": bool((b1 - b0) / max(1.0, 3 * RATE_HZ * (t1 - t0) / 1000.0) < 10),
            "note": f"{short}{b0} → {b1} blocks over {t1 - t0:.0f} s (after gc), "
            f"{(b1 - b0) * per_10min:+.0f} blocks per 10 min",
        },
    ]


def _loss_row(what: str, sent: int, applied: int) -> dict[str, Any]:
    return {
        "metric": f"soak valid frames lost: {what}",
        "value": sent - applied,
        "unit": "frames",
        "ratio": None,
        "target": "0",
        "met": sent == applied,
        "note": f"sent {sent}, applied {applied}",
    }


def _reject_row(what: str, counted: dict[str, int], injected: Counter[str]) -> dict[str, Any]:
    want: Counter[str] = Counter()
    for kind, n in injected.items():
        reason = BAD_FAULTS[kind]
        if reason is not None:
            want[reason] += n
    missed = sum((want - Counter(counted)).values()) + sum((Counter(counted) - want).values())
    dropped = sum(n for k, n in injected.items() if BAD_FAULTS[k] is None)
    return {
        "metric": f"soak bad frames not counted as injected: {what}",
        "value": missed,
        "unit": "frames",
        "ratio": None,
        "target": "0",
        "met": missed == 0,
        "note": f"counted {dict(sorted(counted.items()))} vs expected {dict(sorted(want.items()))}"
        f"; {dropped} truncated dropped by Cyclone DDS as malformed CDR (not countable)",
    }


def run(quick: bool = False, duration: float | None = None) -> list[dict[str, Any]]:
    """Run the soak for ``duration`` [s] (default 20 s, quick 5 s) and return its rows."""
    duration = duration if duration is not None else (5.0 if quick else 20.0)
    domain = 100 + (os.getpid() + 31) % 100  # away from 0 and from bench_mirror's domain
    log = logging.getLogger("mjscope")
    level = log.level
    log.setLevel(logging.ERROR)  # the faults are meant: no reject/publisher warnings
    try:
        with tempfile.TemporaryDirectory() as tmp:
            soak = _Soak(domain, Path(tmp))
            try:
                soak.wait_ready()
                soak.run(duration)
                sent_arm, sent_cmd = soak.finish()
            finally:
                soak.close()
    finally:
        log.setLevel(level)
    sides = soak.mirror.sides
    rows = _memory_rows(soak, duration)
    rows += [_loss_row(f"mirror {n} (1 kHz)", sent_arm, s.stats.valid) for n, s in sides.items()]
    rows.append(_loss_row("hand commands (1 kHz)", sent_cmd, soak.hand.commands_applied))
    bad = Counter({k: n for k, n in soak.injected.items() if k in BAD_FAULTS})
    for n, s in sides.items():
        rows.append(_reject_row(f"mirror {n}", s.stats.rejects.as_dict(), bad))
    rows.append(_reject_row("hand", soak.hand.rejects.as_dict(), bad))
    kills = soak.arms.kills + soak.cmds.kills
    rows.append(
        {
            "metric": "soak publishers killed and restarted",
            "value": kills,
            "unit": "kills",
            "ratio": None,
            "target": "",
            "note": f"arms {soak.arms.kills}, hand commands {soak.cmds.kills}; run {duration:g} s, "
            f"{sum(bad.values())} bad frames on each of 3 topics",
        }
    )
    return rows


if __name__ == "__main__":
    dur = next((float(a.split("=", 1)[1]) for a in sys.argv if a.startswith("--duration=")), None)
    for r in run(quick="--quick" in sys.argv, duration=dur):
        print(r)
