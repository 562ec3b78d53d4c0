r"""HQP adaptive-compliance controller (``hqp``): two prioritised QPs over joint accelerations.

**Variables.** The joint acceleration ``q̈`` (nv). The torque is affine in it, through the
rigid-body model with the external wrench ``F`` at the end effector (world axes, measured by the
F/T sensor or estimated by the momentum observer):

    τ(q̈) = M q̈ + h − Jᵀ F                 (M from CRBA, h = C v + g, J LOCAL_WORLD_ALIGNED)

so ``q̈`` is the *predicted actual* acceleration, contact included, and every joint limit is a
linear constraint on it.

With the observer source, ``M`` and ``h`` come from the observer's update at the same state
(the loop updates it right before :meth:`HqpController.compute`, with the same arrays), so they
are computed once per period.

**Hard constraints (both levels).** For each joint, with ``d⁺ = q_max − m − q`` and
``d⁻ = q − q_min − m`` (margin ``m``), MuJoCo's semi-implicit Euler step
``v' = v + Δt q̈, q' = q + Δt v'`` and a braking deceleration ``a_b``:

    v' ≤ min(v_max, √(2 a_b d⁺₊), d⁺/Δt),   v' ≥ −min(v_max, √(2 a_b d⁻₊), d⁻/Δt)

(the joint can still stop before the limit; ``d/Δt`` keeps ``q'`` inside it) gives the bounds
``(v'_lo − v)/Δt ≤ q̈ ≤ (v'_hi − v)/Δt``, intersected with ``|q̈| ≤ a_max``; when a joint is
already too fast to stop within ``a_max``, the position/velocity bound wins. Torque:
``τ_lo ≤ M q̈ + h − Jᵀ F ≤ τ_hi`` with ``τ_hi = τ_max − τ_margin`` (room for the loop's friction
feed-forward) and, with a rate limit ``ρ``, ``|τ − τ_prev| ≤ ρ Δt`` (from the second period on).

**Level 1 — task impedance.** ``min ½ ‖J q̈ + J̇ v − u‖² + ½ ε q̈ᵀ M q̈`` (ε tiny, for a
positive-definite Hessian) with the impedance target

    u = [a_d; ω̇_d] + K_D (ẋ_d − J v) + K_P e + [K_I ∫e_p; 0] + J M⁻¹ Jᵀ (F + F_pre)

``e = [p_d − p; log(R_d Rᵀ)]`` as in CIC. The last term makes the closed loop the natural-inertia
impedance ``Λ (ẍ − u₀) = F + F_pre`` (``Λ = (J M⁻¹ Jᵀ)⁻¹``) — the same as CIC's when no limit is
active: the measured ``F`` then cancels from the torque. ``F_pre = a · f_pre · z_tool`` is the
contact preload along the tool axis, switched on by a first-order activation ``a`` when the
measured force exceeds ``contact_threshold``.

**Level 2 — null space.** ``min ½ q̈ᵀ M q̈ − (τ₀ + τ_s)ᵀ q̈`` s.t. the hard constraints and
``J q̈ = J q̈₁*`` (level 1's task acceleration kept exactly), with the posture impedance
``τ₀ = k_ns (q_ns − q) − d_ns v`` and the singularity-avoidance torque ``τ_s = k_s ∇ log w``,
``w = √det(J Jᵀ)`` the manipulability (its gradient from the Lie brackets of the body-Jacobian
columns, :func:`manipulability_gradient`). Unconstrained, this is CIC's dynamically consistent
null-space term ``M⁻¹ (I − Jᵀ J̄ᵀ) τ₀``.

**Adaptive stiffness.** Per task axis ``i`` (world x, y, z, then rotations) with the contact
level ``σ_i = clip((|F_i| − f_dead)/(f_sat − f_dead), 0, 1)`` (moments: ``m_dead``, ``m_sat``):

    k*_i = k_nom,i − σ_i (k_nom,i − k_min),   k_i ← k_i + (1 − e^(−Δt/T)) (k*_i − k_i)

with ``T = T_soften`` while ``k*`` is below ``k`` and ``T_restore`` otherwise; ``k_nom`` is
clamped into ``[k_min, k_max]``, so ``k`` always stays in it. Damping keeps the damping ratio:
``d_i = d_nom,i √(k_i / k_nom,i)``. Stiffnesses are in task-acceleration units [1/s²] like CIC's.

**Fallback.** Both QPs run on :class:`mjscope.control.qp.DenseQp` (daqp, then quadprog). When
level 1 is infeasible (a joint that can no longer stop within the torque limits, or the
torque-rate limit leaves no way to), it is solved again with the rate limit dropped (the rate
ranks below the joint limits); if that is infeasible too, the task yields for that period
("hold torque limits"): ``min ½ ‖q̈ − q̈_box‖²`` subject to the absolute torque limits only
(always feasible), with ``q̈_box`` the point of the joint box nearest to zero — the braking bound
for a joint that is too fast — so it brakes as hard as the torque allows. If even that fails, the
previous torque clamped to the limits is sent. A failed level 2 keeps level 1's solution. Every
case is counted in :attr:`HqpController.stats`: ``steps``, ``level1_quadprog`` (daqp failed,
quadprog solved), ``level1_infeasible`` (the fallback ran), ``task_yield`` (its second stage),
``level2_failed``, ``hold``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pinocchio as pin
from scipy.linalg.lapack import dposv

from mjscope.control.controllers.common import FrameController, frame_kinematics
from mjscope.control.controllers.hqp_config import CFG_LIMIT_FIELDS, HqpGains, JointLimits
from mjscope.control.controllers.hqp_limits import JointBox
from mjscope.control.manipulability import manipulability_gradient
from mjscope.control.observer import MomentumObserver
from mjscope.control.planners.reference import MotionReference
from mjscope.control.qp import DenseQp
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
        no_eq = np.zeros(nv, bool)
        # Level 2 is feasible by construction (level 1's answer satisfies all its rows), so
        # daqp's infeasible-but-"optimal" answers (#82) cannot occur: its answers are not
        # re-verified (~5 µs); a non-finite or out-of-tolerance one still falls back (_solve).
        self._qp2 = DenseQp(nv, nv + 6, iter_limit, eq_rows=np.r_[no_eq, np.ones(6, bool)],
                            check=False)  # fmt: skip
        b2l, b2u = self._qp2._bl, self._qp2._bu  # [box; torque rows; task rows]
        # Level 1's bounds are the head of level 2's (same box and torque rows): no copy.
        self._qp1 = DenseQp(nv, nv, iter_limit, eq_rows=no_eq,
                            bounds=(b2l[: 2 * nv], b2u[: 2 * nv]))  # fmt: skip
        self._qp_abs = DenseQp(nv, nv, iter_limit, eq_rows=no_eq)  # no rate limit
        self._qp_near = DenseQp(nv, nv, iter_limit, eq_rows=no_eq)  # nearest to the box
        self._qp_near.H = np.eye(nv)
        self._k_nom = np.clip(gains.kp, gains.kp_min, gains.kp_max)
        self._kd_nom = gains.kd.copy()  # scheduled with _k_nom (set_gain_scale)
        self._dead = np.r_[np.full(3, gains.force_dead), np.full(3, gains.moment_dead)]
        self._span = np.r_[np.full(3, gains.force_sat), np.full(3, gains.moment_sat)] - self._dead
        self._k_drop = self._k_nom - gains.kp_min  # full softening per axis [1/s²]; (6,)
        self._k_tol = 1e-9 * self._k_nom.max()  # "restored" tolerance [1/s²]
        self._alpha_soft = 1.0 - math.exp(-self.dt / gains.t_soften)
        self._alpha_rest = 1.0 - math.exp(-self.dt / gains.t_restore)
        tm = np.zeros(nv) if limits.tau_margin is None else np.asarray(limits.tau_margin, float)
        self._tau_hi = limits.tau_max - tm
        self._tau_lo = -self._tau_hi
        self._shift = np.zeros(nv)  # Jᵀ F − h: torque bounds → bounds on M q̈
        self._reg_I = np.eye(nv) * 1e-9
        self._lower = np.tri(nv, k=-1, dtype=bool)  # strict lower triangle of M
        self._use_ki = bool(np.any(gains.ki))
        self._e = np.zeros(6)  # task error (position, rotation); views below
        self._e_pos, self._e_rot = self._e[:3], self._e[3:]
        self._u, self._w = np.zeros(6), np.zeros(6)  # task target, velocity error; (6,)
        self._u_pos, self._u_rot = self._u[:3], self._u[3:]
        self._w_pos, self._w_rot = self._w[:3], self._w[3:]
        self._box = JointBox(limits, self.dt)  # the joint-acceleration box
        self._A2 = self._qp2.A  # [M; J] rows of level 2
        self._A2_M, self._A2_J = self._A2[:nv], self._A2[nv:]
        imp = None if implicit_damping is None else np.asarray(implicit_damping, float)
        self._imp = imp if imp is not None and np.count_nonzero(imp) else None
        # The sensor source's M is built in place in level 2's rows unless those rows hold
        # M + Δt D (implicit damping); (nv, nv).
        self._M = self._A2_M if self._imp is None else np.zeros((nv, nv))
        self._Mt = np.zeros((nv, nv))  # M + Δt D (torque rows) when implicit
        unc = None if torque_uncertainty is None else np.asarray(torque_uncertainty, float)
        self._unc = unc if unc is not None and np.count_nonzero(unc) else None
        self._eye = np.eye(nv)
        wu = (
            None
            if wrench_uncertainty is None
            else np.repeat(np.asarray(wrench_uncertainty, float), 3)
        )
        self._w_unc = wu if wu is not None and np.count_nonzero(wu) else None
        self._bl2_task, self._bu2_task = b2l[2 * nv :], b2u[2 * nv :]
        self._qp2.H = self._H2 = np.zeros((nv, nv))
        self.stats: dict[str, int] = {}
        self.reset()

    def reset(self) -> None:
        """Nominal stiffness, zero integral, preload off, zero previous torque and counters."""
        self.kp = self._k_nom.copy()
        self.kd = self._kd_nom.copy()
        self._nominal = True  # kp == k_nom (adaptation idle until a force leaves the dead band)
        self.integral = np.zeros(3)
        self.preload_activation = 0.0
        self.tau_prev = np.zeros(self.model.nv)
        self.qdd = np.zeros(self.model.nv)  # last joint acceleration (predicted) [rad/s²]
        self.qdd1 = np.zeros(self.model.nv)  # level 1's solution [rad/s²]
        self.F_used = np.zeros(6)
        self.stats = {"steps": 0, "level1_quadprog": 0, "level1_infeasible": 0,
                      "task_yield": 0, "level2_failed": 0, "hold": 0,
                      "robust_infeasible": 0}  # fmt: skip
        if self.observer is not None:
            self.observer.reset()

    def set_gain_scale(self, stiffness: float, damping: float) -> None:
        """Nominal stiffness and damping = the gains' × ``stiffness`` and × ``damping`` [-].

        The adapted stiffness moves to the new nominal with the adaptation's time constants
        (``t_restore`` up, ``t_soften`` down), so a schedule step is smoothed.
        """
        g = self.gains
        self._k_nom = np.clip(g.kp * stiffness, g.kp_min, g.kp_max)
        self._k_drop = self._k_nom - g.kp_min
        self._kd_nom = g.kd * damping
        self._nominal = False  # let the adaptation move kp to the new nominal

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
        m, d, obs = self.model, self.data, self.observer
        oMf, J, dJ = frame_kinematics(m, d, self.fid, q, v)  # J, J̇: (6, nv)
        if obs is not None and obs.q_last is q and obs.v_last is v:
            M, h = obs.M, obs.bias()  # the observer was just updated at this very state
        else:
            M = self._M  # (nv, nv); CRBA fills the upper triangle
            M[:] = pin.crba(m, d, q)
            np.copyto(M, M.T, where=self._lower)  # (cheaper than fancy indexing)
            h = pin.nonLinearEffects(m, d, q, v)  # (nv,)
        F = self._wrench(J, F_ext)
        JtF = F.dot(J)  # Jᵀ F; (nv,)
        self._adapt(F)
        b = self._task_target(reference, oMf, J, dJ, M, F, JtF, v)
        self._box.write(q, v, self._qp1.x_lb, self._qp1.x_ub)  # level 1's box
        self._torque_bounds(h, JtF)  # into level 1's rows
        Mt = M
        if self._imp is not None:  # the torque rows: M + Δt D (see implicit_damping)
            Mt = self._Mt
            np.copyto(Mt, M)
            Mt.flat[:: len(v) + 1] += self._imp
        if self._unc is not None or self._w_unc is not None:
            unc = self._wrench_unc(J) if self._w_unc is not None else self._unc
            assert unc is not None
            self._shrink_box(Mt, unc)
        qdd = self._solve(J, M, b, q, v, Mt)
        self.stats["steps"] += 1
        if qdd is None:  # nothing solved: hold the previous torque within the limits
            self.stats["hold"] += 1
            tau = np.clip(self.tau_prev, -self._tau_hi, self._tau_hi)
        else:
            tau = Mt.dot(qdd)
            tau += h
            tau -= JtF
            np.minimum(np.maximum(tau, self._tau_lo, out=tau), self._tau_hi, out=tau)  # solver tol.
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

    def _adapt(self, F: np.ndarray) -> None:
        """First-order stiffness adaptation toward ``k*`` (module docstring)."""
        load = np.abs(F) - self._dead
        if self._nominal and not np.count_nonzero(load > 0.0):
            return  # no contact and nothing to restore
        g, kp = self.gains, self.kp
        sigma = np.divide(load, self._span, out=load)
        np.minimum(np.maximum(sigma, 0.0, out=sigma), 1.0, out=sigma)
        k_star = self._k_nom - sigma * self._k_drop
        alpha = np.where(k_star < kp, self._alpha_soft, self._alpha_rest)
        k_star -= kp
        k_star *= alpha
        kp += k_star  # kp += α (k* − kp)
        np.minimum(np.maximum(kp, g.kp_min, out=kp), g.kp_max, out=kp)
        # restored: no load and |kp − k_nom| ≤ tol on every axis (a NaN fails the comparison)
        if (
            not np.count_nonzero(sigma)
            and np.count_nonzero(np.abs(kp - self._k_nom) <= self._k_tol) == kp.size
        ):
            kp[:] = self._k_nom  # restored
            self._nominal = True
        else:
            self._nominal = False
        np.multiply(self._kd_nom, np.sqrt(self.kp / self._k_nom), out=self.kd)

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
        """``b = u − J̇ v``, the level-1 target of ``J q̈``; (6,)."""
        g, e, u, w = self.gains, self._e, self._u, self._w
        np.subtract(reference.pos, oMf.translation, out=self._e_pos)
        self._e_rot[:] = pin.log3(reference.rot.dot(oMf.rotation.T))
        np.negative(J.dot(v), out=w)  # ẋ_d − J v, with ẋ_d added below; (6,)
        self._w_pos += reference.vel
        w_d = reference.V_d[3:]  # body angular velocity of the reference (zero when fixed)
        rocking = np.count_nonzero(w_d)  # (count_nonzero: far cheaper than .any() at 1 kHz)
        if rocking:  # world ω_d = R_d ω_b, ω̇_d = R_d ω̇_b, as in CIC
            self._w_rot += reference.rot.dot(w_d)
        np.multiply(self.kd, w, out=u)
        u += self.kp * e
        self._u_pos += reference.acc
        if rocking:
            self._u_rot += reference.rot.dot(reference.Vdot_d[3:])
        if self._use_ki:
            integral = self.integral
            integral += self._e_pos * self.dt
            np.minimum(np.maximum(integral, -g.i_limit, out=integral), g.i_limit, out=integral)
            self._u_pos += g.ki * integral
        rhs = JtF  # Jᵀ (F + F_pre)
        if self.preload_force:
            F3 = F[:3]  # ‖F₃‖ as np.linalg.norm computes it (√ of the dot), without its overhead
            on = float(math.sqrt(F3.dot(F3)) > self.contact_threshold)
            self.preload_activation += self._alpha_soft * (on - self.preload_activation)
            f_pre = self.preload_activation * self.preload_force * oMf.rotation[:, 2]
            rhs = rhs + f_pre.dot(J[:3])
        if np.count_nonzero(rhs):  # natural-inertia impedance: + J M⁻¹ Jᵀ (F + F_pre)
            _, y, _ = dposv(M, rhs)
            u += J.dot(y)
        u -= dJ.dot(v)
        return u

    def _torque_bounds(self, h: np.ndarray, JtF: np.ndarray) -> None:
        """Bounds on ``M q̈`` from the torque (and torque-rate) limits, into level 1's rows."""
        hi, lo = self._tau_hi, self._tau_lo
        rate = self.limits.tau_rate
        if math.isfinite(rate) and self.stats["steps"]:
            step = rate * self.dt
            hi = np.minimum(hi, self.tau_prev + step)
            lo = np.maximum(lo, self.tau_prev - step)
            lo = np.minimum(lo, hi)
        shift = self._shift
        np.subtract(JtF, h, out=shift)
        np.add(lo, shift, out=self._qp1.lb)
        np.add(hi, shift, out=self._qp1.ub)

    def _wrench_unc(self, J: np.ndarray) -> np.ndarray:
        """``u + |Jᵀ| w``: the joint torque a wrench error of up to ``w`` per axis makes; (nv,)."""
        assert self._w_unc is not None
        out = np.abs(J).T.dot(self._w_unc)
        if self._unc is not None:
            out += self._unc
        return out

    def _shrink_box(self, Mt: np.ndarray, unc: np.ndarray) -> None:
        """Shrink level 1's box by ``|Mt⁻¹| u`` (see ``torque_uncertainty``)."""
        lo, hi = self._qp1.x_lb, self._qp1.x_ub
        _, Minv, info = dposv(Mt, self._eye)
        if info != 0:  # not positive definite: leave the box (never seen on a scene)
            return
        delta = np.abs(Minv).dot(unc)
        hi -= delta
        lo += delta
        narrow = lo > hi
        if np.count_nonzero(narrow):
            self.stats["robust_infeasible"] += 1
            mid = 0.5 * (lo + hi)
            np.copyto(lo, mid, where=narrow)
            np.copyto(hi, mid, where=narrow)

    def _solve(
        self,
        J: np.ndarray,
        M: np.ndarray,
        b: np.ndarray,
        q: np.ndarray,
        v: np.ndarray,
        Mt: np.ndarray,
    ) -> np.ndarray | None:
        """Level 1, then level 2 in its null space; ``None`` when nothing can be solved.

        ``M`` weighs the objectives, ``Mt`` (``M`` or ``M + Δt D``) maps q̈ to torque rows.
        """
        qp1, nv = self._qp1, self.model.nv
        qp1.H = J.T.dot(J)
        qp1.H += self.gains.reg * M
        qp1.f = -b.dot(J)
        qp1.A = Mt
        r1 = qp1.solve()
        if r1.solver == "quadprog":
            self.stats["level1_quadprog"] += 1
        if not r1.solved:
            self.stats["level1_infeasible"] += 1
            return self._hold_torque_limits(qp1, Mt)
        qdd1 = self.qdd1 = r1.x
        g = self.gains
        tau0 = self._kp_null * (self.q_null - q)
        tau0 -= self._kd_null * v
        if g.k_sing:
            Rt = self.data.oMf[self.fid].rotation.T
            Jb = np.vstack([Rt.dot(J[:3]), Rt.dot(J[3:])])
            tau0 += g.k_sing * manipulability_gradient(Jb)[1]
        qp2 = self._qp2
        np.add(M, self._reg_I, out=self._H2)
        qp2.f = np.negative(tau0, out=tau0)
        if Mt is not self._A2_M:  # the observer's M, or M + Δt D
            self._A2_M[:] = Mt
        self._A2_J[:] = J  # [box; torque rows] are shared with level 1 already
        self._bl2_task[:] = self._bu2_task[:] = J.dot(qdd1)  # task rows: J q̈ = J q̈₁*
        r2 = qp2.solve()
        x, tol = r2.x, qp2.feas_tol
        box_ok = np.count_nonzero(x - qp1.x_ub <= tol) + np.count_nonzero(qp1.x_lb - x <= tol)
        if not (r2.solved and box_ok == 2 * nv):  # NaN fails both comparisons
            self.stats["level2_failed"] += 1
            return qdd1
        return x

    def _hold_torque_limits(self, qp1: DenseQp, M: np.ndarray) -> np.ndarray | None:
        """Fallback of an infeasible level 1 (module docstring); ``None`` if it fails too."""
        qa = self._qp_abs  # 1. the torque-rate limit yields to the joint limits
        qa.H, qa.f, qa.A = qp1.H, qp1.f, M
        qa.x_lb[:], qa.x_ub[:] = qp1.x_lb, qp1.x_ub
        np.add(self._tau_lo, self._shift, out=qa.lb)  # absolute torque limits
        np.add(self._tau_hi, self._shift, out=qa.ub)
        r = qa.solve()
        if r.solved:
            return r.x
        self.stats["task_yield"] += 1
        qn = self._qp_near  # 2. the task yields: the acceleration nearest to the box
        target = np.minimum(np.maximum(0.0, qp1.x_lb), qp1.x_ub)  # braking bound, else 0
        qn.f = -target
        qn.A, qn.lb[:], qn.ub[:] = M, qa.lb, qa.ub
        r = qn.solve()
        return r.x if r.solved else None

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
