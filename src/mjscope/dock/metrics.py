"""Docking and tracking metrics in three levels (the gate is in :mod:`.gate`).

Levels (facts/docking_control.md §7):

1. approach / tracking: position and orientation error RMS and max, over the whole run and
   after the transient (the first ``gate.track_skip`` seconds); in docking mode also the lateral
   error, axis angle and approach speed at contact onset.
2. contact transient (docking only): peak contact force and F/T force/torque, overshoot over the
   reference force (``gate.contact_force_target``, else the steady-state force), settling time into
   a band of ±``SETTLE_REL`` (at least ±``SETTLE_ABS``) around it, impulse.
   The impact is separated from the force that follows it: the peak and the impulse over the
   first ``IMPACT_WINDOW`` after contact onset, then the force-tracking RMS against the
   reference force; the time to depth is also measured from contact onset.
3. outcome (docking only): success (= the docking gate), final insertion depth, residual lateral
   error and axis angle, steady-state force and its error vs the target, time to reach depth.

Both modes add the controller's effort (RMS and peak joint torque, the energy it injected —
``Σ max(τ·Δq, 0)``, a passivity monitor — and its net work ``Σ τ·Δq``) and every joint limit
checked per step (:mod:`mjscope.dock.limits`: smallest joint-limit margin, usage ratios,
violations, torque saturation).

Tracking mode isolates F/T feedback: the runner gives the controller a zero wrench, and here the
``wrench`` and ``contact_force`` fields are not read at all, so the tracking metrics and gate
depend only on the kinematic errors. Gate thresholds come from the scene (``scene.cfg.gate``,
``scene.cfg.dock``); the constants below only define how a metric is measured.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from mjscope.control.lie import rotation_error
from mjscope.dock.gate import evaluate_gate
from mjscope.dock.limits import check_limits, scene_limits
from mjscope.dock.metric_units import LEVELS, UNITS, Metrics
from mjscope.dock.telemetry import Log
from mjscope.models import compile_spec, registry

if TYPE_CHECKING:
    from mjscope.dock.scene import Scene

CONTACT_ON = 0.05  # contact onset: contact force above this [N]
SETTLE_REL = 0.05  # settling band, relative to the reference force
SETTLE_ABS = 0.5  # settling band floor [N]
STEADY_WINDOW = 0.5  # steady state: mean over the last this many seconds [s]
IMPACT_WINDOW = 0.02  # impact: the first this many seconds after contact onset [s]

__all__ = [
    "LEVELS",
    "UNITS",
    "Metrics",
    "as_arrays",
    "compute_metrics",
    "tracking_summary",
]

_ONSET_KEYS = LEVELS["approach"][8:]


def as_arrays(log: Log | Mapping[str, np.ndarray]) -> Mapping[str, np.ndarray]:
    """Field arrays of a :class:`Log` (or a mapping such as a loaded ``.npz``)."""
    return log.arrays() if isinstance(log, Log) else log


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if x.size else float("nan")


def _max(x: np.ndarray) -> float:
    return float(np.max(x)) if x.size else float("nan")


def _errors(d: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Position error norm [m] and orientation error angle [rad] per sample."""
    if len(d["t"]) == 0:
        return np.empty(0), np.empty(0)
    pos = np.linalg.norm(np.asarray(d["eef_pos"]) - np.asarray(d["ref_pos"]), axis=1)
    return pos, rotation_error(np.asarray(d["ref_rot"]), np.asarray(d["eef_rot"]))


def _error_stats(pos: np.ndarray, ori: np.ndarray, suffix: str = "") -> Metrics:
    return {
        f"pos_err_rms{suffix}": _rms(pos),
        f"pos_err_max{suffix}": _max(pos),
        f"ori_err_rms{suffix}": _rms(ori),
        f"ori_err_max{suffix}": _max(ori),
    }


def _tracking_metrics(d: Mapping[str, np.ndarray], transient: float) -> Metrics:
    t = np.asarray(d["t"])
    pos, ori = _errors(d)
    late = t >= (t[0] if t.size else 0.0) + transient
    return {**_error_stats(pos, ori), **_error_stats(pos[late], ori[late], "_settled")}


def _first(mask: np.ndarray) -> int | None:
    idx = np.flatnonzero(mask)
    return int(idx[0]) if idx.size else None


def _approach_metrics(d: Mapping[str, np.ndarray]) -> Metrics:
    t, f = np.asarray(d["t"]), np.asarray(d["contact_force"])
    k = _first(f > CONTACT_ON)
    if k is None:
        return dict.fromkeys(_ONSET_KEYS, float("nan"))
    p = np.asarray(d["eef_pos"])
    j = max(k - 1, 0)
    speed = np.linalg.norm(p[k] - p[j]) / (t[k] - t[j]) if k > j else 0.0
    return {
        "contact_onset_time": float(t[k]),
        "lateral_error_at_contact": float(d["lateral_error"][k]),
        "axis_angle_at_contact": float(d["axis_angle"][k]),
        "approach_speed_at_contact": float(speed),
    }


def _steady(t: np.ndarray, x: np.ndarray) -> float:
    return float(np.mean(x[t >= t[-1] - STEADY_WINDOW])) if t.size else float("nan")


def _contact_metrics(d: Mapping[str, np.ndarray], target: float | None) -> Metrics:
    t, f = np.asarray(d["t"]), np.asarray(d["contact_force"])
    w = np.asarray(d["wrench"]).reshape(-1, 6)
    peak = _max(f)
    ref = _steady(t, f) if target is None else float(target)
    band = max(SETTLE_REL * abs(ref), SETTLE_ABS)
    k = _first(f > CONTACT_ON)
    settle = float("nan")
    if k is not None:
        outside = np.flatnonzero(np.abs(f[k:] - ref) > band)
        if outside.size == 0:
            settle = 0.0
        elif k + outside[-1] + 1 < f.size:
            settle = float(t[k + outside[-1] + 1] - t[k])
    impact, tracking = _impact(t, f, k, ref)
    return {
        **impact,
        "force_tracking_rms": tracking,
        "peak_contact_force": peak,
        "peak_ft_force": _max(np.linalg.norm(w[:, :3], axis=1)),
        "peak_ft_torque": _max(np.linalg.norm(w[:, 3:], axis=1)),
        "reference_force": ref,
        "force_overshoot": peak - ref,
        "force_overshoot_pct": 100.0 * (peak - ref) / ref if ref >= SETTLE_ABS else float("nan"),
        "settling_time": settle,
        "contact_impulse": float(np.sum(0.5 * (f[1:] + f[:-1]) * np.diff(t))),
    }


def _impact(t: np.ndarray, f: np.ndarray, k: int | None, ref: float) -> tuple[Metrics, float]:
    """Impact peak and impulse over :data:`IMPACT_WINDOW` from onset ``k``; RMS of f − ref after.

    All NaN without contact.
    """
    nan = float("nan")
    if k is None:
        return {"impact_peak_force": nan, "impact_impulse": nan}, nan
    win = (t >= t[k]) & (t <= t[k] + IMPACT_WINDOW)
    fw, tw = f[win], t[win]
    after = f[t > t[k] + IMPACT_WINDOW]
    impulse = float(np.sum(0.5 * (fw[1:] + fw[:-1]) * np.diff(tw)))
    return {"impact_peak_force": _max(fw), "impact_impulse": impulse}, _rms(after - ref)


def effort_metrics(d: Mapping[str, np.ndarray]) -> Metrics:
    """RMS and peak joint torque [N·m], injected energy and net work [J] (module docstring)."""
    tau, q = np.asarray(d["tau"], float), np.asarray(d["q"], float)
    if len(tau) < 2:
        return dict.fromkeys(LEVELS["effort"], float("nan"))
    nv = tau.shape[1]
    power = np.sum(tau[:-1] * np.diff(q[:, :nv], axis=0), axis=1)  # work per period [J]
    return {
        "torque_rms": _rms(tau),
        "torque_peak": float(np.abs(tau).max()),
        "injected_energy": float(np.sum(np.maximum(power, 0.0))),
        "net_work": float(np.sum(power)),
    }


def _outcome_metrics(d: Mapping[str, np.ndarray], reach: float, target: float | None) -> Metrics:
    t, depth = np.asarray(d["t"]), np.asarray(d["insertion_depth"])
    nan = float("nan")
    k = _first(depth >= reach)
    f = np.asarray(d["contact_force"])
    ss = _steady(t, f)
    onset = _first(f > CONTACT_ON)
    after = nan
    if onset is not None:
        j = _first(depth[onset:] >= reach)
        after = nan if j is None else float(t[onset + j] - t[onset])
    return {
        "time_to_depth_after_contact": after,
        "final_insertion_depth": float(depth[-1]) if t.size else nan,
        "time_to_depth": float(t[k]) if k is not None else nan,
        "final_lateral_error": abs(float(d["lateral_error"][-1])) if t.size else nan,
        "final_axis_angle": abs(float(d["axis_angle"][-1])) if t.size else nan,
        "steady_state_force": ss,
        "steady_state_force_error": abs(ss - target) if target is not None else nan,
    }


def target_force(scene: Scene) -> float | None:
    """The scene's expected contact force [N] (``gate.contact_force_target``), or ``None``."""
    force = scene.cfg.gate.contact_force_target
    return None if force is None else float(force)


def compute_metrics(
    log: Log | Mapping[str, np.ndarray], scene: Scene, controller: str = ""
) -> Metrics:
    """Compute the run's metrics (see the module docstring for the levels).

    Args:
        log: The run's telemetry.
        scene: The scene that was run; ``scene.mode`` selects docking or tracking metrics.
        controller: The controller that ran (selects its torque-rate limit).

    Returns:
        Metric name -> value (SI units, see :data:`UNITS`); a quantity that did not occur (no
        contact, depth never reached) is NaN, and NaN fails every gate check.
    """
    d = as_arrays(log)
    t = np.asarray(d["t"])
    gate = scene.cfg.gate
    m: Metrics = {"samples": int(t.size), "sim_time": float(t[-1]) if t.size else 0.0}
    m.update(_tracking_metrics(d, float(gate.track_skip)))
    m.update(effort_metrics(d))
    lim = scene_limits(_robot_model(scene.cfg.robot), scene.cfg, controller)
    m.update(check_limits(d, lim, float(scene.cfg.control_period)))
    if scene.mode != "docking" or scene.cfg.dock is None:
        return m
    target = target_force(scene)
    m.update(_approach_metrics(d))
    m.update(_contact_metrics(d, target))
    m.update(_outcome_metrics(d, float(gate.depth_fraction) * float(scene.cfg.dock.depth), target))
    m["success"] = evaluate_gate(m, scene).passed
    return m


@functools.lru_cache(maxsize=8)
def _robot_model(robot: str) -> mujoco.MjModel:
    """The robot's compiled model (joint and actuator ranges), once per robot."""
    return compile_spec(registry.build_spec(robot), f"robot {robot!r}")


def tracking_summary(log: Log | Mapping[str, np.ndarray], scene: Scene) -> list[dict[str, float]]:
    """Tracking errors per planner segment.

    Args:
        log: The run's telemetry.
        scene: The scene that was run (unused beyond the contract; kept for symmetry).

    Returns:
        One row per segment in order of first appearance: ``segment``, ``t_start`` and
        ``t_end`` [s], ``samples``, and the position [m] / orientation [rad] RMS and max.
    """
    d = as_arrays(log)
    t, seg = np.asarray(d["t"]), np.asarray(d["segment"])
    pos, ori = _errors(d)
    rows = []
    for s in dict.fromkeys(seg.tolist()):
        sel = seg == s
        ts = t[sel]
        row = {"segment": int(s), "t_start": float(ts[0]), "t_end": float(ts[-1])}
        rows.append({**row, "samples": int(sel.sum()), **_error_stats(pos[sel], ori[sel])})
    return rows
