"""Position trajectories in the world frame, all with ``get_state(t) -> (pos, vel, acc)``.

Every trajectory starts at rest at its start point; before ``t0`` it holds there. Quintic
segments use the minimum-jerk blend ``s(τ) = 10τ³ − 15τ⁴ + 6τ⁵`` (zero velocity and
acceleration at both ends). Circle and figure-8 ramp their phase rate up with the same blend,
so velocity and acceleration are continuous from rest.

``get_states(ts)`` evaluates many instants at once (one row per instant). The built-in
trajectories vectorise it with the same floating-point operations as ``get_state``, so a row
equals the single-instant result; the base class falls back to a loop for user subclasses.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TypeVar

import numpy as np
import numpy.typing as npt

State = tuple[np.ndarray, np.ndarray, np.ndarray]  # pos [m], vel [m/s], acc [m/s²]; (3,) each
States = tuple[np.ndarray, np.ndarray, np.ndarray]  # the same for n instants; (n, 3) each
_F = TypeVar("_F", float, np.ndarray)


def _blend(t: _F) -> tuple[_F, _F, _F]:
    """Minimum-jerk blend at ``t`` ∈ [0, 1] (float or array; products only, no ``pow``)."""
    u = 1.0 - t
    s = t * t * t * (10.0 - 15.0 * t + 6.0 * t * t)
    return s, 30.0 * t * t * (u * u), 60.0 * t * u * (1.0 - 2.0 * t)


def quintic_blend(tau: float) -> tuple[float, float, float]:
    """Minimum-jerk blend and its first two derivatives at ``tau`` ∈ [0, 1] (clipped)."""
    return _blend(min(max(tau, 0.0), 1.0))


def quintic_blends(tau: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`quintic_blend` for an array of ``tau``; three arrays of its shape."""
    return _blend(np.clip(np.asarray(tau, float), 0.0, 1.0))


class Trajectory(ABC):
    """A world-frame position trajectory."""

    duration: float = 0.0  # time at which the motion ends [s] (inf for periodic ones)

    @abstractmethod
    def get_state(self, t: float) -> State:
        """Position [m], velocity [m/s], acceleration [m/s²] at time ``t`` [s]; (3,) each."""

    def segment(self, t: float) -> int:
        """Index of the segment active at ``t`` (0 for single-segment trajectories)."""
        return 0

    def get_states(self, ts: npt.ArrayLike) -> States:
        """:meth:`get_state` at each of ``ts`` [s] (n,); (n, 3) each (a loop by default)."""
        rows = [self.get_state(float(t)) for t in np.asarray(ts, float)]
        pos, vel, acc = (np.array([r[i] for r in rows], float).reshape(-1, 3) for i in range(3))
        return pos, vel, acc

    def segments(self, ts: npt.ArrayLike) -> np.ndarray:
        """:meth:`segment` at each of ``ts`` [s]; (n,) int."""
        return np.array([self.segment(float(t)) for t in np.asarray(ts, float)], np.int64)


class QuinticTrajectory(Trajectory):
    """Straight line from ``p0`` to ``p1`` in ``T`` seconds, starting at ``t0``.

    Args:
        p0: Start [m]; (3,).
        p1: Goal [m]; (3,).
        T: Duration [s] (> 0).
        t0: Start time [s].
    """

    def __init__(self, p0: npt.ArrayLike, p1: npt.ArrayLike, T: float, t0: float = 0.0) -> None:
        if T <= 0:
            raise ValueError(f"quintic duration must be > 0, got {T}")
        self.p0 = np.asarray(p0, float).copy()
        self.p1 = np.asarray(p1, float).copy()
        self.T, self.t0 = float(T), float(t0)
        self.duration = self.t0 + self.T
        self._delta = self.p1 - self.p0

    def get_state(self, t: float) -> State:
        """See :meth:`Trajectory.get_state`."""
        s, ds, dds = quintic_blend((t - self.t0) / self.T)
        d = self._delta
        return self.p0 + s * d, (ds / self.T) * d, (dds / (self.T * self.T)) * d

    def get_states(self, ts: npt.ArrayLike) -> States:
        """See :meth:`Trajectory.get_states`."""
        s, ds, dds = quintic_blends((np.asarray(ts, float) - self.t0) / self.T)
        d = self._delta
        vel, acc = (ds / self.T)[:, None] * d, (dds / (self.T * self.T))[:, None] * d
        return self.p0 + s[:, None] * d, vel, acc


class TwoSegmentTrajectory(Trajectory):
    """Approach (``p0`` → ``p_pre`` in ``T1``), then insertion (``p_pre`` → ``p_goal`` in ``T2``).

    Segment 0 is the approach (including the hold before ``t0``), segment 1 the insertion
    (and the hold after it).
    """

    def __init__(
        self,
        p0: npt.ArrayLike,
        p_pre: npt.ArrayLike,
        p_goal: npt.ArrayLike,
        T1: float,
        T2: float,
        t0: float = 0.0,
    ) -> None:
        self.approach = QuinticTrajectory(p0, p_pre, T1, t0)
        self.insertion = QuinticTrajectory(p_pre, p_goal, T2, t0 + T1)
        self.duration = self.insertion.duration

    def segment(self, t: float) -> int:
        """0 while approaching, 1 from the start of the insertion on."""
        return 0 if t < self.insertion.t0 else 1

    def segments(self, ts: npt.ArrayLike) -> np.ndarray:
        """See :meth:`Trajectory.segments`."""
        return (np.asarray(ts, float) >= self.insertion.t0).astype(np.int64)

    def get_state(self, t: float) -> State:
        """See :meth:`Trajectory.get_state`."""
        seg = self.approach if self.segment(t) == 0 else self.insertion
        return seg.get_state(t)

    def get_states(self, ts: npt.ArrayLike) -> States:
        """See :meth:`Trajectory.get_states`."""
        ts = np.asarray(ts, float)
        second = (self.segments(ts) == 1)[:, None]
        a, b = self.approach.get_states(ts), self.insertion.get_states(ts)
        return (
            np.where(second, b[0], a[0]),
            np.where(second, b[1], a[1]),
            np.where(second, b[2], a[2]),
        )


class _Periodic(Trajectory):
    """Phase φ(t) whose rate ramps from 0 to ω = 2π/period over ``ramp_time``."""

    def __init__(
        self,
        p0: npt.ArrayLike,
        size: float,
        period: float,
        ramp_time: float = 0.5,
        t0: float = 0.0,
        plane: tuple[npt.ArrayLike, npt.ArrayLike] = ((1, 0, 0), (0, 1, 0)),
    ) -> None:
        if period <= 0 or ramp_time <= 0:
            raise ValueError("period and ramp_time must be > 0")
        self.p0 = np.asarray(p0, float).copy()
        self.size, self.omega = float(size), 2.0 * np.pi / period
        self.ramp, self.t0 = float(ramp_time), float(t0)
        self.e1 = np.asarray(plane[0], float) / np.linalg.norm(plane[0])
        self.e2 = np.asarray(plane[1], float) / np.linalg.norm(plane[1])
        self.duration = float("inf")

    def get_state(self, t: float) -> State:
        """See :meth:`Trajectory.get_state`."""
        return self._states(*self.phase(t))

    def get_states(self, ts: npt.ArrayLike) -> States:
        """See :meth:`Trajectory.get_states`."""
        return self._states(*(x[:, None] for x in self.phases(np.asarray(ts, float))))

    @abstractmethod
    def _states(self, phi: _F, dphi: _F, ddphi: _F) -> State:
        """Position, velocity, acceleration for phase φ and its derivatives (per shape)."""

    def phase(self, t: float) -> tuple[float, float, float]:
        """φ [rad], φ̇ [rad/s], φ̈ [rad/s²] at ``t``."""
        tau = (t - self.t0) / self.ramp
        if tau <= 0.0:
            return 0.0, 0.0, 0.0
        if tau >= 1.0:
            return self.omega * (0.5 * self.ramp + (t - self.t0 - self.ramp)), self.omega, 0.0
        integral = tau * tau * (tau * tau) * (2.5 - 3.0 * tau + tau * tau)
        s, ds, _ = quintic_blend(tau)
        return self.omega * self.ramp * integral, self.omega * s, self.omega * ds / self.ramp

    def phases(self, ts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`phase` at each of ``ts`` [s]; three (n,) arrays."""
        ts = np.asarray(ts, float)
        tau = (ts - self.t0) / self.ramp
        r = np.clip(tau, 0.0, 1.0)
        s, ds, _ = _blend(r)
        integral = r * r * (r * r) * (2.5 - 3.0 * r + r * r)
        ramp = (self.omega * self.ramp * integral, self.omega * s, self.omega * ds / self.ramp)
        steady = self.omega * (0.5 * self.ramp + (ts - self.t0 - self.ramp))
        done, rest = tau >= 1.0, tau <= 0.0
        phi = np.where(done, steady, np.where(rest, 0.0, ramp[0]))
        dphi = np.where(done, self.omega, np.where(rest, 0.0, ramp[1]))
        return phi, dphi, np.where(done | rest, 0.0, ramp[2])


class CircleTrajectory(_Periodic):
    """Circle of radius ``size`` through ``p0`` in the plane (e1, e2); centre at p0 − r·e1."""

    def _states(self, phi: _F, dphi: _F, ddphi: _F) -> State:
        r, c, s = self.size, np.cos(phi), np.sin(phi)
        radial = c * self.e1 + s * self.e2
        tangent = -s * self.e1 + c * self.e2
        pos = self.p0 - r * self.e1 + r * radial
        return pos, r * dphi * tangent, r * ddphi * tangent - r * (dphi * dphi) * radial


class Figure8Trajectory(_Periodic):
    """Figure-8 (Gerono lemniscate) ``p0 + A sin φ e1 + (A/2) sin 2φ e2``."""

    def _states(self, phi: _F, dphi: _F, ddphi: _F) -> State:
        a = self.size
        s1, c1, s2, c2 = np.sin(phi), np.cos(phi), np.sin(2 * phi), np.cos(2 * phi)
        pos = self.p0 + a * s1 * self.e1 + 0.5 * a * s2 * self.e2
        vel = a * c1 * dphi * self.e1 + a * c2 * dphi * self.e2
        acc = (
            a * (c1 * ddphi - s1 * (dphi * dphi)) * self.e1
            + a * (c2 * ddphi - 2.0 * s2 * (dphi * dphi)) * self.e2
        )
        return pos, vel, acc
