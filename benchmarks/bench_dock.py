"""Docking loop speed: real-time factor of the 1 kHz CIC loop on ``iiwa14_docking``.

The loop (planner → CIC → friction feed-forward → limits → ``mj_step`` → probes → telemetry)
is timed over the scene's full approach and insertion. The ratio's base is a bare loop in the
same run that replays the recorded torques through ``mj_step`` on a fresh copy of the same
model (same trajectory, same contacts), so the ratio is the loop's cost per step over
MuJoCo's. Target: real-time factor ≥ 10 on a 2-core machine.
"""

from __future__ import annotations

import time
from typing import Any

import mujoco
import numpy as np

from mjscope.experiments.run_docking import run_simulation
from mjscope.experiments.scene import load_scene


def _bare_replay(model: mujoco.MjModel, q0: np.ndarray, taus: np.ndarray) -> float:
    """Seconds per ``mj_step`` replaying ``taus`` from ``q0``."""
    data = mujoco.MjData(model)
    data.qpos[:] = q0
    mujoco.mj_forward(model, data)
    start = time.perf_counter()
    for tau in taus:
        data.ctrl[:] = tau
        mujoco.mj_step(model, data)
    return (time.perf_counter() - start) / max(len(taus), 1)


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure the loop and the bare replay; return the bench rows."""
    scene = load_scene("iiwa14_docking")
    duration = 1.0 if quick else 4.0
    run_simulation(scene, "cic", duration=0.2)  # warm-up (imports, allocations)
    result = run_simulation(scene, "cic", duration=duration)
    arrays = result.log.arrays()
    model = scene.build_mjmodel()
    bare = _bare_replay(model, arrays["q"][0], arrays["tau"])
    per_step = result.wall_time / max(result.steps, 1)
    rtf = result.real_time_factor
    note = f"{result.steps} steps, peak contact {arrays['contact_force'].max():.1f} N"
    return [
        {"metric": "dock loop real-time factor (CIC, 1 kHz)", "value": rtf, "unit": "x",
         "ratio": per_step / bare, "target": ">= 10x real time", "note": note},
        {"metric": "dock loop cost per step", "value": per_step * 1e6, "unit": "us",
         "ratio": per_step / bare, "target": "",
         "note": f"bare mj_step replay {bare * 1e6:.1f} us"},
    ]  # fmt: skip


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
