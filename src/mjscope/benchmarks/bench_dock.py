"""Docking loop speed: real-time factor of the 1 kHz loop on ``iiwa14_docking``, per controller.

CIC, the SE(3) Lie-group impedance ``se3_lie`` and the HQP ``hqp`` are timed alike; ``hqp``
runs with ``force_source: observer`` here, so its loop holds both QPs and the momentum
observer (and its per-step ``known_dissipation`` read). The loop (planner →
controller → friction feed-forward → limits → ``mj_step`` → probes → telemetry)
is timed over the scene's approach and insertion. The ratio's base is a bare loop in the same
run that replays the recorded torques through ``mj_step`` on a fresh copy of the same model
(same trajectory, same contacts), so the ratio is the loop's cost per step over MuJoCo's.
Each repeat times the loop and its bare replay back to back; the figures are medians over the
repeats (robust on a shared, noisy machine), with the spread in the note. Target: real-time
factor ≥ 10 on a 2-core machine (``hqp``: ≥ 8).

The ``hqp`` split (dynamics, QP level 1, level 2, observer, ``mj_step``) is measured apart
from the timed loop, so its timers cost the real-time factor nothing: the QP and observer calls
are timed by wrapping the controller's solver and observer methods in one extra, separately run
loop; the controller's own rigid-body terms (frame Jacobian and its derivative: ``M`` and ``h``
come from the observer, which was just updated at the same state, so the observer row holds
``crba``, the Coriolis matrix and gravity) and the bare ``mj_step`` by replaying the recorded
states.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Callable
from typing import Any

import mujoco
import numpy as np
import pinocchio as pin

from mjscope.control.controllers import Controller, HqpController
from mjscope.dock.loop import RunResult
from mjscope.dock.run_docking import build_hqp, run_simulation
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


CONTROLLERS = ("cic", "se3_lie", "hqp")
LABELS = {"cic": "CIC", "se3_lie": "se3_lie", "hqp": "hqp, 2 QPs + observer"}
TARGETS = {"cic": ">= 10x real time", "se3_lie": ">= 10x real time", "hqp": ">= 8x real time"}


def observer_scene(scene: Scene) -> Scene:
    """``scene`` with ``hqp.force_source: observer`` (the HQP's full per-step work)."""
    c = scene.cfg.controller
    hqp = dataclasses.replace(c.hqp, force_source="observer")
    cfg = dataclasses.replace(scene.cfg, controller=dataclasses.replace(c, hqp=hqp))
    return Scene(cfg, scene.path)


def _repeat(scene: Scene, controller: str, duration: float) -> tuple[RunResult, float, float]:
    """One loop run and its bare replay: (result, loop s/step, bare s/step)."""
    if controller == "hqp":
        scene = observer_scene(scene)
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
    return rows + _hqp_split(scene, duration)


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
         "unit": "x", "ratio": ratio, "target": TARGETS[controller], "note": note},
        {"metric": f"dock loop cost per step ({LABELS[controller]})", "value": per_step * 1e6,
         "unit": "us", "ratio": ratio, "target": "",
         "note": f"bare mj_step replay {bare * 1e6:.1f} us"},
    ]  # fmt: skip


def _timed(fn: Callable[..., Any], acc: list[float]) -> Callable[..., Any]:
    """``fn`` with its wall time added to ``acc[0]`` at each call."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        acc[0] += time.perf_counter() - t0
        return out

    return wrapper


def _hqp_split(scene: Scene, duration: float) -> list[dict[str, Any]]:
    """Per-step split of the ``hqp`` loop [µs]: dynamics, QP 1, QP 2, observer, step, the rest."""
    sc = observer_scene(scene)
    acc = {k: [0.0] for k in ("qp1", "qp2", "observer")}
    holder: list[HqpController] = []

    def factory(s: Scene, pm: pin.Model, q0: np.ndarray) -> Controller:
        ctrl = build_hqp(s, pm, q0)
        assert isinstance(ctrl, HqpController) and ctrl.observer is not None
        ctrl._qp1.solve = _timed(ctrl._qp1.solve, acc["qp1"])  # type: ignore[method-assign]
        ctrl._qp2.solve = _timed(ctrl._qp2.solve, acc["qp2"])  # type: ignore[method-assign]
        ctrl.observe = _timed(ctrl.observe, acc["observer"])  # type: ignore[method-assign]
        holder.append(ctrl)
        return ctrl

    result = run_simulation(sc, factory, duration=duration)
    a, n = result.log.arrays(), max(result.steps, 1)
    us = {k: v[0] / n * 1e6 for k, v in acc.items()}
    us["dynamics"] = _dynamics_replay(holder[0], a["q"], a["v"]) * 1e6
    us["step"] = _bare_replay(sc.build_mjmodel(), a["q"][0], a["tau"]) * 1e6
    total = result.wall_time / n * 1e6
    us["rest"] = total - sum(us.values())
    parts = ", ".join(f"{k} {us[k]:.1f}" for k in ("dynamics", "qp1", "qp2", "observer", "step"))
    return [
        {"metric": f"hqp split: {label}", "value": us[key], "unit": "us",
         "ratio": us[key] / us["step"], "target": "",
         "note": f"of {total:.1f} us/step (timers on); {parts}, rest {us['rest']:.1f}"
         if key == "dynamics" else "ratio: over the bare mj_step"}
        for key, label in (("dynamics", "dynamics (J, dJ; M, h from the observer)"),
                           ("qp1", "QP level 1"), ("qp2", "QP level 2"),
                           ("observer", "observer update (M, C, g)"),
                           ("step", "mj_step"), ("rest", "rest of the loop"))
    ]  # fmt: skip


def _dynamics_replay(ctrl: HqpController, qs: np.ndarray, vs: np.ndarray) -> float:
    """Seconds per step of the controller's own rigid-body terms (J, J̇) over the states."""
    m, d, fid, lwa = ctrl.model, ctrl.model.createData(), ctrl.fid, pin.LOCAL_WORLD_ALIGNED
    start = time.perf_counter()
    for q, v in zip(qs, vs, strict=True):
        pin.computeJointJacobiansTimeVariation(m, d, q, v)
        pin.updateFramePlacement(m, d, fid)
        pin.getFrameJacobian(m, d, fid, lwa)
        pin.getFrameJacobianTimeVariation(m, d, fid, lwa)
    return (time.perf_counter() - start) / max(len(qs), 1)


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
