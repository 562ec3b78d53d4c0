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

from math import sqrt
from typing import NamedTuple, cast

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
        self._moving = False
        # The distance from a limit beyond which its stopping-speed cap exceeds v_max [rad]
        # (with a margin, so skipping the cap there is exact).
        far = (((self.vmax / self.amax + 0.5 * self.dt) ** 2 - self._c) / self._k) * (1 + 1e-9)
        self._rows: tuple[list[float], ...] = tuple(  # per-joint constants as plain floats
            a.tolist()
            for a in (self.lower, self.upper, self.vmax, self.amax, self._dv, self._k, far + 1e-12)
        )
        self.reset(q0)

    def reset(self, q: npt.ArrayLike) -> None:
        """Restart at rest at ``q`` (after a reset or a re-sync to feedback), clipped to limits."""
        self.q = np.minimum(np.maximum(np.asarray(q, dtype=float), self.lower), self.upper)
        self.v = np.zeros_like(self.q)
        self._moving = False

    @property
    def at_rest(self) -> bool:
        """Whether the last command did not move."""
        return not self._moving

    def _stop_speeds(self) -> np.ndarray:
        """``(2, n)`` fastest speeds [rad/s] towards the upper / lower limit.

        From these the joint still stops within the distance left, braking at ``amax``.
        """
        d = np.maximum(self._off + self._sign * self.q, 0.0)
        return self.amax * (np.sqrt(self._c + self._k * d) - 0.5 * self.dt)

    def step(self, q_des: npt.ArrayLike) -> JointStep:
        """The command nearest ``q_des`` within every limit; it becomes the new state.

        Per joint in plain floats (n is 7: NumPy's per-call cost would dominate), with the
        same operations in the same order as the vector form in the module docstring.
        """
        qd = cast(list[float], np.asarray(q_des, dtype=float).tolist())
        q0 = cast(list[float], self.q.tolist())
        v0 = cast(list[float], self.v.tolist())
        dt, inv_dt = self.dt, self._inv_dt
        c, half = self._c, 0.5 * self.dt
        qs: list[float] = []
        vs: list[float] = []
        accs: list[float] = []
        hit = 0  # bit mask: 1 position, 2 speed, 4 acceleration
        # x if x >= y else y is max(x, y) (and <= is min) without the call; far from a limit
        # (d ≥ far) the stopping-speed cap exceeds v_max, so it cannot bind: skip its sqrt.
        for qi, vi0, di, lo, up, vm, am, dv, k, far in zip(q0, v0, qd, *self._rows, strict=True):
            v_des = (di - qi) * inv_dt
            du, dl = up - qi, qi - lo
            cap_up = _INF if du >= far else am * (sqrt(c + k * (du if du >= 0.0 else 0.0)) - half)
            cap_lo = _INF if dl >= far else am * (sqrt(c + k * (dl if dl >= 0.0 else 0.0)) - half)
            a_lo, a_hi = vi0 - dv, vi0 + dv
            b_lo = a_lo if a_lo >= -vm else -vm
            b_lo = b_lo if b_lo >= -cap_lo else -cap_lo
            b_hi = a_hi if a_hi <= vm else vm
            b_hi = b_hi if b_hi <= cap_up else cap_up
            v = v_des if v_des >= b_lo else b_lo
            v = v if v <= b_hi else b_hi
            if v != v_des:
                hit |= (v in (-cap_lo, cap_up)) | (abs(v) == vm) << 1 | (v in (a_lo, a_hi)) << 2
            qn = qi + v * dt
            qn = qn if qn >= lo else lo  # round-off
            qs.append(qn if qn <= up else up)
            vs.append(v)
            accs.append((v - vi0) * inv_dt)
        self.q, self.v = np.array(qs), np.array(vs)
        self._moving = any(vs)
        return JointStep(self.q, self.v, np.array(accs), _CLAMPS[hit])

    def brake(self) -> JointStep:
        """Hold: slow down towards rest within the limits (no new motion is commanded)."""
        return self.step(self.q)


_INF = float("inf")

#: Binding-limit names by bit mask (1 position, 2 speed, 4 acceleration), in report order.
_CLAMPS = tuple(
    tuple(n for bit, n in ((1, "joint_position"), (2, "joint_speed"), (4, "joint_acc")) if m & bit)
    for m in range(8)
)
