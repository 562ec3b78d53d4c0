"""Joint limits of the command actually sent: position, speed and acceleration.

Placo keeps each step within the joint position and speed limits but has no acceleration
constraint (``facts/rm75_arm_and_teleop.md`` §7), so every command passes this limiter last.
Per joint, with the previous command's velocity ``v₀`` and control period ``dt``, the commanded
velocity ``v = (q − q₀) / dt`` is clipped to

    max(v₀ − a·dt, −v_max, −c(q₀ − lo))  ≤  v  ≤  min(v₀ + a·dt, v_max, c(hi − q₀))

where ``c(d) = a·(√(dt²/4 + 2d/a) − dt/2)`` is the fastest speed from which the joint still
stops, braking at ``a``, within the distance ``d`` to its position limit. The bounds never
cross (braking from an allowed speed stays allowed next cycle), so every command is within
the position, speed and acceleration limits by construction — including a stop: "hold" brakes
to rest at ``a`` (at most ``v_max / a`` seconds) and then stays put.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt


class JointStep(NamedTuple):
    """One limited command.

    Attributes:
        q: ``(n,)`` the command [rad].
        v: ``(n,)`` its velocity ``(q − q₀) / dt`` [rad/s].
        acc: ``(n,)`` its acceleration ``(v − v₀) / dt`` [rad/s²].
        clamps: Names of the binding limits (``joint_position``, ``joint_speed``,
            ``joint_acc``).
    """

    q: np.ndarray
    v: np.ndarray
    acc: np.ndarray
    clamps: tuple[str, ...]


class JointLimiter:
    """Position, speed and acceleration limits of one arm's joint commands.

    Args:
        lower: ``(n,)`` position limits [rad].
        upper: ``(n,)`` position limits [rad].
        max_speed: ``(n,)`` [rad/s].
        max_acc: ``(n,)`` [rad/s²].
        dt: Control period [s].
        q0: ``(n,)`` the arm's position at start [rad] (at rest).
    """

    def __init__(
        self,
        lower: npt.ArrayLike,
        upper: npt.ArrayLike,
        max_speed: npt.ArrayLike,
        max_acc: npt.ArrayLike,
        dt: float,
        q0: npt.ArrayLike,
    ) -> None:
        self.lower = np.asarray(lower, dtype=float)
        self.upper = np.asarray(upper, dtype=float)
        self.vmax = np.asarray(max_speed, dtype=float)
        self.amax = np.asarray(max_acc, dtype=float)
        self.dt = float(dt)
        self._inv_dt = 1.0 / self.dt
        self._dv = self.amax * self.dt  # [rad/s] speed change per cycle
        # Stopping-speed caps of both limits at once, rows (upper, lower): d = off + sign · q.
        self._sign = np.array([[-1.0], [1.0]])
        self._off = np.stack([self.upper, -self.lower])  # (2, n)
        self._k = 2.0 / self.amax
        self._c = 0.25 * self.dt * self.dt
        self.q = np.zeros(self.lower.shape)
        self.v = np.zeros(self.lower.shape)
        self.reset(q0)

    def reset(self, q: npt.ArrayLike) -> None:
        """Restart at rest at ``q`` (after a reset or a re-sync to feedback), clipped to limits."""
        self.q = np.clip(np.asarray(q, dtype=float), self.lower, self.upper)
        self.v = np.zeros_like(self.q)

    @property
    def at_rest(self) -> bool:
        """Whether the last command did not move."""
        return not bool(np.any(self.v))

    def _stop_speeds(self) -> np.ndarray:
        """``(2, n)`` fastest speeds [rad/s] towards the upper / lower limit.

        From these the joint still stops within the distance left, braking at ``amax``.
        """
        d = np.maximum(self._off + self._sign * self.q, 0.0)
        return self.amax * (np.sqrt(self._c + self._k * d) - 0.5 * self.dt)

    def step(self, q_des: npt.ArrayLike) -> JointStep:
        """The command nearest ``q_des`` within every limit; it becomes the new state."""
        v_des = (np.asarray(q_des, dtype=float) - self.q) * self._inv_dt
        cap = self._stop_speeds()
        v_acc_lo, v_acc_hi = self.v - self._dv, self.v + self._dv
        lo = np.maximum(np.maximum(v_acc_lo, -self.vmax), -cap[1])
        hi = np.minimum(np.minimum(v_acc_hi, self.vmax), cap[0])
        v = np.minimum(np.maximum(v_des, lo), hi)
        clamps: tuple[str, ...] = ()
        if (v != v_des).any():
            clamps = _binding(v, v_des, (v_acc_lo, v_acc_hi), self.vmax, (-cap[1], cap[0]))
        q = np.minimum(np.maximum(self.q + v * self.dt, self.lower), self.upper)  # round-off
        acc = (v - self.v) * self._inv_dt
        self.q, self.v = q, v
        return JointStep(q, v, acc, clamps)

    def brake(self) -> JointStep:
        """Hold: slow down towards rest within the limits (no new motion is commanded)."""
        return self.step(self.q)


def _binding(
    v: np.ndarray,
    v_des: np.ndarray,
    acc: tuple[np.ndarray, np.ndarray],
    vmax: np.ndarray,
    pos: tuple[np.ndarray, np.ndarray],
) -> tuple[str, ...]:
    """Which limits set ``v`` where it differs from ``v_des`` (plain floats: n is small)."""
    found = set()
    rows = zip(v.tolist(), v_des.tolist(), *(b.tolist() for b in (*acc, vmax, *pos)), strict=True)
    for vi, di, a_lo, a_hi, vm, p_lo, p_hi in rows:
        if vi == di:
            continue
        if vi in (p_lo, p_hi):
            found.add("joint_position")
        if abs(vi) == vm:
            found.add("joint_speed")
        if vi in (a_lo, a_hi):
            found.add("joint_acc")
    return tuple(n for n in ("joint_position", "joint_speed", "joint_acc") if n in found)
