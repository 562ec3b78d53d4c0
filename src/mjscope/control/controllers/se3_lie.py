"""SE(3) Lie-group impedance controller (``se3_lie``): geometric impedance in the body frame.

Notation (Pinocchio's ordering, linear first): pose ``T = (R, p)`` of the end-effector frame,
desired pose ``T_d``, body twist ``V = J_b v`` with the LOCAL Jacobian ``J_b`` (6, nv), desired
body twist ``V_d`` and its derivative ``V̇_d``. Following facts/docking_control.md §2 (GIC):

- **Error** ``T̃ = T_d⁻¹ T`` (left-invariant); ``X = T̃⁻¹`` carries the desired twist into the
  current body frame: ``V_r = Ad_X V_d``; velocity error ``e_V = V − V_r`` (the body twist of
  ``T̃``). The feed-forward is ``α = d/dt V_r = Ad_X V̇_d + ad(V_r) V``.
- **Potential** (the gradient ``f_G`` is taken with respect to a body perturbation
  ``T → T exp(δ)``, so it pairs with ``J_b``):

  * ``frobenius`` (default): ``Ψ = ½ t̃ᵀ K_p t̃ + tr(K_R (I − R̃))`` with ``T̃ = (R̃, t̃)``, so
    ``f_G = (R̃ᵀ K_p t̃, (K_R R̃ − R̃ᵀ K_R)^∨)``. ``K_R = ½ tr(K) I − K`` makes the local
    rotational stiffness equal to ``kp_rot`` (the Hessian at the goal is ``tr(K_R) I − K_R``).
  * ``log``: ``Ψ = ½ ξᵀ K ξ`` with ``ξ = log6(T̃)``, ``f_G = dexp⁻ᵀ(ξ) K ξ = Jlog6(T̃)ᵀ K ξ``,
    the exact gradient (§2a: the published law uses ``K ξ``, which differs once translation
    and rotation errors couple).

- **Law** with inertia reshaping ``M̃ = J̄ᵀ M J̄ = Λ`` and ``C̃ = J̄ᵀ (C − M J̄ J̇_b) J̄``,
  ``J̄ = M⁻¹ J_bᵀ Λ``, ``Λ = (J_b M⁻¹ J_bᵀ + εI)⁻¹``:

      u = α − f_G − D e_V                                   (body task acceleration)
      F = M̃ (u − J̇_b v) + J̄ᵀ C v − C̃ e_V + [M̃ M_d⁻¹ − I] F_b   (effective body wrench)
      τ = J_bᵀ F + g + (I − J_bᵀ J̄ᵀ)(C v + τ₀)

  In closed loop ``M̃ (ė_V + f_G + D e_V) + C̃ e_V = 0`` without contact: the GIC tracking law
  with the gains scaled by ``M̃`` (task-acceleration units, the same scale as CIC's, so one set
  of numbers means the same stiffness for both), exact for a redundant arm (the null-space
  Coriolis term is compensated). ``τ₀ = k_ns (q_ns − q) − d_ns v`` is a null-space posture.
  With a desired apparent inertia ``M_d`` (optional) the measured body wrench ``F_b`` shapes the
  contact response (GUFIC): ``M_d (ė_V + f_G + D e_V) + … = F_b``; without it ``F_b`` is not fed
  back and the apparent inertia is ``M̃``.

Why Frobenius is the default: it is the published GIC law, its rotational pull grows like
``sin θ`` and stays bounded for large errors, its translational error is the straight-line one
(``R̃ᵀ t̃ = Rᵀ (p − p_d)`` for isotropic ``K_p``) rather than the screw-coupled linear part of
``log6``, and it needs no ``log6``/``Jlog6`` per period. The log-map potential (``log_map:
true``) is the one the facts credit with almost-global stability for large errors; on the
bundled scenes the two differ little (tip excursion while removing the ≈ 29° start error of
``iiwa14_docking_tilted``: 3.40 mm Frobenius, 3.53 mm log-map).

Keeping ``C̃ e_V`` (rather than cancelling it, as CIC's feedback linearisation does) is what makes
the closed loop passive; its visible price is that transient: on the same scene CIC keeps the tip
within 0.06 mm, and this law without the ``C̃`` term within 0.8 mm.

Singularity guard: when ``√det(J_b J_bᵀ)`` falls below ``singular_threshold`` the feed-forward
``α`` and the ``C̃`` term are dropped (the facts' fallback); ``ε`` regularises Λ always.
Friction/damping feed-forward and torque limits are applied after this law by the loop. The
body-frame F/T wrench comes from the loop (``wrench_frame = "body"``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np
import numpy.typing as npt
import pinocchio as pin
from scipy.linalg.lapack import dsytrf, dsytrs

from mjscope.control.controllers.cic import SymFactor
from mjscope.control.controllers.common import (
    FrameController,
    frame_kinematics,
    saddle_matrix,
    scaled,
    task_gains,
)
from mjscope.control.planners.reference import MotionReference
from mjscope.exceptions import ConfigError

LOCAL = pin.ReferenceFrame.LOCAL
POTENTIALS = ("frobenius", "log")


@dataclass(frozen=True)
class Se3Gains:
    """``se3_lie`` gains in task-acceleration units (multiplied by M̃ in the law).

    Attributes:
        kp: Stiffness (translation in desired-frame axes, rotation) [1/s²]; (6,).
        kd: Damping on the body twist error [1/s]; (6,).
        potential: ``frobenius`` or ``log``.
        kp_null: Null-space posture stiffness [N·m/rad].
        kd_null: Null-space damping [N·m·s/rad].
        damping: Regularisation ε added to J M⁻¹ Jᵀ before inversion.
        singular_threshold: Manipulability √det(J Jᵀ) below which the feed-forward is dropped.
    """

    kp: np.ndarray
    kd: np.ndarray
    potential: str = "frobenius"
    kp_null: float = 10.0
    kd_null: float = 2.0
    damping: float = 1e-6
    singular_threshold: float = 0.01

    def __post_init__(self) -> None:
        if self.potential not in POTENTIALS:
            raise ConfigError(
                f"se3_lie potential {self.potential!r} unknown; valid: {', '.join(POTENTIALS)}"
            )
        k = np.asarray(self.kp[3:], float)
        if np.any(k > k.sum() - k) and self.potential == "frobenius":
            raise ConfigError(
                f"se3_lie: kp_rot {k.tolist()} has no Frobenius potential (each value must be "
                "<= the sum of the other two); make it closer to isotropic or set log_map: true"
            )

    @classmethod
    def from_cfg(cls, se3: Any, impedance: Any) -> Se3Gains:
        """From an ``Se3ImpedanceCfg`` (``kd`` defaults to 2√kp) and an ``ImpedanceCfg``.

        The null-space gains and the Λ regularisation come from the ``ImpedanceCfg``.
        """
        kp, kd = task_gains(se3.kp_pos, se3.kp_rot, se3.kd_pos, se3.kd_rot)
        potential = "log" if se3.log_map else "frobenius"
        return cls(kp, kd, potential, impedance.kp_null, impedance.kd_null, impedance.damping)

    def scaled(self, factor: float) -> Se3Gains:
        """All gains multiplied by ``factor`` (e.g. 0.01 for a deliberately weak controller)."""
        return scaled(self, factor, ("kp", "kd", "kp_null", "kd_null"))


class Se3LieController(FrameController):
    """SE(3) geometric impedance on a Pinocchio model (see the module docstring).

    Args:
        model: Pinocchio model (built from the assembled scene MJCF).
        frame: End-effector frame name (the tool tip site, ``eef``).
        gains: Gains.
        q_null: Null-space posture [rad]; (nq,).
        apparent_inertia: Desired apparent inertia ``M_d`` (diagonal, [kg], [kg·m²]); (6,), or
            ``None`` (no force feedback, apparent inertia M̃).
    """

    name = "se3_lie"
    wrench_frame = "body"
    gains: Se3Gains

    def __init__(
        self,
        model: Any,
        frame: str,
        gains: Se3Gains,
        q_null: npt.ArrayLike,
        apparent_inertia: npt.ArrayLike | None = None,
    ) -> None:
        super().__init__(model, frame, gains, q_null)
        self._md_inv = None if apparent_inertia is None else 1.0 / np.asarray(apparent_inertia)
        self._log = gains.potential == "log"
        self._kp = gains.kp.copy()  # scheduled (set_gain_scale)
        self._kp_t = gains.kp[:3].copy()
        k = gains.kp[3:]
        self._K_R = np.diag(0.5 * k.sum() - k)  # Frobenius rotation weight (local stiffness k)
        self._kd = gains.kd.copy()
        self._sing2 = gains.singular_threshold**2
        nv = self._nv = model.nv
        self._K, self._K_M, self._K_J = saddle_matrix(nv, gains.damping)  # [[M, Jᵀ], [J, −εI]]
        self._b = np.zeros(nv + 6)
        self._b_q, self._b_t = self._b[:nv], self._b[nv:]
        self._fG = np.zeros(6)
        self._JJt = np.zeros((6, 6))
        self.feedforward_dropped = False  # the singularity guard's last decision

    def set_gain_scale(self, stiffness: float, damping: float) -> None:
        """Task stiffness and damping = the gains' × ``stiffness`` and × ``damping`` [-]."""
        g = self.gains
        np.multiply(g.kp, stiffness, out=self._kp)
        self._kp_t[:] = self._kp[:3]
        k = self._kp[3:]
        self._K_R[:] = np.diag(0.5 * k.sum() - k)
        np.multiply(g.kd, damping, out=self._kd)

    def compute(
        self,
        q: npt.ArrayLike,
        v: npt.ArrayLike,
        reference: MotionReference,
        F_ext: npt.ArrayLike,
    ) -> np.ndarray:
        """See :meth:`Controller.compute`; ``F_ext`` is the body-frame wrench (``wrench_frame``)."""
        return self.compute_control(q, v, reference.T_d, reference.V_d, reference.Vdot_d, F_ext)

    def compute_control(
        self,
        q: npt.ArrayLike,
        v: npt.ArrayLike,
        T_d: npt.ArrayLike,
        V_d: npt.ArrayLike,
        Vdot_d: npt.ArrayLike,
        F_body: npt.ArrayLike,
    ) -> np.ndarray:
        """Joint torque [N·m] (nv,) before friction feed-forward and limits.

        Args:
            q: Joint positions [rad]; (nq,).
            v: Joint velocities [rad/s]; (nv,).
            T_d: Desired pose, world; (4, 4).
            V_d: Desired body twist (v [m/s], ω [rad/s]); (6,).
            Vdot_d: Its derivative [m/s², rad/s²]; (6,).
            F_body: External wrench at the frame origin, body axes (f [N], τ [N·m]); (6,).
        """
        q = np.asarray(q, float)
        v = np.asarray(v, float)
        m, d = self.model, self.data
        oMf, J, dJ = frame_kinematics(m, d, self.fid, q, v, LOCAL)  # J, J̇: (6, nv)
        M = pin.crba(m, d, q)  # (nv, nv), upper triangle filled
        C = pin.computeCoriolisMatrix(m, d, q, v)  # (nv, nv)
        h = pin.nonLinearEffects(m, d, q, v)  # C v + g; (nv,)
        Terr = pin.SE3(np.asarray(T_d, float)).actInv(oMf)  # T̃ = T_d⁻¹ T
        X = Terr.inverse()
        V = J.dot(v)  # body twist; (6,)
        V_r = X.act(pin.Motion(np.asarray(V_d, float)))
        e_V = V - V_r.vector
        u = self.potential_gradient(Terr)  # f_G, then u = α − f_G − D e_V in place
        np.negative(u, out=u)
        u -= self._kd * e_V
        self.feedforward_dropped = self._near_singular(J)
        if not self.feedforward_dropped:
            u += X.act(pin.Motion(np.asarray(Vdot_d, float))).vector
            u += V_r.cross(pin.Motion(V)).vector  # ad(V_r) V
        return self._torque(M, C, J, dJ, h, u, e_V, q, v, np.asarray(F_body, float))

    def _near_singular(self, J: np.ndarray) -> bool:
        """Whether √det(J Jᵀ) < ``singular_threshold`` (Cholesky of J Jᵀ: ~2 µs, det ~8 µs)."""
        JJt = self._JJt
        np.dot(J, J.T, out=JJt)
        if mujoco.mju_cholFactor(JJt, 1e-15) < 6:  # a pivot below 1e-15: rank-deficient
            return True
        return not math.prod(JJt.ravel()[::7].tolist()) ** 2 >= self._sing2  # det = Π L_ii²

    def potential(self, Terr: Any) -> float:
        """Value of the chosen potential Ψ at the error ``T̃ = T_d⁻¹ T`` (a ``pin.SE3``) [1/s²]."""
        if self._log:
            xi = pin.log6(Terr).vector
            return 0.5 * float(xi.dot(self._kp * xi))
        t = Terr.translation
        return 0.5 * float(t.dot(self._kp_t * t)) + float(
            np.trace(self._K_R @ (np.eye(3) - Terr.rotation))
        )

    def potential_gradient(self, Terr: Any) -> np.ndarray:
        """``f_G`` of the chosen potential at the error ``T̃`` (a work buffer, copy to keep); (6,).

        The gradient of :meth:`potential` with respect to a body perturbation
        ``T → T exp(δ)`` (linear first), i.e. ``dΨ = f_G · δ``.
        """
        f = self._fG
        if self._log:
            xi = pin.log6(Terr).vector
            f[:] = pin.Jlog6(Terr).T.dot(self._kp * xi)
            return f
        E, t = Terr.rotation, Terr.translation
        f[:3] = E.T.dot(self._kp_t * t)
        (_, a01, a02), (a10, _, a12), (a20, a21, _) = self._K_R.dot(E).tolist()
        # (K_R E − Eᵀ K_R)^∨ = vee(A − Aᵀ), A = K_R E (on floats: one conversion, 3 writes)
        f[3], f[4], f[5] = a21 - a12, a02 - a20, a10 - a01
        return f

    def _torque(
        self,
        M: np.ndarray,
        C: np.ndarray,
        J: np.ndarray,
        dJ: np.ndarray,
        h: np.ndarray,
        u: np.ndarray,
        e_V: np.ndarray,
        q: np.ndarray,
        v: np.ndarray,
        F_body: np.ndarray,
    ) -> np.ndarray:
        """τ = J_bᵀ F + g + (I − J_bᵀ J̄ᵀ)(C v + τ₀), with two solves of size nv + 6.

        The KKT system ``[[M, Jᵀ], [J, −εI]] (y, −f) = (a, b)`` gives ``f = Λ b − J̄ᵀ a`` and
        ``y = M⁻¹ (a + Jᵀ f)``. With ``(a, b) = (0, e_V)``: ``y = J̄ e_V = w``, and
        ``C̃ e_V = J̄ᵀ C w − Λ J̇ w``. Expanding the law, ``τ = Jᵀ f + h + τ₀`` with ``f`` from
        a second solve with ``(a, b) = (τ₀ + C w, u − J̇ (v − w))``. No inverse is formed.
        """
        self._K_M[:] = M  # upper triangle filled by CRBA: what the solver reads
        self._K_J[:] = J
        nv, a, b = self._nv, self._b_q, self._b_t
        tau0 = np.subtract(self.q_null, q)
        tau0 *= self._kp_null
        tau0 -= self._kd_null * v
        if self.feedforward_dropped:
            a[:] = tau0
            np.subtract(u, dJ.dot(v), out=b)
        lu, piv, info = dsytrf(self._K)  # one factorisation for every solve below
        solve = (lambda r: dsytrs(lu, piv, r)[0]) if info == 0 else SymFactor(self._K).solve
        if not self.feedforward_dropped:
            a[:] = 0.0
            b[:] = e_V
            w = solve(self._b)[:nv]  # J̄ e_V; (nv,)
            a[:] = tau0 + C.dot(w)
            np.subtract(u, dJ.dot(v - w), out=b)
        f = -solve(self._b)[nv:]  # (6,)
        if self._md_inv is not None:  # M̃ M_d⁻¹ F_b − F_b: M̃ x from one more solve
            a[:] = 0.0
            np.multiply(self._md_inv, F_body, out=b)
            f -= solve(self._b)[nv:] + F_body
        tau = f.dot(J)
        tau += h
        tau += tau0
        return tau
