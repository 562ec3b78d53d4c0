"""Teleop control-cycle cost, and the chain at 1 kHz per arm.

1. One control cycle for both arms (``Teleop.cycle``: XR poll → clutch → workspace and speed
   limits → Placo QP solve → joint speed/acceleration limits → mock adapter → publish
   ``joint_states`` + ``joint_target`` on the in-process bus), engaged every cycle on a scripted
   XR stream (a 10 cm circle with a slow turn), p50/p99 over the run. The ratio's base, measured
   in the same run: bare Placo solves of the same tasks (each arm's frame task set to the same
   targets, ``solve(True)`` + ``update_kinematics``), both arms. Target: cycle p99 ≤ 0.5 ms.
   Again with the mirror subscribed to both state topics: the in-process bus then deep-copies
   every message for its subscriber (the transport's cost, shown apart).
2. The chain at 1 kHz per arm on the wall clock (``Teleop.run``, both arms at
   ``control_rate_hz = 1000``): ticks, missed ticks (a deadline passed while the previous tick
   was still working), ticks whose work exceeded 1 ms. Target: no missed cycle.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from typing import Any

import numpy as np

from mjscope.bridge.messages import JointState
from mjscope.bridge.transport.base import Transport
from mjscope.bridge.transport.inproc import InprocTransport
from mjscope.rig import RigCfg, load_rig_cfg
from mjscope.teleop.build import build_arm, make_adapter
from mjscope.teleop.loop import Teleop
from mjscope.teleop.poses import Pose, pose_to_matrix
from mjscope.teleop.scripted import ScriptedXrSource, hold_pose
from mjscope.teleop.urdf import read_urdf
from mjscope.teleop.xr.base import XrFrame


def circle(t: float) -> XrFrame:
    """Both controllers on 10 cm circles, turning slowly, grips held."""
    w = 2 * np.pi * 0.5
    d = 0.05 * np.array([np.cos(w * t) - 1.0, np.sin(w * t), 0.5 * np.sin(2 * w * t)])
    h = 0.15 * np.sin(w * t)
    q = [np.cos(h), 0.0, 0.0, np.sin(h)]
    left = hold_pose([0.3 + d[0], 0.2 + d[1], 1.0 + d[2], *q])
    right = hold_pose([-0.3 - d[0], 0.2 + d[1], 1.0 + d[2], *q])
    return XrFrame(stamp_ns=0, left=left, right=right)


def _teleop(rig: RigCfg, bus: Transport) -> Teleop:
    root = read_urdf()
    arms = {n: build_arm(root, n, s, make_adapter("mock", n, s), bus) for n, s in rig.sides.items()}
    return Teleop(arms, ScriptedXrSource(circle))


def _subscribe(bus: Transport, rig: RigCfg) -> list[Any]:
    """Subscribers on the state topics, as the mirror has them."""
    return [bus.subscriber(s.state_topic, JointState, depth=10) for s in rig.sides.values()]


def _pct(x: list[float]) -> tuple[float, float]:
    p50, p99 = np.percentile(np.asarray(x) * 1e6, [50, 99])
    return float(p50), float(p99)


def _cycles(rig: RigCfg, n: int, mirror: bool) -> tuple[list[float], list[Any], int]:
    """Cycle times [s], each cycle's targets, and the engaged arm-cycles."""
    with InprocTransport() as bus:
        teleop = _teleop(rig, bus)
        subs = _subscribe(bus, rig) if mirror else []
        teleop.start(0.0)
        dt = min(a.dt for a in teleop.arms.values())
        times, targets = [], []
        for k in range(n):
            t0 = time.perf_counter()
            cycles = teleop.cycle(k * dt)
            times.append(time.perf_counter() - t0)
            targets.append({s: c.target for s, c in cycles.items()})
            if k % 5 == 0:
                for s in subs:
                    s.take()  # the mirror drains its queues at its own rate
        engaged = sum(a.stats.engaged_cycles for a in teleop.arms.values())
        teleop.close()
    return times[n // 10 :], targets[n // 10 :], engaged  # after the clutch engaged


def bench_cycle(quick: bool) -> list[dict[str, Any]]:
    rig = load_rig_cfg()
    n = 1500 if quick else 6000
    times, targets, engaged = _cycles(rig, n, mirror=False)
    b50, b99 = _pct(_bare_placo(rig, targets))
    c50, c99 = _pct(times)
    m50, m99 = _pct(_cycles(rig, n, mirror=True)[0])
    note = f"{engaged} engaged arm-cycles of {2 * n}; bare Placo p50 {b50:.1f} µs, p99 {b99:.1f} µs"
    return [
        {"metric": "teleop cycle p50 (both arms: clutch→limits→Placo→joint limits→publish)",
         "value": c50, "unit": "µs", "ratio": c50 / b50, "target": "", "note": note},
        {"metric": "teleop cycle p99 (both arms)", "value": c99, "unit": "µs",
         "ratio": c99 / b99, "target": "≤ 500 µs", "note": "ratio: against bare Placo p99"},
        {"metric": "teleop cycle p99, mirror subscribed (in-process bus)", "value": m99,
         "unit": "µs", "ratio": m99 / b99, "target": "",
         "note": f"p50 {m50:.0f} µs: the bus deep-copies each state message for its subscriber"},
    ]  # fmt: skip


def _bare_placo(rig: RigCfg, targets: list[dict[str, Pose | None]]) -> list[float]:
    """The same frame-task targets into fresh IK solvers: solve + update_kinematics only."""
    teleop = _teleop(rig, InprocTransport())
    iks = {s: a.ik for s, a in teleop.arms.items()}
    mats = [{s: pose_to_matrix(p) for s, p in row.items() if p is not None} for row in targets]
    out = []
    for row in mats:
        t0 = time.perf_counter()
        for s, T in row.items():
            ik = iks[s]
            ik._task.T_world_frame = T
            ik.solver.solve(True)
            ik.robot.update_kinematics()
        out.append(time.perf_counter() - t0)
    return out


def bench_1khz(quick: bool) -> list[dict[str, Any]]:
    base = load_rig_cfg()
    fast = {n: replace(s, control_rate_hz=1000.0) for n, s in base.sides.items()}
    rig = replace(base, sides=fast)
    duration = 1.5 if quick else 5.0
    with InprocTransport() as bus:
        teleop = _teleop(rig, bus)
        teleop.start(time.monotonic())
        st = teleop.run(duration)
        rate = min(a.stats.rate_hz() for a in teleop.arms.values())
        teleop.close()
    return [
        {"metric": "teleop at 1 kHz per arm: missed cycles", "value": st.missed, "unit": "cycles",
         "ratio": None, "target": "0",
         "note": f"{st.ticks} ticks in {st.duration_s:.1f} s ({rate:.0f} Hz per arm), "
                 f"{st.over_budget} over 1 ms, worst {st.worst_compute_s * 1e3:.2f} ms"},
    ]  # fmt: skip


def run(quick: bool = False) -> list[dict[str, Any]]:
    return bench_cycle(quick) + bench_1khz(quick)


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv):
        print(r)
