"""Classical Cartesian impedance controller (CIC) in Khatib's operational-space form.

    u = a_d + K_D (ẋ_d − J v) + K_P e + K_I ∫e      (e = [p_d − p; log(R_d Rᵀ)], world axes)
    τ = Jᵀ Λ (u − J̇ v) + h + (I − Jᵀ J̄ᵀ) τ₀,        Λ = (J M⁻¹ Jᵀ)⁻¹, J̄ = M⁻¹ Jᵀ Λ

with the Jacobian of the end-effector frame in LOCAL_WORLD_ALIGNED, ``h`` Pinocchio's
nonlinear effects (Coriolis + gravity) and ``τ₀ = k_ns (q_ns − q) − d_ns v`` a null-space posture.
The integral acts on the position error only and is clamped per axis. Friction/damping
feed-forward and torque limits are applied after this law by the loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pinocchio as pin
from scipy.linalg.lapack import dposv

from mjscope.control.controllers.base import Controller
from mjscope.control.planners.reference import MotionReference

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


@dataclass(frozen=True)
class CicGains:
    """CIC gains in task-acceleration units.

    Attributes:
        kp: Stiffness (position, orientation) [1/s²]; (6,).
        kd: Damping [1/s]; (6,).
        ki: Integral gain on position [1/s³]; (3,).
        i_limit: Clamp of the integrated position error per axis [m·s].
        kp_null: Null-space posture stiffness [N·m/rad].
        kd_null: Null-space damping [N·m·s/rad].
        damping: Regularisation added to J M⁻¹ Jᵀ before inversion.
    """

    kp: np.ndarray
    kd: np.ndarray
    ki: np.ndarray
    i_limit: float = 0.01
    kp_null: float = 10.0
    kd_null: float = 2.0
    damping: float = 1e-6

    @classmethod
    def from_cfg(cls, cfg: Any) -> CicGains:
        """From an ``ImpedanceCfg`` (``kd`` defaults to critical damping 2√kp)."""
        kp = np.array([*cfg.kp_pos, *cfg.kp_rot], float)
        kd_pos = cfg.kd_pos if cfg.kd_pos is not None else 2.0 * np.sqrt(cfg.kp_pos)
        kd_rot = cfg.kd_rot if cfg.kd_rot is not None else 2.0 * np.sqrt(cfg.kp_rot)
        kd = np.array([*kd_pos, *kd_rot], float)
        return cls(kp, kd, np.array(cfg.ki_pos, float), cfg.i_limit, cfg.kp_null, cfg.kd_null,
                   cfg.damping)  # fmt: skip

    def scaled(self, factor: float) -> CicGains:
        """All gains multiplied by ``factor`` (e.g. 0.01 for a deliberately weak controller)."""
        return CicGains(self.kp * factor, self.kd * factor, self.ki * factor, self.i_limit,
                        self.kp_null * factor, self.kd_null * factor, self.damping)  # fmt: skip


class CartesianImpedanceController(Controller):
    """CIC on a Pinocchio model.

    Args:
        model: Pinocchio model (built from the assembled scene MJCF).
        frame: End-effector frame name (the tool tip site, ``eef``).
        gains: Gains.
        q_null: Null-space posture [rad]; (nq,).
        dt: Control period [s] (integral term).
    """

    name = "cic"

    def __init__(
        self, model: Any, frame: str, gains: CicGains, q_null: npt.ArrayLike, dt: float
    ) -> None:
        self.model = model
        self.data = model.createData()
        self.fid = model.getFrameId(frame)
        self.gains = gains
        self.q_null = np.asarray(q_null, float).copy()
        self.dt = float(dt)
        self.integral = np.zeros(3)
        self._e = np.zeros(6)
        self._reg = gains.damping * np.eye(6)
        self._use_integral = bool(np.any(gains.ki))
        self._i_hi = np.full(3, gains.i_limit)  # vector bounds: faster than scalar ones
        self._i_lo = -self._i_hi

    def reset(self) -> None:
        """Clear the integral of the position error."""
        self.integral[:] = 0.0

    def kinematics(self, q: np.ndarray, v: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray]:
        """Frame placement, Jacobian (6, nv) and J̇ (6, nv), both LOCAL_WORLD_ALIGNED."""
        m, d = self.model, self.data
        pin.computeJointJacobiansTimeVariation(m, d, q, v)
        pin.updateFramePlacement(m, d, self.fid)
        J = pin.getFrameJacobian(m, d, self.fid, LWA)
        dJ = pin.getFrameJacobianTimeVariation(m, d, self.fid, LWA)
        return d.oMf[self.fid], J, dJ

    def compute(
        self,
        q: npt.ArrayLike,
        v: npt.ArrayLike,
        reference: MotionReference,
        F_ext: npt.ArrayLike,
    ) -> np.ndarray:
        """See :meth:`Controller.compute` (this law does not use ``F_ext``)."""
        q = np.asarray(q, float)
        v = np.asarray(v, float)
        m, d, g = self.model, self.data, self.gains
        oMf, J, dJ = self.kinematics(q, v)
        M = pin.crba(m, d, q)  # upper triangle filled: what the Cholesky solver reads
        h = pin.nonLinearEffects(m, d, q, v)  # (nv,)
        e = self._e
        e[:3] = reference.pos - oMf.translation
        e[3:] = pin.log3(reference.rot @ oMf.rotation.T)  # world-frame orientation error
        u = g.kp * e - g.kd * (J @ v)
        u[:3] += reference.acc + g.kd[:3] * reference.vel
        if self._use_integral:
            integral = self.integral + e[:3] * self.dt
            self.integral = np.minimum(np.maximum(integral, self._i_lo), self._i_hi)
            u[:3] += g.ki * self.integral
        Minv_JT = spd_solve(M, J.T)  # (nv, 6)
        tau0 = g.kp_null * (self.q_null - q) - g.kd_null * v
        # τ = Jᵀ Λ (u − J̇ v) + h + (I − Jᵀ J̄ᵀ) τ₀ with J̄ᵀ τ₀ = Λ (M⁻¹ Jᵀ)ᵀ τ₀, Λ⁻¹ = J M⁻¹ Jᵀ.
        f = spd_solve(J @ Minv_JT + self._reg, u - dJ @ v - Minv_JT.T @ tau0)  # (6,)
        return J.T @ f + h + tau0


def spd_solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve ``A x = b`` for symmetric positive-definite ``A`` (upper triangle read).

    LAPACK ``dposv`` directly: ~2 µs where ``np.linalg.solve`` costs ~9 µs at this size. Falls
    back to a least-squares solve (of the symmetrised matrix) when ``A`` is not positive definite.
    """
    _, x, info = dposv(A, b)
    if info == 0:
        return np.asarray(x)
    S = np.triu(A) + np.triu(A, 1).T
    return np.linalg.lstsq(S, b, rcond=None)[0]
