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

**The peer** is what a user would write instead: a ``kevinzakka/mjctrl``-style
operational-space loop (``opspace.py``) in pure MuJoCo on the same iiwa14 scene — ``mj_jacSite``,
``mj_solveM`` for M⁻¹, ``Λ = (J M⁻¹ Jᵀ)⁻¹`` by ``np.linalg.inv``, the quaternion error by
``mju_mulQuat``/``mju_quat2Vel``, a null-space posture, ``qfrc_bias``, clipping, ``mj_step`` —
following the scene's reference in free space, without telemetry. It runs in the same rounds,
interleaved with ours (round r: peer, cic, se3_lie, hqp), and each controller's cost per step
is reported over the peer's of the same round (median over rounds). Targets: CIC ≤ 0.6×,
se3_lie ≤ 0.8×, hqp ≤ 1.3× the peer, with everything on (tool-load compensation, limit checks,
telemetry). The quick form runs 3.2 s, past contact onset (≈ 2.94 s), so it times contact too.
The loop timed is the one users get: the compiled one (:mod:`mjscope.dock.native_loop`) where it
was built, the Python one under ``MJSCOPE_DOCK_KERNEL=python`` (same telemetry, bit for bit).

The ``hqp`` split (dynamics, QP level 1, level 2, observer, ``mj_step``) is measured apart
from the timed loop, so its timers cost the real-time factor nothing: the levels (assembly and
solve: the compiled law, ``control/controllers/_hqp.c``, does both without ``DenseQp.solve``)
and the observer are timed by wrapping the controller's level and observer methods in one
extra, separately run loop; the controller's own rigid-body terms (the frame's Jacobian and
its derivative read from the joint Jacobians the observer's pass left; ``M`` and ``h`` come
from the observer too, which was just updated at the same state, so the observer row holds
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
PEER_TARGETS = {"cic": 0.6, "se3_lie": 0.8, "hqp": 1.3}  # cost per step over the peer's
PEER_TIME = 2.5  # the peer runs the scene's free-space part [s]


def _peer_step_cost(scene: Scene, duration: float) -> float:
    """Seconds per step of the mjctrl-style operational-space loop (module docstring)."""
    from mjscope.dock.run_docking import build_reference

    model = scene.build_mjmodel()
    data = mujoco.MjData(model)
    q0 = scene.initial_q(model)
    data.qpos[:] = q0
    mujoco.mj_forward(model, data)
    site = model.site("eef").id
    ad = build_reference(scene, data.site_xpos[site].copy(), data.site_xmat[site].reshape(3, 3))
    n = round(min(duration, PEER_TIME) / scene.cfg.control_period)
    refs = ad.batch(np.arange(n) * scene.cfg.control_period)
    targets_p = [r.pos for r in refs]
    targets_q = []
    for r in refs:
        quat = np.zeros(4)
        mujoco.mju_mat2Quat(quat, r.rot.ravel())
        targets_q.append(quat)
    kp = np.array([900.0, 900.0, 400.0, 900.0, 900.0, 900.0])  # the scene's, as 1/s²
    kd = 2.0 * np.sqrt(kp)
    kp_null, kd_null = 10.0, 2.0
    nv = model.nv
    # As opspace.py: joints and actuators by name, the site through its named accessor.
    dof_ids = np.array([model.jnt_dofadr[model.joint(f"joint{i}").id] for i in range(1, 8)])
    actuator_ids = np.array([model.actuator(f"motor{i}").id for i in range(1, 8)])
    jac, M_inv = np.zeros((6, nv)), np.zeros((nv, nv))
    twist, sq, sqc, err = np.zeros(6), np.zeros(4), np.zeros(4), np.zeros(4)
    target_pos, target_quat = np.zeros(3), np.zeros(4)  # its mocap target, moved per step
    start = time.perf_counter()
    for k in range(n):
        target_pos[:], target_quat[:] = targets_p[k], targets_q[k]
        dx = target_pos - data.site(site).xpos
        twist[:3] = dx
        mujoco.mju_mat2Quat(sq, data.site(site).xmat)
        mujoco.mju_negQuat(sqc, sq)
        mujoco.mju_mulQuat(err, target_quat, sqc)
        mujoco.mju_quat2Vel(twist[3:], err, 1.0)
        mujoco.mj_jacSite(model, data, jac[:3], jac[3:], site)
        mujoco.mj_solveM(model, data, M_inv, np.eye(nv))
        Mx_inv = jac @ M_inv @ jac.T
        if abs(np.linalg.det(Mx_inv)) >= 1e-2:
            Mx = np.linalg.inv(Mx_inv)
        else:
            Mx = np.linalg.pinv(Mx_inv, rcond=1e-2)
        tau = jac.T @ Mx @ (kp * twist - kd * (jac @ data.qvel[dof_ids]))
        Jbar = M_inv @ jac.T @ Mx
        ddq = kp_null * (q0 - data.qpos[dof_ids]) - kd_null * data.qvel[dof_ids]
        tau += (np.eye(nv) - jac.T @ Jbar.T) @ ddq
        tau += data.qfrc_bias[dof_ids]
        lo, hi = model.actuator_ctrlrange.T  # (opspace.py: np.clip(tau, *ctrlrange.T))
        np.clip(tau, lo, hi, out=tau)
        data.ctrl[actuator_ids] = tau[actuator_ids]
        mujoco.mj_step(model, data)
    return (time.perf_counter() - start) / max(n, 1)


LABELS = {"cic": "CIC", "se3_lie": "se3_lie", "hqp": "hqp, 2 QPs + observer"}
RTF_TARGETS = {"cic": 10.0, "se3_lie": 10.0, "hqp": 8.0}  # real-time factor at 1 kHz, at least


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
    duration, repeats = (3.2, 2) if quick else (4.0, 5)
    for controller in CONTROLLERS:
        run_simulation(scene, controller, duration=0.2)  # warm-up (imports, allocations)
    _peer_step_cost(scene, 0.2)
    runs: dict[str, list[tuple[RunResult, float, float]]] = {c: [] for c in CONTROLLERS}
    peer: list[float] = []
    for _ in range(repeats):  # interleaved rounds: the peer, then each controller
        peer.append(_peer_step_cost(scene, duration))
        for controller in CONTROLLERS:
            runs[controller].append(_repeat(scene, controller, duration))
    rows = _peer_rows(peer, runs)
    for controller in CONTROLLERS:
        rows += _rows(controller, runs[controller], repeats)
    return rows + _hqp_split(scene, duration)


def _peer_rows(
    peer: list[float], runs: dict[str, list[tuple[RunResult, float, float]]]
) -> list[dict[str, Any]]:
    """The peer's cost per step and each controller's ratio to it (same rounds)."""
    bare = statistics.median(r[2] for r in runs["cic"])
    p = statistics.median(peer)
    rows = [{"metric": "peer: mjctrl-style OSC, pure MuJoCo (free space, no telemetry)",
             "value": p * 1e6, "unit": "us", "ratio": p / bare, "target": "",
             "note": f"per step; median of {len(peer)} rounds, interleaved with ours"}]  # fmt: skip
    for c in CONTROLLERS:
        ratio = statistics.median(r[1] / pk for r, pk in zip(runs[c], peer, strict=True))
        goal = PEER_TARGETS[c]
        mark = "" if ratio <= goal else " MISS"
        rows.append({"metric": f"dock loop vs the peer ({LABELS[c]})", "value": ratio,
                     "unit": "x peer", "ratio": ratio * p / bare,
                     "target": f"<= {goal:g}x peer{mark}",
                     "note": "per step over the peer's (same round); vs bare: ours"})  # fmt: skip
    return rows


def _rows(
    controller: str, runs: list[tuple[RunResult, float, float]], repeats: int
) -> list[dict[str, Any]]:
    """The real-time factor and cost-per-step rows of one controller."""
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
         "unit": "x", "ratio": ratio, "target": f">= {RTF_TARGETS[controller]:g}x real time",
         "met": rtf >= RTF_TARGETS[controller], "note": note},
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
        # the whole level (assembly + daqp): the compiled law (_hqp.c) solves without qp.solve
        ctrl.levels.level1 = _timed(ctrl.levels.level1, acc["qp1"])  # type: ignore[method-assign]
        ctrl.levels.level2 = _timed(ctrl.levels.level2, acc["qp2"])  # type: ignore[method-assign]
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
        for key, label in (("dynamics", "dynamics (frame J, dJ; M, h from the observer)"),
                           ("qp1", "QP level 1 (assembly + solve)"),
                           ("qp2", "QP level 2 (assembly + solve)"),
                           ("observer", "observer update (M, C, g)"),
                           ("step", "mj_step"), ("rest", "rest of the loop"))
    ]  # fmt: skip


def _dynamics_replay(ctrl: HqpController, qs: np.ndarray, vs: np.ndarray) -> float:
    """Seconds per step of the controller's own rigid-body terms over the states.

    With the observer source the joint Jacobians and their time variation are left by the
    observer's pass at the same state (timed in its row): the controller reads the frame's
    J and J̇ only.
    """
    m, d, fid, lwa = ctrl.model, ctrl.model.createData(), ctrl.fid, pin.LOCAL_WORLD_ALIGNED
    pin.computeJointJacobiansTimeVariation(m, d, qs[0], vs[0])
    start = time.perf_counter()
    for _ in qs:
        pin.updateFramePlacement(m, d, fid)
        pin.getFrameJacobian(m, d, fid, lwa)
        pin.getFrameJacobianTimeVariation(m, d, fid, lwa)
    return (time.perf_counter() - start) / max(len(qs), 1)


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
