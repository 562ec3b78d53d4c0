"""Joint-acceleration box of the HQP (:mod:`.hqp`): position (braking), velocity, acceleration.

For each joint, with ``d⁺ = q_max − m − q`` and ``d⁻ = q − q_min − m`` (margin ``m``), MuJoCo's
semi-implicit Euler step ``v' = v + Δt q̈`` and a braking deceleration ``a_b``:
``v' ≤ min(v_max, √(2 a_b d⁺₊), d⁺/Δt)``, ``v' ≥ −min(v_max, √(2 a_b d⁻₊), d⁻/Δt)``, so
``(v'_lo − v)/Δt ≤ q̈ ≤ (v'_hi − v)/Δt``, intersected with ``|q̈| ≤ a_max``; when a joint is
already too fast to stop within ``a_max``, the position/velocity bound wins.
"""

from __future__ import annotations

import numpy as np

from mjscope.control.controllers.hqp_config import JointLimits


class JointBox:
    """The box ``x_lb ≤ q̈ ≤ x_ub`` of :class:`JointLimits` at a control period ``dt`` [s].

    Work arrays are stacked (2, nv): row 0 the upper side, row 1 the lower side (sign-flipped).
    """

    def __init__(self, limits: JointLimits, dt: float) -> None:
        nv = len(limits.q_min)
        self.dt = float(dt)
        self._q_lim = np.vstack([limits.q_max - limits.margin, -(limits.q_min + limits.margin)])
        self._side = np.array([[1.0], [-1.0]])
        self._v_max2 = np.vstack([limits.v_max, limits.v_max])
        self._a_max2 = np.vstack([limits.a_max, -limits.a_max])
        self._two_ab = 2.0 * limits.brake_acc
        # Room beyond which √(2 a_b d) and d/Δt both exceed v_max [rad]; (2, nv).
        self._far = np.maximum(self._v_max2**2 / self._two_ab, self._v_max2 * self.dt)
        self._v_hi_dt = limits.v_max / self.dt
        self._v_lo_dt = -self._v_hi_dt
        self._a_hi, self._a_lo = self._a_max2[0], self._a_max2[1]
        self._box_hi, self._box_lo = np.zeros(nv), np.zeros(nv)
        self._dist, self._near = np.zeros((2, nv)), np.zeros((2, nv), bool)  # work arrays
        self._v_dt = np.zeros(nv)

    def write(self, q: np.ndarray, v: np.ndarray, x_lb: np.ndarray, x_ub: np.ndarray) -> None:
        """Joint-acceleration box from position (braking distance), velocity, acceleration.

        Args:
            q: Joint positions [rad]; (nv,).
            v: Joint velocities [rad/s]; (nv,).
            x_lb: Receives the lower bound on q̈ [rad/s²]; (nv,).
            x_ub: Receives the upper bound on q̈ [rad/s²]; (nv,).
        """
        dt, dist = self.dt, self._dist
        np.multiply(self._side, q, out=dist)
        np.subtract(self._q_lim, dist, out=dist)  # (2, nv): room to the upper / lower limit [rad]
        if not np.count_nonzero(np.less_equal(dist, self._far, out=self._near)):
            # far from every limit: only v_max binds
            v_dt = np.divide(v, dt, out=self._v_dt)
            np.subtract(self._v_hi_dt, v_dt, out=self._box_hi)  # (v_max − v)/Δt
            np.minimum(self._box_hi, self._a_hi, out=x_ub)
            np.subtract(self._v_lo_dt, v_dt, out=self._box_lo)  # (−v_max − v)/Δt
            np.maximum(self._box_lo, self._a_lo, out=x_lb)
            np.maximum(x_ub, self._box_lo, out=x_ub)  # velocity bound wins
            np.minimum(x_lb, self._box_hi, out=x_lb)
            return
        reach = np.sqrt(self._two_ab * np.maximum(dist, 0.0))
        np.minimum(reach, self._v_max2, out=reach)
        np.minimum(reach, dist / dt, out=reach)  # v' ≤ reach[0], v' ≥ −reach[1]
        a_v = self._side * reach
        a_v -= v
        a_v /= dt  # [a_hi_v; a_lo_v]: the position/velocity bounds on q̈
        a_hi_v, a_lo_v = a_v[0], a_v[1]
        np.minimum(a_lo_v, a_hi_v, out=a_lo_v)
        box = np.minimum(self._a_max2, a_hi_v)  # [min(a_max, a_hi_v); min(−a_max, a_hi_v)]
        np.maximum(box, a_lo_v, out=box)  # [hi; lo]: the position/velocity bound wins
        x_ub[:], x_lb[:] = box
