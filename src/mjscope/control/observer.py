"""Generalised-momentum observer of the external joint torque (De Luca / Haddadin), with PI option.

With ``p = M(q) v`` and ``M q̈ + C v + g = τ + τ_ext`` one has ``ṗ = τ + Cᵀ v − g + τ_ext``
(``Ṁ = C + Cᵀ``). The observer integrates the model part and feeds back the momentum error:

    p̂̇ = τ + Cᵀ(q, v) v − g(q) + r,     e = p − p̂,     r = K_O e + K_I ∫ e dt

so ``ė = τ_ext − r``. With ``K_I = 0`` (the classical form, ``r = K_O [p − p(0) − ∫(τ + Cᵀv −
g + r)]``) the residual is ``τ_ext`` low-pass filtered, ``ṙ = K_O (τ_ext − r)``; with ``K_I > 0``
it is a second-order filter ``r/τ_ext = (K_O s + K_I)/(s² + K_O s + K_I)`` (critically damped at
``K_I = K_O²/4``) that tracks a ramp without lag. Neither needs ``q̈`` nor ``M⁻¹``.

Discrete form at the control period ``Δt`` (forward rectangle, matching MuJoCo's semi-implicit
Euler step, whose forces are evaluated at the start of the step):

    p̂_{k+1} = p̂_k + Δt (τ_k + C_kᵀ v_k − g_k + r_k),   r_{k+1} = K_O e_{k+1} + K_I Σ e Δt

:meth:`MomentumObserver.update` receives the state at ``k + 1`` and the torque ``τ_k`` applied
during the step; ``β_k = C_kᵀ v_k − g_k`` is kept from the previous call. Terms from Pinocchio:
``crba`` (``M``), ``computeCoriolisMatrix`` (``C``), ``computeGeneralizedGravity`` (``g``).

``τ`` must hold every known non-contact torque, or it shows up in the residual. In
``force_contact`` mode the caller passes the known dissipation (``tau_known``): in MuJoCo
``qfrc_passive`` (damping, springs) plus the friction-loss rows of ``qfrc_constraint`` (joint
``frictionloss`` is a constraint force; see :func:`known_dissipation`). Without it the model's
viscous damping ``−D v`` (Pinocchio ``model.damping``) is used. In ``total`` mode nothing is added
and the residual is every unmodelled torque (friction included).

:meth:`MomentumObserver.wrench` maps the residual to the end-effector wrench with the F/T path's
conventions (force [N], moment about the end-effector origin [N·m], world axes): ``τ_ext = Jᵀ F``
with ``J`` the LOCAL_WORLD_ALIGNED frame Jacobian, solved as ``F = (J Jᵀ + λ² I)⁻¹ J τ_ext``.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np
import numpy.typing as npt
import pinocchio as pin
from scipy.linalg.lapack import dposv

from mjscope.exceptions import ConfigError

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
MODES = ("force_contact", "total")
_FRICTION_DOF = int(mujoco.mjtConstraint.mjCNSTR_FRICTION_DOF)


class MomentumObserver:
    """First-order (or PI) momentum observer on a Pinocchio model.

    Args:
        model: Pinocchio model (the scene's control model).
        dt: Control period [s].
        gain: ``K_O`` [1/s] (scalar or (nv,)).
        ki: ``K_I`` [1/s²] (scalar or (nv,)); 0 gives the classical observer.
        mode: ``force_contact`` (known dissipation added to τ) or ``total``.
        frame: Frame whose wrench :meth:`wrench` returns (the tool tip, ``eef``).
        damping: λ of the damped pseudo-inverse of ``Jᵀ`` [m, rad mixed; small].

    Raises:
        ConfigError: Unknown mode, non-positive period or gain, unknown frame.
    """

    def __init__(
        self,
        model: Any,
        dt: float,
        gain: float | npt.ArrayLike = 50.0,
        ki: float | npt.ArrayLike = 0.0,
        mode: str = "force_contact",
        frame: str = "eef",
        damping: float = 1e-4,
    ) -> None:
        if mode not in MODES:
            raise ConfigError(f"observer mode {mode!r} unknown; valid: {', '.join(MODES)}")
        if not dt > 0 or not np.all(np.asarray(gain, float) > 0):
            raise ConfigError(f"observer needs dt > 0 and gain > 0 (got dt={dt!r}, gain={gain!r})")
        if not model.existFrame(frame):
            raise ConfigError(f"observer frame {frame!r} not in the model; add the site first")
        nv = model.nv
        self.model, self.data = model, model.createData()
        self.fid = model.getFrameId(frame)
        self.dt, self.mode, self.damping = float(dt), mode, float(damping)
        self.gain = np.broadcast_to(np.asarray(gain, float), (nv,)).copy()
        self.ki = np.broadcast_to(np.asarray(ki, float), (nv,)).copy()
        self._use_ki = bool(np.any(self.ki))
        self._D = np.asarray(model.damping, float).copy()
        self.r = np.zeros(nv)  # residual: estimated external torque [N·m]
        self._p_hat = np.zeros(nv)
        self._e_int = np.zeros(nv)
        self._beta = np.zeros(nv)  # Cᵀ v − g at the previous state
        self._tmp = np.zeros(nv)
        self._v_prev = np.zeros(nv)  # velocity at the previous call (model damping)
        self._lam2 = np.eye(6) * self.damping**2
        self.M = np.zeros((nv, nv))  # mass matrix at the last update [kg·m²]
        #: The state of the last update (the arrays given, not copies); ``None`` before it.
        self.q_last: np.ndarray | None = None
        self.v_last: np.ndarray | None = None
        self._C, self._g = np.zeros((nv, nv)), np.zeros(nv)
        self._gravity = bool(np.any(np.asarray(model.gravity.linear, float)))
        self._lower = np.tri(nv, k=-1, dtype=bool)  # strict lower triangle of M
        self.initialized = False
        # update in C (mjscope.control.controllers.hqp_native; imported at the first update:
        # that package imports this module); None: not decided yet, False: Python
        self._c: Any = None
        self._c_objs: tuple[Any, ...] | None = None
        self._c_wrench: tuple[Any, ...] | None = None

    def reset(self, q: npt.ArrayLike | None = None, v: npt.ArrayLike | None = None) -> None:
        """Forget the history; with ``q``, ``v`` start from that state (residual zero)."""
        self.r[:] = 0.0
        self._e_int[:] = 0.0
        self.initialized = False
        if q is not None:
            self._start(np.asarray(q, float), np.zeros(self.model.nv) if v is None else
                        np.asarray(v, float))  # fmt: skip

    def _terms(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Momentum ``M v`` (returned) and ``β = Cᵀ v − g`` (into ``self._beta``)."""
        m, d, M = self.model, self.data, self.M
        M[:] = pin.crba(m, d, q)  # upper triangle filled
        np.copyto(M, M.T, where=self._lower)  # (cheaper than fancy indexing)
        C = pin.computeCoriolisMatrix(m, d, q, v)
        v.dot(C, out=self._beta)
        if self._gravity:  # (zero gravity, the space scenes: g ≡ 0, not computed)
            g = self._g = pin.computeGeneralizedGravity(m, d, q)
            self._beta -= g
        self.q_last, self.v_last, self._C = q, v, C
        return M.dot(v)

    def bias(self) -> np.ndarray:
        """``h = C v + g`` at the last update's state ``(q_last, v_last)`` [N·m]; (nv,).

        Equal to Pinocchio's ``nonLinearEffects`` there: a controller that runs at the state
        the observer was just updated with reuses it, and :attr:`M`, instead of recomputing.
        """
        assert self.v_last is not None, "bias() before the first update()"
        h = self._C.dot(self.v_last)
        if self._gravity:
            h += self._g
        return h

    def _start(self, q: np.ndarray, v: np.ndarray) -> None:
        self._p_hat[:] = self._terms(q, v)
        self._v_prev[:] = v
        self.initialized = True

    def update(
        self,
        q: npt.ArrayLike,
        v: npt.ArrayLike,
        tau_applied: npt.ArrayLike,
        tau_known: npt.ArrayLike | None = None,
    ) -> np.ndarray:
        """Advance one control period; returns the estimated external torque [N·m]; (nv,).

        The first call only initialises the state (residual zero).

        Args:
            q: Joint positions now [rad]; (nq,).
            v: Joint velocities now [rad/s]; (nv,).
            tau_applied: Actuator torque applied during the period that led here [N·m]; (nv,).
            tau_known: Known dissipative torque during that period (``force_contact`` mode;
                e.g. :func:`known_dissipation`) [N·m]; (nv,). ``None``: model damping ``−D v``.

        Returns:
            The residual ``r`` (a view of the observer's state; copy it to keep it).
        """
        q = np.asarray(q, float)
        v = np.asarray(v, float)
        if not self.initialized:
            self._start(q, v)
            return self.r
        if self._c is None:
            from mjscope.control.controllers import hqp_native

            self._c = hqp_native.hqp_c if hqp_native.enabled() else False
        if (
            self._c is not False
            and type(tau_applied) is np.ndarray
            and (tau_known is None or type(tau_known) is np.ndarray)
        ):
            objs = self._c_objs
            if objs is None or objs[6] is not self.M:
                objs = self._c_objs = self._c_tuple()
            return self._c.observe(objs, q, v, tau_applied, tau_known)
        tau = self._tmp
        np.add(tau_applied, self._beta, out=tau)  # β of the previous state
        if self.mode == "force_contact":
            if tau_known is None:
                tau -= self._D * self._v_prev
            else:
                tau += tau_known
        tau += self.r
        tau *= self.dt
        self._p_hat += tau
        e = np.subtract(self._terms(q, v), self._p_hat)
        np.multiply(self.gain, e, out=self.r)
        if self._use_ki:
            self._e_int += e * self.dt
            self.r += self.ki * self._e_int
        self._v_prev[:] = v
        return self.r

    def _c_tuple(self) -> tuple[Any, ...]:
        """The objects the C update reads and writes (``_hqp.observe``)."""
        return (self, pin.crba, pin.computeCoriolisMatrix,
                pin.computeGeneralizedGravity if self._gravity else None, self.model, self.data,
                self.M, None, self._beta, self._p_hat, self.r, self.gain,
                self.ki if self._use_ki else None, self._e_int, self._v_prev,
                self._D if self.mode == "force_contact" else None, self.dt)  # fmt: skip

    def wrench(self, q: npt.ArrayLike, tau_ext: npt.ArrayLike | None = None) -> np.ndarray:
        """External wrench at the frame origin, world axes, from ``τ_ext`` (default ``r``); (6,).

        Damped least squares ``F = (J Jᵀ + λ² I)⁻¹ J τ_ext`` with the LOCAL_WORLD_ALIGNED
        Jacobian at ``q``.
        """
        J = pin.computeFrameJacobian(self.model, self.data, np.asarray(q, float), self.fid, LWA)
        return self.wrench_from_jacobian(J, tau_ext)

    def wrench_from_jacobian(
        self, J: np.ndarray, tau_ext: npt.ArrayLike | None = None
    ) -> np.ndarray:
        """As :meth:`wrench` with a Jacobian already computed (LOCAL_WORLD_ALIGNED; (6, nv))."""
        t = self.r if tau_ext is None else np.asarray(tau_ext, float)
        if self._c:  # in C (the same calls); None: not positive definite, the Python form
            wo = self._c_wrench
            if wo is None:
                from mjscope.control.controllers import hqp_native

                wo = self._c_wrench = (self._lam2, hqp_native.dposv_capsule(), np.zeros(6))
            F = self._c.wrench(wo, J, t)
            if F is not None:
                return F
        _, F, info = dposv(J.dot(J.T) + self._lam2, J.dot(t))
        return F if info == 0 else np.linalg.lstsq(J.T, t, rcond=None)[0]


def known_dissipation(
    mj_model: mujoco.MjModel, mj_data: mujoco.MjData, out: np.ndarray | None = None
) -> np.ndarray:
    """Known non-contact torque of the last step: ``qfrc_passive`` + DoF friction loss [N·m].

    The friction-loss part of ``qfrc_constraint`` is the sum of the ``efc_force`` of the rows of
    type ``mjCNSTR_FRICTION_DOF``; each such row acts on one DoF (``efc_id``) with Jacobian 1.
    When every constraint row is a friction row (no contact, no limit), that is all of
    ``qfrc_constraint`` (tendon friction included).
    Read after ``mj_step``: the forces are those of the state the step started from.

    Args:
        mj_model: Model.
        mj_data: Data after the step.
        out: Optional output buffer; (nv,).

    Returns:
        Torque [N·m]; (nv,).
    """
    if out is None:
        tau = mj_data.qfrc_passive.copy()
    else:
        tau = out
        tau[:] = mj_data.qfrc_passive
    if mj_data.nf and mj_data.nf == mj_data.nefc:  # only friction rows: all of qfrc_constraint
        tau += mj_data.qfrc_constraint
    elif mj_data.nf:
        nefc = mj_data.nefc
        rows = np.flatnonzero(mj_data.efc_type[:nefc] == _FRICTION_DOF)
        np.add.at(tau, mj_data.efc_id[rows], mj_data.efc_force[rows])
    return tau
