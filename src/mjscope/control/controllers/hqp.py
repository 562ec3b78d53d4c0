r"""HQP adaptive-compliance controller (``hqp``): two prioritised QPs over joint accelerations.

**Variables.** The joint acceleration ``q̈`` (nv). The torque is affine in it, through the
rigid-body model with the external wrench ``F`` at the end effector (world axes, measured by the
F/T sensor or estimated by the momentum observer):

    τ(q̈) = M q̈ + h − Jᵀ F                 (M from CRBA, h = C v + g, J LOCAL_WORLD_ALIGNED)

so ``q̈`` is the *predicted actual* acceleration, contact included, and every joint limit is a
linear constraint on it (:mod:`.hqp_limits`, :mod:`.hqp_levels`).

With the observer source, ``M`` and ``h`` come from the observer's update at the same state
(the loop updates it right before :meth:`HqpController.compute`, with the same arrays), so they
are computed once per period.

**Level 1 — task impedance** (:mod:`.hqp_levels`) tracks ``J q̈ + J̇ v = u`` with the target

    u = [a_d; ω̇_d] + K_D (ẋ_d − J v) + K_P e + [K_I ∫e_p; 0] + J M⁻¹ Jᵀ (F + F_pre)

``e = [p_d − p; log(R_d Rᵀ)]`` as in CIC. The last term makes the closed loop the natural-inertia
impedance ``Λ (ẍ − u₀) = F + F_pre`` (``Λ = (J M⁻¹ Jᵀ)⁻¹``) — the same as CIC's when no limit is
active: the measured ``F`` then cancels from the torque. ``F_pre = a · f_pre · z_tool`` is the
contact preload along the tool axis, switched on by a first-order activation ``a`` when the
measured force exceeds ``contact_threshold``. ``K_P``, ``K_D`` adapt to the contact
(:mod:`.hqp_adapt`).

**Level 2 — null space** keeps level 1's task acceleration and follows the posture impedance
``τ₀ = k_ns (q_ns − q) − d_ns v`` plus the singularity-avoidance torque ``τ_s = k_s ∇ log w``,
``w = √det(J Jᵀ)`` the manipulability (its gradient from the Lie brackets of the body-Jacobian
columns, :func:`manipulability_gradient`).

Every fallback is counted in :attr:`HqpController.stats`: ``steps``, ``level1_quadprog``,
``level1_infeasible``, ``task_yield``, ``level2_failed``, ``robust_infeasible``
(:mod:`.hqp_levels`) and ``hold`` (nothing solved: the previous torque, clamped to the limits,
is sent).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pinocchio as pin
from scipy.linalg.lapack import dposv

from mjscope.control.controllers import hqp_native
from mjscope.control.controllers.common import LWA, FrameController, frame_kinematics
from mjscope.control.controllers.hqp_adapt import StiffnessAdaptation
from mjscope.control.controllers.hqp_config import CFG_LIMIT_FIELDS, HqpGains, JointLimits
from mjscope.control.controllers.hqp_levels import HqpLevels
from mjscope.control.manipulability import manipulability_gradient
from mjscope.control.observer import MomentumObserver
from mjscope.control.planners.reference import MotionReference
from mjscope.exceptions import ConfigError

__all__ = ["FORCE_SOURCES", "HqpController", "HqpGains", "JointLimits", "manipulability_gradient"]

FORCE_SOURCES = ("sensor", "observer")


class HqpController(FrameController):
    """The HQP adaptive-compliance law of the module docstring.

    Args:
        model: Pinocchio model (the scene's control model).
        frame: End-effector frame (``eef``).
        gains: Gains and adaptation law.
        limits: Hard joint limits.
        q_null: Posture [rad]; (nq,).
        dt: Control period [s].
        force_source: ``sensor`` (use ``F_ext``) or ``observer`` (use :attr:`observer`, fed by
            :meth:`observe`).
        observer: The observer for ``force_source="observer"`` (default: a first-order one,
            gain 50 1/s, ``force_contact`` mode).
        preload_force: Contact preload along the tool z axis [N].
        contact_threshold: Force that switches the preload on [N].
        iter_limit: daqp iteration cap per QP.
        implicit_damping: ``Δt · damping`` per joint [kg·m²] when the simulator integrates the
            joint damping implicitly (MuJoCo ``implicit``/``implicitfast``): the step then
            realises ``(M + Δt D) q̈ = …``, so the torque rows use ``M + Δt D`` and the predicted
            acceleration is the one MuJoCo integrates (``None``: explicit damping).
        torque_uncertainty: Bound ``u`` on the joint torque the model cannot predict [N·m];
            (nv,) — e.g. ``(1 + scale) · frictionloss``: MuJoCo's friction loss is a soft
            constraint whose torque lies anywhere in ``[−f, f]``, not the feed-forward's
            sign model. The acceleration box shrinks by ``|M⁻¹| u`` per joint so that the
            realised acceleration (and the velocity and position it integrates to) stays inside
            the limits whatever that torque is (``robust_infeasible`` counts the periods where
            the box is narrower than the uncertainty: its midpoint is then used).
        wrench_uncertainty: Bound on the error of the wrench ``F`` the torque cancels (force
            [N], moment [N·m] per axis; F/T noise, a tool-mass error): adds ``|Jᵀ| w`` to the
            torque uncertainty, per period (``None``: none).

    Raises:
        ConfigError: Unknown force source, or limits/gains of the wrong size.
    """

    name = "hqp"
    gains: HqpGains

    def __init__(
        self,
        model: Any,
        frame: str,
        gains: HqpGains,
        limits: JointLimits,
        q_null: npt.ArrayLike,
        dt: float,
        force_source: str = "sensor",
        observer: MomentumObserver | None = None,
        preload_force: float = 0.0,
        contact_threshold: float = 1.0,
        iter_limit: int = 100,
        implicit_damping: npt.ArrayLike | None = None,
        torque_uncertainty: npt.ArrayLike | None = None,
        wrench_uncertainty: tuple[float, float] | None = None,
    ) -> None:
        if force_source not in FORCE_SOURCES:
            raise ConfigError(f"hqp force_source {force_source!r} unknown; valid: sensor, observer")
        nv = model.nv
        if any(
            np.shape(a) != (nv,)
            for a in (limits.q_min, limits.q_max, limits.v_max, limits.a_max, limits.tau_max)
        ):
            raise ConfigError(f"hqp joint limits need {nv} values per joint quantity")
        super().__init__(model, frame, gains, q_null)
        self.limits, self.dt = limits, float(dt)
        self.force_source = force_source
        if force_source == "observer" and observer is None:
            observer = MomentumObserver(model, dt, 50.0, frame=frame)
        self.observer = observer if force_source == "observer" else None
        self.preload_force, self.contact_threshold = float(preload_force), float(contact_threshold)
        self.levels = HqpLevels(nv, limits, self.dt, iter_limit, gains.reg)
        self.stats = self.levels.stats  # one dict, zeroed in place by reset
        self.adaptation = StiffnessAdaptation(gains, self.dt)
        self._lower = np.tri(nv, k=-1, dtype=bool)  # strict lower triangle of M
        self._use_ki = bool(np.any(gains.ki))
        self._ki = np.broadcast_to(np.asarray(gains.ki, float), (3,)).tolist()
        self._u = np.zeros(6)  # task target b; (6,)
        self._kin_data = self.data  # the Pinocchio data of this period's kinematics
        imp = None if implicit_damping is None else np.asarray(implicit_damping, float)
        self._imp = imp if imp is not None and np.count_nonzero(imp) else None
        # The sensor source's M is built in place in level 2's rows unless those rows hold
        # M + Δt D (implicit damping); (nv, nv).
        self._M = self.levels.M_rows if self._imp is None else np.zeros((nv, nv))
        self._Mt = np.zeros((nv, nv))  # M + Δt D (torque rows) when implicit
        if self.observer is not None and self._imp is None:
            # The observer's M is filled in place in level 2's torque rows (no copy per period).
            self.observer.M = self.levels.M_rows
        unc = None if torque_uncertainty is None else np.asarray(torque_uncertainty, float)
        self._unc = unc if unc is not None and np.count_nonzero(unc) else None
        wu = (
            None
            if wrench_uncertainty is None
            else np.repeat(np.asarray(wrench_uncertainty, float), 3)
        )
        self._w_unc = wu if wu is not None and np.count_nonzero(wu) else None
        # _task_target in C (:mod:`.hqp_native`): its constants, and its objects (reset)
        self._c_pack = hqp_native.target_pack(self) if hqp_native.enabled() else None
        self._c_objs: tuple[Any, ...] | None = None
        self._tau0 = np.zeros(nv)  # τ₀ of the C path
        self.reset()

    @property
    def kp(self) -> np.ndarray:
        """Adapted task stiffness [1/s²]; (6,) (:class:`StiffnessAdaptation`)."""
        return self.adaptation.kp

    @property
    def kd(self) -> np.ndarray:
        """Adapted task damping [1/s]; (6,)."""
        return self.adaptation.kd

    def reset(self) -> None:
        """Nominal stiffness, zero integral, preload off, zero previous torque and counters."""
        self.adaptation.reset()
        self.integral = np.zeros(3)
        self.preload_activation = 0.0
        self.tau_prev = np.zeros(self.model.nv)
        self.qdd = np.zeros(self.model.nv)  # last joint acceleration (predicted) [rad/s²]
        self.qdd1 = np.zeros(self.model.nv)  # level 1's solution [rad/s²]
        self.F_used = np.zeros(6)
        if self._c_pack is not None:  # (the integral is a new array)
            self._c_objs = (pin.log3, hqp_native.dposv_capsule(), self.integral, self._u,
                            np.zeros(3), np.zeros(self.model.nv))  # fmt: skip
        self.levels.reset()
        if self.observer is not None:
            self.observer.reset()

    def set_gain_scale(self, stiffness: float, damping: float) -> None:
        """Nominal stiffness and damping = the gains' × ``stiffness`` and × ``damping`` [-].

        The adapted stiffness moves to the new nominal with the adaptation's time constants
        (``t_restore`` up, ``t_soften`` down), so a schedule step is smoothed.
        """
        self.adaptation.set_scale(stiffness, damping)

    def observe(
        self,
        q: npt.ArrayLike,
        v: npt.ArrayLike,
        tau_applied: npt.ArrayLike,
        tau_known: npt.ArrayLike | None = None,
    ) -> None:
        """Feed the observer one period (the loop calls it after each ``env.step``).

        Args:
            q: Joint positions after the step [rad]; (nq,).
            v: Joint velocities after the step [rad/s]; (nv,).
            tau_applied: Torque sent to the actuators for that step [N·m]; (nv,).
            tau_known: Known dissipation of the step (``known_dissipation``) [N·m]; (nv,).
        """
        if self.observer is not None:
            self.observer.update(q, v, tau_applied, tau_known)

    def compute(
        self,
        q: npt.ArrayLike,
        v: npt.ArrayLike,
        reference: MotionReference,
        F_ext: npt.ArrayLike,
    ) -> np.ndarray:
        """See :meth:`Controller.compute`; ``F_ext`` is ignored with the observer source."""
        q = np.asarray(q, float)
        v = np.asarray(v, float)
        m, d, obs, lv, fid = self.model, self.data, self.observer, self.levels, self.fid
        if obs is not None and obs.q_last is q and obs.v_last is v:
            # The observer was just updated at this very state: its CRBA and Coriolis passes
            # left the joint Jacobians, their time variation and the placements in its data,
            # equal bit for bit to frame_kinematics' pass (tested), so only the frame is read.
            d = self._kin_data = obs.data
            oMf = pin.updateFramePlacement(m, d, fid)
            J, dJ = (
                pin.getFrameJacobian(m, d, fid, LWA),
                pin.getFrameJacobianTimeVariation(m, d, fid, LWA),
            )  # J, J̇: (6, nv)
            M, h = obs.M, obs.bias()
        else:
            d = self._kin_data = self.data
            oMf, J, dJ = frame_kinematics(m, d, fid, q, v)  # J, J̇: (6, nv)
            M = self._M  # (nv, nv); CRBA fills the upper triangle
            M[:] = pin.crba(m, d, q)
            np.copyto(M, M.T, where=self._lower)  # (cheaper than fancy indexing)
            h = pin.nonLinearEffects(m, d, q, v)  # (nv,)
        F = self._wrench(J, F_ext)
        JtF = F.dot(J)  # Jᵀ F; (nv,)
        self.adaptation.update(F)
        b = self._task_target(reference, oMf, J, dJ, M, F, JtF, v)
        lv.write_bounds(q, v, h, JtF, self.tau_prev if self.stats["steps"] else None)
        Mt = M
        if self._imp is not None:  # the torque rows: M + Δt D (see implicit_damping)
            Mt = self._Mt
            np.copyto(Mt, M)
            Mt.flat[:: len(v) + 1] += self._imp
        if self._unc is not None or self._w_unc is not None:
            unc = self._wrench_unc(J) if self._w_unc is not None else self._unc
            assert unc is not None
            lv.shrink_box(Mt, unc)
        qdd = self._solve(J, M, b, q, v, Mt)
        self.stats["steps"] += 1
        if qdd is None:  # nothing solved: hold the previous torque within the limits
            self.stats["hold"] += 1
            tau = np.clip(self.tau_prev, lv.tau_lo, lv.tau_hi)
        elif self._c_pack is not None:  # the same in C (:mod:`.hqp_native`)
            tau = hqp_native.hqp_c.torque(Mt, qdd, h, JtF, lv.tau_lo, lv.tau_hi)
            self.qdd = qdd
        else:
            tau = Mt.dot(qdd)
            tau += h
            tau -= JtF
            np.minimum(np.maximum(tau, lv.tau_lo, out=tau), lv.tau_hi, out=tau)  # solver tol.
            self.qdd = qdd
        self.tau_prev = tau
        return tau.copy()

    def _wrench(self, J: np.ndarray, F_ext: npt.ArrayLike) -> np.ndarray:
        """The external wrench used this period (sensor or observer); (6,)."""
        if self.observer is None:
            F = np.asarray(F_ext, float)
        else:
            F = self.observer.wrench_from_jacobian(J)
        self.F_used = F
        return F

    def _task_target(
        self,
        reference: MotionReference,
        oMf: Any,
        J: np.ndarray,
        dJ: np.ndarray,
        M: np.ndarray,
        F: np.ndarray,
        JtF: np.ndarray,
        v: np.ndarray,
    ) -> np.ndarray:
        """``b = u − J̇ v``, the level-1 target of ``J q̈`` (a work buffer); (6,).

        On Python floats, with the same IEEE operations in the same order as the NumPy form
        (``w = −J v + ẋ_d; u = K_D w + K_P e + a_d; …``): a 3- or 6-vector ufunc costs more
        than the arithmetic it does. In C when built (:mod:`.hqp_native`), bit for bit the same.
        """
        if self._c_objs is not None and self._c_pack is not None:
            ad = self.adaptation
            self.preload_activation = hqp_native.hqp_c.target(
                self._c_pack, ad.kd, ad.kp, self.preload_activation, self._c_objs, reference,
                oMf, J, dJ, M, F, JtF, v)  # fmt: skip
            return self._u
        g = self.gains
        e = (reference.pos - oMf.translation).tolist()
        e += pin.log3(reference.rot.dot(oMf.rotation.T)).tolist()
        jv, vel = J.dot(v).tolist(), reference.vel.tolist()
        w = [-jv[i] + vel[i] if i < 3 else -jv[i] for i in range(6)]  # ẋ_d − J v
        w_d = reference.V_d[3:]  # body angular velocity of the reference (zero when fixed)
        rocking = np.count_nonzero(w_d)  # (count_nonzero: far cheaper than .any() at 1 kHz)
        if rocking:  # world ω_d = R_d ω_b, ω̇_d = R_d ω̇_b, as in CIC
            wr = reference.rot.dot(w_d).tolist()
            for i in range(3):
                w[3 + i] += wr[i]
        kd, kp, acc = self.kd.tolist(), self.kp.tolist(), reference.acc.tolist()
        u = [kd[i] * w[i] + kp[i] * e[i] for i in range(6)]
        for i in range(3):
            u[i] += acc[i]
        if rocking:
            ar = reference.rot.dot(reference.Vdot_d[3:]).tolist()
            for i in range(3):
                u[3 + i] += ar[i]
        if self._use_ki:
            integral = self.integral
            acc_i, dt, lim, ki = integral.tolist(), self.dt, g.i_limit, self._ki
            for i in range(3):
                x = min(max(acc_i[i] + e[i] * dt, -lim), lim)
                acc_i[i] = x
                u[i] += ki[i] * x
            integral[:] = acc_i
        rhs = JtF  # Jᵀ (F + F_pre)
        if self.preload_force:
            F3 = F[:3]  # ‖F₃‖ as np.linalg.norm computes it (√ of the dot), without its overhead
            on = float(math.sqrt(F3.dot(F3)) > self.contact_threshold)
            self.preload_activation += self.adaptation.alpha_soft * (on - self.preload_activation)
            f_pre = self.preload_activation * self.preload_force * oMf.rotation[:, 2]
            rhs = rhs + f_pre.dot(J[:3])
        if np.count_nonzero(rhs):  # natural-inertia impedance: + J M⁻¹ Jᵀ (F + F_pre)
            _, y, _ = dposv(M, rhs)
            jy = J.dot(y).tolist()
            for i in range(6):
                u[i] += jy[i]
        djv = dJ.dot(v).tolist()
        out = self._u
        out[:] = [u[i] - djv[i] for i in range(6)]
        return out

    def _wrench_unc(self, J: np.ndarray) -> np.ndarray:
        """``u + |Jᵀ| w``: the joint torque a wrench error of up to ``w`` per axis makes; (nv,)."""
        assert self._w_unc is not None
        out = np.abs(J).T.dot(self._w_unc)
        if self._unc is not None:
            out += self._unc
        return out

    def _solve(
        self,
        J: np.ndarray,
        M: np.ndarray,
        b: np.ndarray,
        q: np.ndarray,
        v: np.ndarray,
        Mt: np.ndarray,
    ) -> np.ndarray | None:
        """Level 1, then level 2 with the null-space torque; ``None`` when nothing solved."""
        qdd1, solved = self.levels.level1(J, M, b, Mt)
        if not solved or qdd1 is None:
            return qdd1  # the fallback's answer (no level 2), or nothing
        self.qdd1 = qdd1
        g = self.gains
        if self._c_pack is not None:  # the same in C, into a work buffer (level 2 consumes it)
            tau0 = hqp_native.hqp_c.null_torque(self._kp_null, self.q_null, q, self._kd_null, v,
                                                self._tau0)  # fmt: skip
        else:
            tau0 = self._kp_null * (self.q_null - q)
            tau0 -= self._kd_null * v
        if g.k_sing:
            Rt = self._kin_data.oMf[self.fid].rotation.T
            Jb = np.vstack([Rt.dot(J[:3]), Rt.dot(J[3:])])
            tau0 += g.k_sing * manipulability_gradient(Jb)[1]
        return self.levels.level2(J, M, Mt, qdd1, tau0)

    @classmethod
    def from_cfg(
        cls,
        model: Any,
        controller_cfg: Any,
        tau_max: npt.ArrayLike,
        q_null: npt.ArrayLike,
        dt: float,
        frame: str = "eef",
        implicit_damping: npt.ArrayLike | None = None,
        torque_uncertainty: npt.ArrayLike | None = None,
        **limit_kwargs: Any,
    ) -> HqpController:
        """From a scene's ``ControllerCfg`` (``impedance`` and ``hqp`` sections).

        Args:
            model: Pinocchio model.
            controller_cfg: Object with ``impedance`` and ``hqp`` attributes.
            tau_max: Torque limits [N·m]; (nv,) (the MuJoCo actuator ``ctrlrange``).
            q_null: Posture [rad]; (nq,).
            dt: Control period [s].
            frame: End-effector frame.
            implicit_damping: See :class:`HqpController`.
            torque_uncertainty: See :class:`HqpController`.
            **limit_kwargs: :meth:`JointLimits.from_model` keywords (``v_max``, ``a_max``,
                ``margin``, ``brake_acc``, ``tau_margin``, ``tau_rate``); they override the
                section's optional fields of :data:`CFG_LIMIT_FIELDS` and its
                ``torque_rate_limit``.
        """
        hq = controller_cfg.hqp
        gains = HqpGains.from_cfg(controller_cfg.impedance, hq)
        wu = getattr(hq, "wrench_uncertainty", None)
        wrench_uncertainty = None if wu is None else (float(wu[0]), float(wu[1]))
        for field, key in CFG_LIMIT_FIELDS.items():
            if getattr(hq, field, None) is not None:
                limit_kwargs.setdefault(key, getattr(hq, field))
        if hq.torque_rate_limit is not None:
            limit_kwargs.setdefault("tau_rate", float(hq.torque_rate_limit))
        limits = JointLimits.from_model(model, tau_max, **limit_kwargs)
        observer = None
        if hq.force_source == "observer":
            ki = getattr(hq, "observer_ki", 0.0)
            observer = MomentumObserver(model, dt, hq.observer_gain, ki, frame=frame)
        return cls(model, frame, gains, limits, q_null, dt, hq.force_source, observer,
                   hq.preload_force, getattr(hq, "contact_threshold", 1.0),
                   implicit_damping=implicit_damping,
                   torque_uncertainty=torque_uncertainty,
                   wrench_uncertainty=wrench_uncertainty)  # fmt: skip
