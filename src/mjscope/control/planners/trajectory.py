"""Position trajectories in the world frame, all with ``get_state(t) -> (pos, vel, acc)``.

Every trajectory starts at rest at its start point; before ``t0`` it holds there. Quintic
segments use the minimum-jerk blend ``s(τ) = 10τ³ − 15τ⁴ + 6τ⁵`` (zero velocity and
acceleration at both ends). Circle and figure-8 ramp their phase rate up with the same blend,
so velocity and acceleration are continuous from rest.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
import numpy.typing as npt

State = tuple[np.ndarray, np.ndarray, np.ndarray]  # pos [m], vel [m/s], acc [m/s²]; (3,) each


def quintic_blend(tau: float) -> tuple[float, float, float]:
    """Minimum-jerk blend and its first two derivatives at ``tau`` ∈ [0, 1] (clipped)."""
    t = min(max(tau, 0.0), 1.0)
    s = t**3 * (10.0 - 15.0 * t + 6.0 * t * t)
    ds = 30.0 * t * t * (1.0 - t) ** 2
    dds = 60.0 * t * (1.0 - t) * (1.0 - 2.0 * t)
    return s, ds, dds


class Trajectory(ABC):
    """A world-frame position trajectory."""

    duration: float = 0.0  # time at which the motion ends [s] (inf for periodic ones)

    @abstractmethod
    def get_state(self, t: float) -> State:
        """Position [m], velocity [m/s], acceleration [m/s²] at time ``t`` [s]; (3,) each."""

    def segment(self, t: float) -> int:
        """Index of the segment active at ``t`` (0 for single-segment trajectories)."""
        return 0


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

    def get_state(self, t: float) -> State:
        """See :meth:`Trajectory.get_state`."""
        seg = self.approach if self.segment(t) == 0 else self.insertion
        return seg.get_state(t)


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

    def phase(self, t: float) -> tuple[float, float, float]:
        """φ [rad], φ̇ [rad/s], φ̈ [rad/s²] at ``t``."""
        tau = (t - self.t0) / self.ramp
        if tau <= 0.0:
            return 0.0, 0.0, 0.0
        if tau >= 1.0:
            return self.omega * (0.5 * self.ramp + (t - self.t0 - self.ramp)), self.omega, 0.0
        integral = tau**4 * (2.5 - 3.0 * tau + tau * tau)
        s, ds, _ = quintic_blend(tau)
        return self.omega * self.ramp * integral, self.omega * s, self.omega * ds / self.ramp


class CircleTrajectory(_Periodic):
    """Circle of radius ``size`` through ``p0`` in the plane (e1, e2); centre at p0 − r·e1."""

    def get_state(self, t: float) -> State:
        """See :meth:`Trajectory.get_state`."""
        phi, dphi, ddphi = self.phase(t)
        r, c, s = self.size, np.cos(phi), np.sin(phi)
        radial = c * self.e1 + s * self.e2
        tangent = -s * self.e1 + c * self.e2
        pos = self.p0 - r * self.e1 + r * radial
        return pos, r * dphi * tangent, r * ddphi * tangent - r * dphi**2 * radial


class Figure8Trajectory(_Periodic):
    """Figure-8 (Gerono lemniscate) ``p0 + A sin φ e1 + (A/2) sin 2φ e2``."""

    def get_state(self, t: float) -> State:
        """See :meth:`Trajectory.get_state`."""
        phi, dphi, ddphi = self.phase(t)
        a = self.size
        s1, c1, s2, c2 = np.sin(phi), np.cos(phi), np.sin(2 * phi), np.cos(2 * phi)
        pos = self.p0 + a * s1 * self.e1 + 0.5 * a * s2 * self.e2
        vel = a * c1 * dphi * self.e1 + a * c2 * dphi * self.e2
        acc = (
            a * (c1 * ddphi - s1 * dphi**2) * self.e1
            + a * (c2 * ddphi - 2.0 * s2 * dphi**2) * self.e2
        )
        return pos, vel, acc
