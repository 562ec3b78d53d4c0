"""Classical Cartesian impedance controller (CIC) in Khatib's operational-space form.

    u = a_d + K_D (ẋ_d − J v) + K_P e + K_I ∫e      (e = [p_d − p; log(R_d Rᵀ)], world axes)
    τ = Jᵀ Λ (u − J̇ v) + h + (I − Jᵀ J̄ᵀ) τ₀,        Λ = (J M⁻¹ Jᵀ + εI)⁻¹, J̄ = M⁻¹ Jᵀ Λ

(``ẋ_d``, ``a_d``: the reference's world linear velocity and acceleration and, for a
time-varying orientation, its world angular velocity ``R_d ω_d`` and acceleration ``R_d ω̇_d``
from the body twist ``V_d``, ``V̇_d``; a fixed orientation contributes nothing.)

with the Jacobian of the end-effector frame in LOCAL_WORLD_ALIGNED, ``h`` Pinocchio's
nonlinear effects (Coriolis + gravity) and ``τ₀ = k_ns (q_ns − q) − d_ns v`` a null-space posture.
The integral acts on the position error only and is clamped per axis. Friction/damping
feed-forward and torque limits are applied after this law by the loop. Λ is never formed: the
law is evaluated with one symmetric solve of size nv + 6 per period (see ``_torque``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pinocchio as pin
from scipy.linalg.lapack import dsytrf, dsytrs

from mjscope.control.controllers.common import (
    FrameController,
    frame_kinematics,
    saddle_matrix,
    scaled,
    task_gains,
)
from mjscope.control.planners.reference import MotionReference


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
        kp, kd = task_gains(cfg.kp_pos, cfg.kp_rot, cfg.kd_pos, cfg.kd_rot)
        return cls(kp, kd, np.array(cfg.ki_pos, float), cfg.i_limit, cfg.kp_null, cfg.kd_null,
                   cfg.damping)  # fmt: skip

    def scaled(self, factor: float) -> CicGains:
        """All gains multiplied by ``factor`` (e.g. 0.01 for a deliberately weak controller)."""
        return scaled(self, factor, ("kp", "kd", "ki", "kp_null", "kd_null"))


class CartesianImpedanceController(FrameController):
    """CIC on a Pinocchio model.

    Args:
        model: Pinocchio model (built from the assembled scene MJCF).
        frame: End-effector frame name (the tool tip site, ``eef``).
        gains: Gains.
        q_null: Null-space posture [rad]; (nq,).
        dt: Control period [s] (integral term).
    """

    name = "cic"
    gains: CicGains

    def __init__(
        self, model: Any, frame: str, gains: CicGains, q_null: npt.ArrayLike, dt: float
    ) -> None:
        super().__init__(model, frame, gains, q_null)
        self.dt = float(dt)
        self.integral = np.zeros(3)
        self._use_integral = bool(np.any(gains.ki))
        self._i_hi_f = float(gains.i_limit)
        self._ki = np.asarray(gains.ki, float).tolist()
        self._kp, self._kd = gains.kp.copy(), gains.kd.copy()  # scheduled (set_gain_scale)
        self._kd_rot = self._kd[3:]
        # Work buffers, reused every period (never returned), and views of them.
        nv = self._nv = model.nv
        self._K, self._K_M, self._K_J = saddle_matrix(nv, gains.damping)  # [[M, Jᵀ], [J, −εI]]
        self._b = np.zeros(nv + 6)  # [τ₀; u − J̇ v]
        self._tau0, self._b_task = self._b[:nv], self._b[nv:]

    def reset(self) -> None:
        """Clear the integral of the position error."""
        self.integral[:] = 0.0  # in place: compute() updates this array

    def set_gain_scale(self, stiffness: float, damping: float) -> None:
        """Task stiffness and damping = the gains' × ``stiffness`` and × ``damping`` [-]."""
        np.multiply(self.gains.kp, stiffness, out=self._kp)
        np.multiply(self.gains.kd, damping, out=self._kd)

    def kinematics(self, q: np.ndarray, v: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray]:
        """Frame placement, Jacobian (6, nv) and J̇ (6, nv), both LOCAL_WORLD_ALIGNED."""
        return frame_kinematics(self.model, self.data, self.fid, q, v)

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
        m, d = self.model, self.data
        # One kinematic pass (placements, J, J̇), then CRBA and RNEA on the same q.
        oMf, J, dJ = frame_kinematics(m, d, self.fid, q, v)  # J, J̇: (6, nv)
        M = pin.crba(m, d, q)  # (nv, nv), upper triangle filled
        h = pin.nonLinearEffects(m, d, q, v)  # (nv,)
        u = self._task_acceleration(reference, oMf, J, v)
        return self._torque(M, J, dJ, h, u, q, v)

    def _task_acceleration(
        self, reference: MotionReference, oMf: Any, J: np.ndarray, v: np.ndarray
    ) -> list[float]:
        """Task acceleration a_d + K_D (ẋ_d − J v) + K_P e + K_I ∫e; 6 floats.

        On Python floats (the same IEEE operations, in the same order, as the NumPy form
        ``u = K_P e − K_D J v; u_pos += a_d + K_D ẋ_d; …``; a 3- or 6-vector ufunc costs more
        than the arithmetic it does).
        """
        e = (reference.pos - oMf.translation).tolist()
        e += pin.log3(reference.rot.dot(oMf.rotation.T)).tolist()  # log(R_d Rᵀ)
        jv = J.dot(v).tolist()
        kp, kd = self._kp.tolist(), self._kd.tolist()
        u = [kp[i] * e[i] - kd[i] * jv[i] for i in range(6)]
        acc, vel = reference.acc.tolist(), reference.vel.tolist()
        for i in range(3):
            u[i] += acc[i] + kd[i] * vel[i]
        w_d = reference.V_d[3:]  # body angular velocity of the reference (zero when fixed)
        if np.count_nonzero(w_d):  # world ω_d = R_d ω_b, ω̇_d = R_d ω̇_b (ω × ω = 0)
            R_d = reference.rot
            extra = (self._kd_rot * R_d.dot(w_d) + R_d.dot(reference.Vdot_d[3:])).tolist()
            for i in range(3):
                u[3 + i] += extra[i]
        if self._use_integral:
            integral = self.integral  # clamped per axis, in place
            acc_i, dt, lo, hi = integral.tolist(), self.dt, self.gains.i_limit, self._i_hi_f
            ki = self._ki
            for i in range(3):
                x = min(max(acc_i[i] + e[i] * dt, -lo), hi)
                acc_i[i] = x
                u[i] += ki[i] * x
            integral[:] = acc_i
        return u

    def _torque(
        self,
        M: np.ndarray,
        J: np.ndarray,
        dJ: np.ndarray,
        h: np.ndarray,
        u: list[float],
        q: np.ndarray,
        v: np.ndarray,
    ) -> np.ndarray:
        """τ = Jᵀ Λ (u − J̇ v) + h + (I − Jᵀ J̄ᵀ) τ₀ (a new array); (nv,).

        With Λ⁻¹ = J M⁻¹ Jᵀ + εI and J̄ᵀ τ₀ = Λ J M⁻¹ τ₀ this is τ = h + τ₀ + Jᵀ f where
        ``(q̈, −f)`` solves the symmetric system ``[[M, Jᵀ], [J, −εI]] (q̈, −f) = (τ₀, u − J̇ v)``
        (eliminating q̈ = M⁻¹ (τ₀ + Jᵀ f) gives Λ⁻¹ f = u − J̇ v − J M⁻¹ τ₀): one LDLᵀ solve of
        size nv + 6, no inverse formed.
        """
        tau0 = self._tau0  # τ₀ = k_ns (q_ns − q) − d_ns v, written into its place in b
        np.subtract(self.q_null, q, out=tau0)
        tau0 *= self._kp_null
        tau0 -= self._kd_null * v
        djv = dJ.dot(v).tolist()
        self._b_task[:] = [u[i] - djv[i] for i in range(6)]
        self._K_M[:] = M  # upper triangle filled by CRBA: what the solver reads
        self._K_J[:] = J
        lu, piv, info = dsytrf(self._K)  # (SymFactor inlined: one object less per period)
        if info == 0:
            neg_f = dsytrs(lu, piv, self._b)[0][self._nv :]  # (6,)
        else:
            neg_f = SymFactor(self._K).solve(self._b)[self._nv :]
        tau = np.subtract(tau0, neg_f.dot(J))  # τ₀ + Jᵀ f
        tau += h
        return tau


def sym_solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve ``A x = b`` for symmetric (possibly indefinite) ``A``; its upper triangle is read.

    One :class:`SymFactor` and one solve: LAPACK ``dsytrf`` + ``dsytrs`` (Bunch–Kaufman LDLᵀ),
    ~3 µs at size 13, where ``dsysv`` costs ~4.5 µs (its wrapper) and ``np.linalg.solve`` ~9 µs.
    Falls back to a least-squares solve (of the symmetrised matrix) when ``A`` is singular.
    """
    return SymFactor(A).solve(b)


class SymFactor:
    """The LDLᵀ factorisation of a symmetric matrix, for several solves with it.

    Args:
        A: Symmetric matrix (its upper triangle is read; not changed); (n, n).
    """

    def __init__(self, A: np.ndarray) -> None:
        self._lu, self._piv, info = dsytrf(A)
        self._A = None if info == 0 else A  # singular: least squares in solve

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``x`` with ``A x = b`` (a new array); (n,)."""
        if self._A is None:
            return dsytrs(self._lu, self._piv, b)[0]
        S = np.triu(self._A) + np.triu(self._A, 1).T
        return np.linalg.lstsq(S, b, rcond=None)[0]
