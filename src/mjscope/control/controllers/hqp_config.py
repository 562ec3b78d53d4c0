"""Configuration records of the HQP controller (:mod:`.hqp`): gains, adaptation law, limits."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from mjscope.control.controllers.common import scaled, task_gains

#: Optional ``HqpCfg`` fields read by :meth:`HqpController.from_cfg` → ``JointLimits`` keyword.
CFG_LIMIT_FIELDS = {"velocity_limit": "v_max", "acceleration_limit": "a_max",
                    "position_margin": "margin", "brake_acceleration": "brake_acc"}  # fmt: skip
#: Optional ``HqpCfg`` fields read by :meth:`HqpGains.from_cfg` (same names).
CFG_GAIN_FIELDS = ("k_sing", "force_dead", "force_sat", "moment_dead", "moment_sat", "t_soften",
                   "t_restore")  # fmt: skip
_INF = math.inf


@dataclass(frozen=True)
class HqpGains:
    """HQP gains (task-acceleration units, like :class:`CicGains`) and the adaptation law.

    Attributes:
        kp: Nominal stiffness (position, orientation) [1/s²]; (6,).
        kd: Nominal damping [1/s]; (6,).
        ki: Integral gain on position [1/s³]; (3,).
        i_limit: Clamp of the integrated position error per axis [m·s].
        kp_null: Posture stiffness [N·m/rad].
        kd_null: Posture damping [N·m·s/rad].
        k_sing: Singularity-avoidance gain on ∇ log w [N·m].
        kp_min: Lowest adapted stiffness [1/s²].
        kp_max: Highest stiffness [1/s²] (the nominal one is clamped to it).
        force_dead: Contact force below which the stiffness stays nominal [N].
        force_sat: Contact force at which it reaches ``kp_min`` [N].
        moment_dead: Same for moments [N·m].
        moment_sat: Same for moments [N·m].
        t_soften: Time constant of lowering the stiffness [s].
        t_restore: Time constant of restoring it [s].
        reg: ε of the level-1 regulariser (times M).
    """

    kp: np.ndarray
    kd: np.ndarray
    ki: np.ndarray
    i_limit: float = 0.01
    kp_null: float = 10.0
    kd_null: float = 2.0
    k_sing: float = 0.0
    kp_min: float = 100.0
    kp_max: float = 2000.0
    force_dead: float = 2.0
    force_sat: float = 20.0
    moment_dead: float = 0.2
    moment_sat: float = 2.0
    t_soften: float = 0.02
    t_restore: float = 0.2
    reg: float = 1e-8

    def scaled(self, factor: float) -> HqpGains:
        """Gains and stiffness bounds multiplied by ``factor`` (0.01: a deliberately weak one)."""
        return scaled(self, factor, ("kp", "kd", "ki", "kp_null", "kd_null", "k_sing", "kp_min",
                                     "kp_max"))  # fmt: skip

    @classmethod
    def from_cfg(cls, impedance: Any, hqp: Any) -> HqpGains:
        """From an ``ImpedanceCfg`` (gains) and an ``HqpCfg`` (stiffness bounds).

        Optional ``HqpCfg`` fields, when present, override the defaults of the same name
        (``k_sing``, ``force_dead``, ``force_sat``, ``moment_dead``, ``moment_sat``,
        ``t_soften``, ``t_restore``).
        """
        imp = impedance
        kp, kd = task_gains(imp.kp_pos, imp.kp_rot, imp.kd_pos, imp.kd_rot)
        extra = {k: getattr(hqp, k) for k in CFG_GAIN_FIELDS if getattr(hqp, k, None) is not None}
        return cls(kp, kd, np.array(impedance.ki_pos, float),
                   impedance.i_limit, impedance.kp_null, impedance.kd_null,
                   kp_min=hqp.stiffness_min, kp_max=hqp.stiffness_max, **extra)  # fmt: skip


@dataclass(frozen=True)
class JointLimits:
    """Hard joint limits of the HQP.

    Attributes:
        q_min: Lower position limit [rad]; (nv,).
        q_max: Upper position limit [rad]; (nv,).
        v_max: Velocity limit [rad/s]; (nv,).
        a_max: Acceleration limit [rad/s²]; (nv,).
        tau_max: Symmetric torque limit [N·m]; (nv,).
        margin: Position margin inside the range [rad].
        brake_acc: Deceleration assumed for the braking distance [rad/s²].
        tau_margin: Torque headroom kept for the loop's feed-forward [N·m]; (nv,).
        tau_rate: Torque-rate limit [N·m/s] (``inf``: none).
    """

    q_min: np.ndarray
    q_max: np.ndarray
    v_max: np.ndarray
    a_max: np.ndarray
    tau_max: np.ndarray
    margin: float = 0.02
    brake_acc: float = 10.0
    tau_margin: np.ndarray | None = None
    tau_rate: float = _INF

    @classmethod
    def from_model(
        cls,
        model: Any,
        tau_max: npt.ArrayLike,
        v_max: float | npt.ArrayLike = 2.0,
        a_max: float | npt.ArrayLike = 50.0,
        **kwargs: Any,
    ) -> JointLimits:
        """Position limits from a Pinocchio model, the rest given (scalars broadcast)."""
        nv = model.nv

        def per_joint(x: float | npt.ArrayLike) -> np.ndarray:
            return np.broadcast_to(np.asarray(x, float), (nv,)).copy()

        q_min, q_max = np.array(model.lowerPositionLimit), np.array(model.upperPositionLimit)
        return cls(q_min, q_max, per_joint(v_max), per_joint(a_max), per_joint(tau_max), **kwargs)
