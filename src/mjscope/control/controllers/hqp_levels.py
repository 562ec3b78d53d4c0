r"""The two prioritised QPs of the HQP (:mod:`.hqp`), their hard constraints and fallbacks.

**Hard constraints (both levels).** The joint-acceleration box of :class:`.JointBox`
(position with braking, velocity, acceleration). Torque: ``τ_lo ≤ M q̈ + h − Jᵀ F ≤ τ_hi`` with
``τ_hi = τ_max − τ_margin`` (room for the loop's friction feed-forward) and, with a rate limit
``ρ``, ``|τ − τ_prev| ≤ ρ Δt`` (from the second period on). A torque uncertainty ``u`` (see
:class:`.HqpController`) shrinks the box by ``|M⁻¹| u`` per joint.

**Level 1 — task impedance.** ``min ½ ‖J q̈ − b‖² + ½ ε q̈ᵀ M q̈`` (ε tiny, for a
positive-definite Hessian), ``b = u − J̇ v`` the controller's task target.

**Level 2 — null space.** ``min ½ q̈ᵀ M q̈ − τ₀ᵀ q̈`` s.t. the hard constraints and
``J q̈ = J q̈₁*`` (level 1's task acceleration kept exactly), ``τ₀`` the controller's null-space
torque. Unconstrained, this is CIC's dynamically consistent null-space term
``M⁻¹ (I − Jᵀ J̄ᵀ) τ₀``.

**Fallback.** Both QPs run on :class:`mjscope.control.qp.DenseQp` (daqp, then quadprog). When
level 1 is infeasible (a joint that can no longer stop within the torque limits, or the
torque-rate limit leaves no way to), it is solved again with the rate limit dropped (the rate
ranks below the joint limits); if that is infeasible too, the task yields for that period
("hold torque limits"): ``min ½ ‖q̈ − q̈_box‖²`` subject to the absolute torque limits only
(always feasible), with ``q̈_box`` the point of the joint box nearest to zero — the braking bound
for a joint that is too fast — so it brakes as hard as the torque allows. If even that fails, the
controller sends the previous torque clamped to the limits. A failed level 2 keeps level 1's
solution. Every case is counted in :attr:`HqpLevels.stats`: ``level1_quadprog`` (daqp failed,
quadprog solved), ``level1_infeasible`` (the fallback ran), ``task_yield`` (its second stage),
``level2_failed``, ``robust_infeasible`` (a box narrower than the uncertainty).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg.lapack import dposv

from mjscope.control.controllers import hqp_native
from mjscope.control.controllers.hqp_config import JointLimits
from mjscope.control.controllers.hqp_limits import JointBox
from mjscope.control.qp import DenseQp, within

STAT_KEYS = ("steps", "level1_quadprog", "level1_infeasible", "task_yield", "level2_failed",
             "hold", "robust_infeasible")  # fmt: skip


class HqpLevels:
    """Level 1, level 2 and the fallbacks over ``q̈`` (module docstring).

    Args:
        nv: Joints.
        limits: Hard joint limits.
        dt: Control period [s].
        iter_limit: daqp iteration cap per QP.
        reg: Level 1's ``ε`` (the ``q̈ᵀ M q̈`` weight) [-].

    Attributes:
        stats: The counters (:data:`STAT_KEYS`; ``steps`` and ``hold`` are the controller's).
        M_rows: Level 2's torque rows (nv, nv): a controller may build ``M`` there in place.
    """

    def __init__(self, nv: int, limits: JointLimits, dt: float, iter_limit: int, reg: float):
        self.nv, self.limits, self.dt, self.reg = nv, limits, float(dt), float(reg)
        no_eq = np.zeros(nv, bool)
        # Level 2 is feasible by construction (level 1's answer satisfies all its rows), so
        # daqp's infeasible-but-"optimal" answers (#82) cannot occur: its answers are not
        # re-verified (~5 µs); a non-finite or out-of-tolerance one still falls back.
        self.qp2 = DenseQp(nv, nv + 6, iter_limit, eq_rows=np.r_[no_eq, np.ones(6, bool)],
                           check=False)  # fmt: skip
        b2l, b2u = self.qp2._bl, self.qp2._bu  # [box; torque rows; task rows]
        # Level 1's bounds are the head of level 2's (same box and torque rows): no copy.
        self.qp1 = DenseQp(nv, nv, iter_limit, eq_rows=no_eq,
                           bounds=(b2l[: 2 * nv], b2u[: 2 * nv]))  # fmt: skip
        self._qp_abs = DenseQp(nv, nv, iter_limit, eq_rows=no_eq)  # no rate limit
        self._qp_near = DenseQp(nv, nv, iter_limit, eq_rows=no_eq)  # nearest to the box
        self._qp_near.H = np.eye(nv)
        tm = np.zeros(nv) if limits.tau_margin is None else np.asarray(limits.tau_margin, float)
        self.tau_hi = limits.tau_max - tm
        self.tau_lo = -self.tau_hi
        self._shift = np.zeros(nv)  # Jᵀ F − h: torque bounds → bounds on M q̈
        self._reg_I = np.eye(nv) * 1e-9
        self._box = JointBox(limits, self.dt)
        A2 = self.qp2.A  # [M; J] rows of level 2
        self.M_rows, self._A2_J = A2[:nv], A2[nv:]
        self._bl2_task, self._bu2_task = b2l[2 * nv :], b2u[2 * nv :]
        self._H2 = self.qp2.H  # (the QPs' own buffers, filled per period)
        self.qp1.H, self._regM = np.zeros((nv, nv)), np.zeros((nv, nv))
        self._eye = np.eye(nv)
        self.stats: dict[str, int] = dict.fromkeys(STAT_KEYS, 0)
        # write_bounds in C (:mod:`.hqp_native`), from these constants; None: Python
        self._native = (
            hqp_native.bounds_pack(self._box, self.tau_hi, self.tau_lo, limits.tau_rate)
            if hqp_native.enabled()
            else None
        )
        # level 1 / level 2 in C when daqp solves them (their buffers); None: Python
        self._c_levels = hqp_native.level_objs(self) if hqp_native.enabled() else None

    def reset(self) -> None:
        """Zero every counter (in place: :attr:`stats` stays the same dict)."""
        for key in self.stats:
            self.stats[key] = 0

    def write_bounds(
        self,
        q: np.ndarray,
        v: np.ndarray,
        h: np.ndarray,
        JtF: np.ndarray,
        tau_prev: np.ndarray | None,
    ) -> None:
        """The joint box and the torque (and rate, given ``tau_prev``) rows of both levels."""
        if self._native is not None:
            hqp_native.hqp_c.bounds(self._native, q, v, h, JtF, tau_prev, self.qp1._bl,
                                    self.qp1._bu, self._shift)  # fmt: skip
            return
        self._box.write(q, v, self.qp1.x_lb, self.qp1.x_ub)
        hi, lo = self.tau_hi, self.tau_lo
        rate = self.limits.tau_rate
        if tau_prev is not None and math.isfinite(rate):
            step = rate * self.dt
            hi = np.minimum(hi, tau_prev + step)
            lo = np.maximum(lo, tau_prev - step)
            lo = np.minimum(lo, hi)
        shift = self._shift
        np.subtract(JtF, h, out=shift)
        np.add(lo, shift, out=self.qp1.lb)
        np.add(hi, shift, out=self.qp1.ub)

    def shrink_box(self, Mt: np.ndarray, unc: np.ndarray) -> None:
        """Shrink the box by ``|Mt⁻¹| u`` (a torque uncertainty ``u`` [N·m]; (nv,))."""
        lo, hi = self.qp1.x_lb, self.qp1.x_ub
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

    def level1(
        self, J: np.ndarray, M: np.ndarray, b: np.ndarray, Mt: np.ndarray
    ) -> tuple[np.ndarray | None, bool]:
        """(q̈, solved): level 1, or its fallback's answer (``None``: nothing solved).

        ``M`` weighs the objective, ``Mt`` (``M`` or ``M + Δt D``) maps q̈ to torque rows.
        """
        if self._c_levels is not None:  # daqp's answer, else the Python level 1 from the start
            x = hqp_native.hqp_c.level1(self._c_levels[0], J, M, b, Mt)
            if x is not None:
                return x, True
        qp1 = self.qp1  # H written in place (np.dot(out=) on a (6, nv) costs more than .dot)
        H = qp1.H
        np.dot(J.T, J, out=H)
        H += np.multiply(M, self.reg, out=self._regM)
        np.negative(b.dot(J), out=qp1.f)
        if Mt is not qp1.A:
            qp1.A[:] = Mt
        r1 = qp1.solve()
        if r1.solver == "quadprog":
            self.stats["level1_quadprog"] += 1
        if r1.solved:
            return r1.x, True
        self.stats["level1_infeasible"] += 1
        return self._hold_torque_limits(Mt), False

    def level2(
        self, J: np.ndarray, M: np.ndarray, Mt: np.ndarray, qdd1: np.ndarray, tau0: np.ndarray
    ) -> np.ndarray:
        """Level 2 in level 1's null space for the torque ``τ₀`` (consumed); q̈ (nv,)."""
        if self._c_levels is not None:  # daqp's answer, else the Python level 2 from the start
            x = hqp_native.hqp_c.level2(self._c_levels[1], J, M, Mt, qdd1, tau0)
            if x is not None:
                return x
        qp1, qp2 = self.qp1, self.qp2
        np.add(M, self._reg_I, out=self._H2)
        np.negative(tau0, out=qp2.f)
        if Mt is not self.M_rows:  # the observer's M, or M + Δt D
            self.M_rows[:] = Mt
        self._A2_J[:] = J  # [box; torque rows] are shared with level 1 already
        self._bl2_task[:] = self._bu2_task[:] = J.dot(qdd1)  # task rows: J q̈ = J q̈₁*
        r2 = qp2.solve()
        x = r2.x
        if not (r2.solved and within(x, qp1.x_lb, qp1.x_ub, qp2.feas_tol)):  # (NaN fails)
            self.stats["level2_failed"] += 1
            return qdd1
        return x

    def _hold_torque_limits(self, Mt: np.ndarray) -> np.ndarray | None:
        """Fallback of an infeasible level 1 (module docstring); ``None`` if it fails too."""
        qp1, qa = self.qp1, self._qp_abs  # 1. the torque-rate limit yields to the joint limits
        qa.H, qa.f, qa.A = qp1.H, qp1.f, Mt
        qa.x_lb[:], qa.x_ub[:] = qp1.x_lb, qp1.x_ub
        np.add(self.tau_lo, self._shift, out=qa.lb)  # absolute torque limits
        np.add(self.tau_hi, self._shift, out=qa.ub)
        r = qa.solve()
        if r.solved:
            return r.x
        self.stats["task_yield"] += 1
        qn = self._qp_near  # 2. the task yields: the acceleration nearest to the box
        target = np.minimum(np.maximum(0.0, qp1.x_lb), qp1.x_ub)  # braking bound, else 0
        qn.f = -target
        qn.A, qn.lb[:], qn.ub[:] = Mt, qa.lb, qa.ub
        r = qn.solve()
        return r.x if r.solved else None
