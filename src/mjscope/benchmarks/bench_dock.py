"""Docking loop speed: real-time factor of the 1 kHz loop on ``iiwa14_docking``, per controller.

CIC and the SE(3) Lie-group impedance ``se3_lie`` are timed alike. The loop (planner →
controller → friction feed-forward → limits → ``mj_step`` → probes → telemetry)
is timed over the scene's approach and insertion. The ratio's base is a bare loop in the same
run that replays the recorded torques through ``mj_step`` on a fresh copy of the same model
(same trajectory, same contacts), so the ratio is the loop's cost per step over MuJoCo's.
Each repeat times the loop and its bare replay back to back; the figures are medians over the
repeats (robust on a shared, noisy machine), with the spread in the note. Target: real-time
factor ≥ 10 on a 2-core machine.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import mujoco
import numpy as np

from mjscope.dock.loop import RunResult
from mjscope.dock.run_docking import run_simulation
from mjscope.dock.scene import Scene, load_scene


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


CONTROLLERS = ("cic", "se3_lie")
LABELS = {"cic": "CIC", "se3_lie": "se3_lie"}


def _repeat(scene: Scene, controller: str, duration: float) -> tuple[RunResult, float, float]:
    """One loop run and its bare replay: (result, loop s/step, bare s/step)."""
    result = run_simulation(scene, controller, duration=duration)
    arrays = result.log.arrays()
    bare = _bare_replay(scene.build_mjmodel(), arrays["q"][0], arrays["tau"])
    return result, result.wall_time / max(result.steps, 1), bare


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure the loop and the bare replay for each controller; return the bench rows."""
    scene = load_scene("iiwa14_docking")
    duration, repeats = (1.0, 3) if quick else (4.0, 5)
    rows: list[dict[str, Any]] = []
    for controller in CONTROLLERS:
        rows += _rows(scene, controller, duration, repeats)
    return rows


def _rows(scene: Scene, controller: str, duration: float, repeats: int) -> list[dict[str, Any]]:
    """The real-time factor and cost-per-step rows of one controller."""
    run_simulation(scene, controller, duration=0.2)  # warm-up (imports, allocations)
    runs = [_repeat(scene, controller, duration) for _ in range(repeats)]
    result = runs[-1][0]
    per_step = statistics.median(r[1] for r in runs)
    bare = statistics.median(r[2] for r in runs)
    ratio = statistics.median(r[1] / r[2] for r in runs)
    rtf = result.scene.cfg.control_period / per_step
    rtfs = sorted(result.scene.cfg.control_period / r[1] for r in runs)
    peak = result.log.arrays()["contact_force"].max()
    spread = f"median of {repeats} ({rtfs[0]:.1f}-{rtfs[-1]:.1f}x)"
    note = f"{result.steps} steps, {peak:.1f} N peak; {spread}"
    return [
        {"metric": f"dock loop real-time factor ({LABELS[controller]}, 1 kHz)", "value": rtf,
         "unit": "x", "ratio": ratio, "target": ">= 10x real time", "note": note},
        {"metric": f"dock loop cost per step ({LABELS[controller]})", "value": per_step * 1e6,
         "unit": "us", "ratio": ratio, "target": "",
         "note": f"bare mj_step replay {bare * 1e6:.1f} us"},
    ]  # fmt: skip


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
