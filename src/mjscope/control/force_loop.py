"""Guarded approach and explicit force loop along an insertion axis (a reference shaper).

The shaper sits between the planner and a task-space controller and changes only the
reference's component along the insertion axis ``n`` (unit, pointing *into* the socket), in
depth coordinates ``d = (p − p_mouth) · n``:

- **guarded approach** (before contact): within ``guard_distance`` of the expected contact
  depth ``d_c`` the reference advances at most at ``guard_speed``; it lags the planner there;
- **contact detection** from the (tool-load-compensated) wrench: the force pushing the tool
  back, ``f_n = −F · n``, above ``contact_threshold`` switches to force mode, once;
- **force loop** (after contact): an admittance on the reference depth,
  ``ḋ = clip(k_f (f_target − f_n), ±max_rate)``, so the impedance controller beneath presses
  with the target preload at steady state (its stiffness turns the depth offset into force).

Lateral motion and orientation stay the planner's. The shaped reference keeps the
:class:`~mjscope.control.planners.reference.MotionReference` contract: the pose ``T_d``, world
``pos``/``vel``/``acc`` and the body twist ``V_d``/``V̇_d`` move together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mjscope.control.planners.reference import MotionReference
from mjscope.control.wrench import cross3


@dataclass(frozen=True)
class ForceLoopGains:
    """Settings of :class:`ForceLoop`.

    Attributes:
        target: Preload along the axis [N].
        contact_threshold: Force that detects contact [N].
        gain: Admittance gain k_f [m/(N·s)].
        max_rate: Largest reference depth rate in force mode [m/s].
        guard_distance: Guard zone before the expected contact depth [m].
        guard_speed: Largest reference speed along the axis in the guard zone [m/s].
    """

    target: float = 5.0
    contact_threshold: float = 2.0
    gain: float = 0.002
    max_rate: float = 0.01
    guard_distance: float = 0.004
    guard_speed: float = 0.01


class ForceLoop:
    """The shaper of the module docstring.

    Args:
        gains: Settings.
        axis: Insertion direction, world (into the socket); (3,).
        mouth: A point of the socket mouth, world [m]; (3,).
        contact_depth: Expected contact depth d_c [m] (e.g. the socket depth).
        dt: Control period [s].
        force_mode: Switch to the force loop at contact (``False``: only the guard, for a
            controller with its own preload, ``hqp``; contact is still detected).
    """

    def __init__(
        self,
        gains: ForceLoopGains,
        axis: npt.ArrayLike,
        mouth: npt.ArrayLike,
        contact_depth: float,
        dt: float,
        force_mode: bool = True,
    ) -> None:
        n = np.asarray(axis, float)
        self.gains, self.n = gains, n / np.linalg.norm(n)
        self.mouth, self.dt = np.asarray(mouth, float), float(dt)
        self.guard_from = float(contact_depth) - gains.guard_distance
        self.force_mode = force_mode
        self.reset()

    def reset(self) -> None:
        """Back to the approach: no contact, the reference depth follows the planner."""
        self.in_contact = False
        self.contact_time = math.nan
        self.depth: float | None = None  # the shaped reference depth [m]
        self.rate = 0.0  # its rate [m/s]
        self.t = 0.0

    def shape(self, ref: MotionReference, F_world: npt.ArrayLike) -> MotionReference:
        """The reference to use this period (``ref`` itself when nothing changes).

        Args:
            ref: The planner's reference.
            F_world: External wrench on the tool, world axes (compensated); (6,).
        """
        g, n = self.gains, self.n
        d_plan = float((ref.pos - self.mouth).dot(n))
        v_plan = float(ref.vel.dot(n))
        f_n = -float(np.asarray(F_world, float)[:3].dot(n))
        prev = d_plan if self.depth is None else self.depth
        if not self.in_contact and f_n > g.contact_threshold:
            self.in_contact, self.contact_time = True, self.t
        if self.in_contact and self.force_mode:
            rate = min(max(g.gain * (g.target - f_n), -g.max_rate), g.max_rate)
            depth = prev + rate * self.dt
        elif d_plan > self.guard_from and d_plan > prev:
            rate = min(g.guard_speed, (d_plan - prev) / self.dt)  # (it lags: v_plan may be 0)
            depth = prev + rate * self.dt
        else:
            depth, rate = d_plan, v_plan
        self.depth, self.rate = depth, rate
        self.t += self.dt
        if depth == d_plan and rate == v_plan:
            return ref
        return _shift(ref, (depth - d_plan) * n, (rate - v_plan) * n, -float(ref.acc.dot(n)) * n)


def _shift(ref: MotionReference, dp: np.ndarray, dv: np.ndarray, da: np.ndarray) -> MotionReference:
    """``ref`` moved by ``dp`` [m], its velocity by ``dv`` [m/s], acceleration by ``da``."""
    T = ref.T_d.copy()
    T[:3, 3] += dp
    R = ref.rot
    V, Vd = ref.V_d.copy(), ref.Vdot_d.copy()
    dv_b = R.T.dot(dv)
    V[:3] += dv_b
    Vd[:3] += R.T.dot(da) - cross3(ref.V_d[3:], dv_b)  # d/dt (Rᵀ Δv) = Rᵀ Δa − ω × Rᵀ Δv
    return MotionReference(T, V, Vd, ref.pos + dp, ref.vel + dv, ref.acc + da, R, ref.segment)
