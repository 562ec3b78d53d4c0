"""Hand bridge: command → applied pose (hard-write + projection) and PD real-time factor.

Per command: ``command_sdk`` + one control step (slew, penetration projection, ``qpos``,
``mj_forward``) on the bundled ``g20_left`` with every link colliding; seeded random commands
mixed with open/fist. Two cases: the default slew (5 rad/s: small moves each step) and instant
jumps (slew 0: whole-path sweeps, the worst case). The ratio is against a bare ``mj_forward`` of
the same model timed in the same run. Each command's latency is the minimum over identical
replays of the sequence, in thread CPU time (the work is deterministic; CPU time and the
minimum remove scheduler noise on a shared machine). PD: control steps (5 ``mj_step`` each) of
the track-test pattern, as simulated time over wall time.
"""

from __future__ import annotations

import time
from typing import Any

import mujoco
import numpy as np

from mjscope.hand.bridge import HandBridge, HandBridgeCfg
from mjscope.hand.model import build_hand_model
from mjscope.hand.profile import load_profile
from mjscope.hand.track import HALF_GRIP


def _commands(n: int, profile: Any) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    fixed = [np.array(profile.open_command, float), np.array(profile.fist_command, float)]
    return [fixed[i % 2] if i % 4 < 2 else rng.uniform(0, 255, 20) for i in range(n)]


def _latencies(slew: float, n: int, replays: int) -> np.ndarray:
    """Per-command latency [s], the minimum over identical replays (scheduler noise removed)."""
    profile = load_profile()
    hand = build_hand_model("g20_left", profile, collide_all=True)
    cmds = _commands(n, profile)
    best = np.full(n, np.inf)
    for _ in range(replays):  # same commands from the same start: the same work each replay
        bridge = HandBridge(hand, HandBridgeCfg(slew_rad_s=slew))
        for i, cmd in enumerate(cmds):
            t0 = time.thread_time()
            bridge.command_sdk(cmd)
            bridge.apply_targets()
            best[i] = min(best[i], time.thread_time() - t0)
    return best


def _bare_forward(n: int, replays: int) -> np.ndarray:
    hand = build_hand_model("g20_left", load_profile(), collide_all=True)
    m, d = hand.model, mujoco.MjData(hand.model)
    qs = np.random.default_rng(1).uniform(m.jnt_range[:, 0], m.jnt_range[:, 1], (n, m.nq))
    best = np.full(n, np.inf)
    for _ in range(replays):
        for i in range(n):
            d.qpos[:] = qs[i]
            t0 = time.thread_time()
            mujoco.mj_forward(m, d)
            best[i] = min(best[i], time.thread_time() - t0)
    return best


def _pd_rtf(steps: int) -> tuple[float, float]:
    profile = load_profile()
    hand = build_hand_model("g20_left", profile, pd=True, gravity=True)
    bridge = HandBridge(hand, HandBridgeCfg(pd_drive=True))
    m, d = hand.model, mujoco.MjData(hand.model)
    t0 = time.perf_counter()
    for i in range(steps):
        if i % 160 == 0:
            bridge.command_sdk(profile.open_command if (i // 160) % 2 == 0 else HALF_GRIP)
        bridge.step()
    wall = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(steps * bridge._substeps):
        mujoco.mj_step(m, d)
    bare = time.perf_counter() - t0
    return bridge.time / wall, wall / bare


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure and return the rows."""
    n, replays = (400, 2) if quick else (2000, 3)
    bare = _bare_forward(n, replays)
    bare50 = float(np.percentile(bare, 50))
    rows: list[dict[str, Any]] = [
        {"metric": "bare mj_forward p50", "value": bare50 * 1e6, "unit": "µs", "ratio": 1.0}
    ]
    for slew, label in ((5.0, "slew 5 rad/s"), (0.0, "instant (slew 0)")):
        lat = _latencies(slew, n, replays)
        for pct in (50, 99):
            v = float(np.percentile(lat, pct))
            rows.append(
                {
                    "metric": f"command→applied p{pct}, {label}",
                    "value": v * 1e3,
                    "unit": "ms",
                    "ratio": v / bare50,
                    "target": "p99 ≤ 1 ms" if pct == 99 else "",
                    "met": bool(v <= 1e-3) if pct == 99 else None,
                    "note": "hard-write + projection, all links collide",
                }
            )
    rtf, ratio = _pd_rtf(240 if quick else 2400)
    rows.append(
        {
            "metric": "PD real-time factor",
            "value": rtf,
            "unit": "x",
            "ratio": ratio,
            "target": "≥ 1",
            "met": bool(rtf >= 1.0),
            "note": "sim time / wall; ratio: bridge wall / bare mj_step wall",
        }
    )
    return rows
