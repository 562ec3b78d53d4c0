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

from mjscope.teleop import native_chain


class JointStep(NamedTuple):
    """One limited command.

    Attributes:
        q: ``(n,)`` the command [rad].
        v: Its velocity ``(q − q₀) / dt`` per joint [rad/s] (plain floats).
        clamps: Names of the binding limits (``joint_position``, ``joint_speed``,
            ``joint_acc``).
        v0: The previous command's velocity per joint [rad/s] (plain floats).
        inv_dt: ``1 / dt`` [1/s].
    """

    q: np.ndarray
    v: list[float]
    clamps: tuple[str, ...]
    v0: list[float]
    inv_dt: float

    @property
    def acc(self) -> list[float]:
        """Its acceleration ``(v − v₀) / dt`` per joint [rad/s²] (computed when asked)."""
        return [(v - v0) * self.inv_dt for v, v0 in zip(self.v, self.v0, strict=True)]


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

    __slots__ = (
        "_c",
        "_dv",
        "_inv_dt",
        "_k",
        "_moving",
        "_native",
        "_near",
        "_off",
        "_plan",
        "_ql",
        "_rows",
        "_sign",
        "_vl",
        "amax",
        "dt",
        "lower",
        "q",
        "upper",
        "vmax",
    )

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
        self._ql: list[float] = [0.0] * self.q.size  # the state as plain floats (hot path)
        self._vl: list[float] = [0.0] * self.q.size
        self._moving = False
        # The distance from a limit beyond which its stopping-speed cap exceeds v_max [rad]
        # (with a margin, so skipping the cap there is exact).
        far = (((self.vmax / self.amax + 0.5 * self.dt) ** 2 - self._c) / self._k) * (1 + 1e-9)
        far = far + 1e-12
        safe = np.maximum(far, self.vmax * self.dt * (1 + 1e-9) + 1e-12) + 1e-12
        cols = [self.lower + safe, self.upper - safe, self.vmax, -self.vmax, self._dv]
        cols += [self.lower, self.upper, self.amax, self._k, far]
        rows = np.stack(cols, axis=1).tolist()  # per-joint constants as plain floats:
        self._rows: list[tuple[float, ...]] = [tuple(r[:5]) for r in rows]  # the usual joint's
        self._near: list[tuple[float, ...]] = [tuple(r[5:]) for r in rows]  # near a limit
        self._native = native_chain.module()  # the compiled step, if built (same floats)
        self._plan = native_chain.joint_plan(
            self.dt, self._inv_dt, self._c, [tuple(r) for r in rows]
        )
        self.reset(q0)

    def reset(self, q: npt.ArrayLike) -> None:
        """Restart at rest at ``q`` (after a reset or a re-sync to feedback), clipped to limits."""
        self.q = np.minimum(np.maximum(np.asarray(q, dtype=float), self.lower), self.upper)
        self.q.flags.writeable = False
        self._ql = cast(list[float], self.q.tolist())
        self._vl = [0.0] * len(self._ql)
        self._moving = False

    @property
    def v(self) -> np.ndarray:
        """``(n,)`` the last command's velocity [rad/s]."""
        return np.array(self._vl)

    @property
    def floats(self) -> list[float]:
        """The last command as plain floats (the values of :attr:`q`; not to be changed)."""
        return self._ql

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

    def step(self, q_des: npt.ArrayLike | list[float]) -> JointStep:
        """The command nearest ``q_des`` within every limit; it becomes the new state.

        Per joint in plain floats (n is 7: NumPy's per-call cost would dominate), with the
        same operations in the same order as the vector form in the module docstring.
        """
        qd: list[float] = q_des if type(q_des) is list else np.asarray(q_des, float).tolist()
        if self._native is not None:  # the compiled loop below (the same floats)
            cq, cv, bits, raw = self._native.joint_step(self._plan.address, self._ql, self._vl, qd)
            return self._advance(cq, cv, bits & 7, bits > 7, np.frombuffer(raw))
        dt, inv_dt = self.dt, self._inv_dt
        c, half = self._c, 0.5 * self.dt
        qs: list[float] = []
        vs: list[float] = []
        hit = 0  # bit mask: 1 position, 2 speed, 4 acceleration
        # x if x >= y else y is max(x, y) (and <= is min) without the call. Far from both
        # limits (d ≥ far) a stopping-speed cap exceeds v_max, so it cannot bind: skip its
        # sqrt; at d ≥ safe (≥ far, > v_max·dt) the position clamp cannot bind either.
        for qi, vi0, di, (lo_safe, up_safe, vm, nvm, dv), near in zip(
            self._ql, self._vl, qd, self._rows, self._near, strict=True
        ):
            v_des = (di - qi) * inv_dt
            a_lo, a_hi = vi0 - dv, vi0 + dv
            b_lo = a_lo if a_lo >= nvm else nvm
            b_hi = a_hi if a_hi <= vm else vm
            if lo_safe <= qi <= up_safe:  # the usual joint: only speed and acceleration
                v = v_des if v_des >= b_lo else b_lo
                v = v if v <= b_hi else b_hi
                if v != v_des:
                    hit |= (v == vm or v == nvm) << 1 | (v == a_lo or v == a_hi) << 2
                qs.append(qi + v * dt)
            else:
                lo, up, am, k, far = near
                du, dl = up - qi, qi - lo
                cap_up = _INF if du >= far else _cap(du, am, c, k, half)
                cap_lo = _INF if dl >= far else _cap(dl, am, c, k, half)
                b_lo = b_lo if b_lo >= -cap_lo else -cap_lo
                b_hi = b_hi if b_hi <= cap_up else cap_up
                v = v_des if v_des >= b_lo else b_lo
                v = v if v <= b_hi else b_hi
                if v != v_des:
                    hit |= (v in (-cap_lo, cap_up)) | (abs(v) == vm) << 1 | (v in (a_lo, a_hi)) << 2
                qn = qi + v * dt
                qn = qn if qn >= lo else lo  # round-off
                qs.append(qn if qn <= up else up)
            vs.append(v)
        return self._advance(qs, vs, hit, any(vs))

    def _advance(
        self,
        qs: list[float],
        vs: list[float],
        hit: int,
        moving: bool,
        q: np.ndarray | None = None,
    ) -> JointStep:
        """The new command ``qs`` (velocity ``vs``, binding limits ``hit``) becomes the state.

        ``q``: ``qs`` as a read-only array already (a view of immutable bytes), if given.
        """
        v0 = self._vl
        self._ql, self._vl = qs, vs
        if q is None:
            q = np.array(qs)
            q.flags.writeable = False  # shared by the adapter, the log and the model: unchanged
        self.q = q
        self._moving = moving
        return JointStep(q, vs, _CLAMPS[hit], v0, self._inv_dt)

    def brake(self) -> JointStep:
        """Hold: slow down towards rest within the limits (no new motion is commanded)."""
        return self.step(self._ql)


_INF = float("inf")


def _cap(d: float, am: float, c: float, k: float, half: float) -> float:
    """The stopping-speed cap ``c(d)`` at the distance ``d`` from a limit [rad/s]."""
    return am * (sqrt(c + k * (d if d >= 0.0 else 0.0)) - half)


#: Binding-limit names by bit mask (1 position, 2 speed, 4 acceleration), in report order.
_CLAMPS = tuple(
    tuple(n for bit, n in ((1, "joint_position"), (2, "joint_speed"), (4, "joint_acc")) if m & bit)
    for m in range(8)
)
