"""Joint limits checked from telemetry, per step: position, velocity, acceleration, torque, rate.

The limits are the scene's: joint ranges and actuator torque ranges from the MuJoCo model, the
``hqp`` section's velocity and acceleration limits (the HQP enforces them; for the other
controllers the same numbers measure how close they come), the torque-rate limit of the
controller that runs (``hqp.torque_rate_limit`` or ``impedance.torque_rate_limit``). The
acceleration of step ``k`` is ``(v[k+1] − v[k])/Δt`` — what MuJoCo integrated, not what a
controller predicted. A value counts as a violation only beyond ``RTOL`` (relative) of its limit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import mujoco
import numpy as np

from mjscope.dock.metric_units import Metrics

RTOL = 1e-6  # relative tolerance of a limit check
KINDS = ("position", "velocity", "acceleration", "torque", "torque_rate")


@dataclass(frozen=True)
class LimitSet:
    """Per-joint limits; (nv,) each.

    Attributes:
        q_min: Lower position limit [rad].
        q_max: Upper position limit [rad].
        v_max: Velocity limit [rad/s].
        a_max: Acceleration limit [rad/s²].
        tau_max: Symmetric torque limit [N·m].
        tau_rate: Torque-rate limit [N·m/s] (``inf``: none).
    """

    q_min: np.ndarray
    q_max: np.ndarray
    v_max: np.ndarray
    a_max: np.ndarray
    tau_max: np.ndarray
    tau_rate: float = math.inf


def scene_limits(mj_model: mujoco.MjModel, scene_cfg: object, controller: str = "") -> LimitSet:
    """The limits of a scene (see the module docstring) for ``controller``.

    Args:
        mj_model: The scene's compiled model (joint and actuator ranges).
        scene_cfg: Its ``SceneCfg``.
        controller: Controller name; selects which torque-rate limit applies.
    """
    nv = mj_model.nv
    ctrl = scene_cfg.controller  # type: ignore[attr-defined]
    hq = ctrl.hqp
    rate = hq.torque_rate_limit if controller == "hqp" else ctrl.impedance.torque_rate_limit
    rng = np.asarray(mj_model.jnt_range[:nv], float)
    return LimitSet(
        rng[:, 0].copy(),
        rng[:, 1].copy(),
        np.broadcast_to(np.asarray(hq.velocity_limit, float), (nv,)).copy(),
        np.full(nv, float(hq.acceleration_limit)),
        np.asarray(mj_model.actuator_ctrlrange[:nv, 1], float).copy(),
        math.inf if rate is None else float(rate),
    )


def check_limits(d: Mapping[str, np.ndarray], limits: LimitSet, dt: float) -> Metrics:
    """Usage and violations of every limit over a run's telemetry.

    Args:
        d: Telemetry arrays (``q``, ``v``, ``tau``).
        limits: The limits.
        dt: Control period [s].

    Returns:
        ``joint_limit_margin`` (smallest distance to a joint range [rad]), ``<kind>_ratio``
        (largest |value| / limit), ``<kind>_violations`` (steps beyond ``1 + RTOL`` of the
        limit), ``limit_violations`` (steps with any), ``torque_saturated_steps`` (steps with
        a torque at its limit).
    """
    q, v, tau = (np.asarray(d[k], float) for k in ("q", "v", "tau"))
    n = len(q)
    if n == 0:
        return {"joint_limit_margin": math.nan, "limit_violations": 0}
    nv = len(limits.q_min)
    q, v, tau = q[:, :nv], v[:, :nv], tau[:, :nv]
    span = limits.q_max - limits.q_min
    margin = np.minimum(q - limits.q_min, limits.q_max - q)  # (n, nv) [rad]
    usage = {
        "position": np.abs(q - (limits.q_max + limits.q_min) / 2) / (span / 2),
        "velocity": np.abs(v) / limits.v_max,
        "acceleration": np.abs(np.diff(v, axis=0)) / dt / limits.a_max,
        "torque": np.abs(tau) / limits.tau_max,
        "torque_rate": np.abs(np.diff(tau, axis=0)) / dt / limits.tau_rate,
    }
    m: Metrics = {"joint_limit_margin": float(margin.min())}
    any_bad = np.zeros(n, bool)
    for kind in KINDS:
        u = usage[kind]
        bad = (u > 1.0 + RTOL).any(axis=1) if u.size else np.zeros(0, bool)
        m[f"{kind}_ratio"] = float(u.max()) if u.size else 0.0
        m[f"{kind}_violations"] = int(bad.sum())
        any_bad[: bad.size] |= bad
    m["limit_violations"] = int(any_bad.sum())
    m["torque_saturated_steps"] = int((usage["torque"] >= 1.0 - 1e-9).any(axis=1).sum())
    return m
