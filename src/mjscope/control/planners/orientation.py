"""A position trajectory with an orientation that rocks about a body axis: a full SE(3) motion.

``R(t) = R0 · exp(θ(t) â)`` with ``θ(t) = A · s(τ) · sin(2π (t − t0) / P)``, ``τ = (t − t0)/t_r``
and ``s`` the minimum-jerk blend (so θ, θ̇, θ̈ start at zero and the amplitude ramps up over
``t_r``). The axis ``â`` is fixed in the body frame, so the body angular velocity is ``θ̇ â`` and
its derivative ``θ̈ â`` (analytic). The body linear velocity is ``v = Rᵀ ṗ`` and, from
``p̈ = R (v̇ + ω × v)``, ``v̇ = Rᵀ p̈ − ω × v`` (Pinocchio's ordering and the convention of
:mod:`.se3_topp`).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from mjscope.control.planners.trajectory import State, States, Trajectory, quintic_blends
from mjscope.exceptions import ConfigError

MotionStates = tuple[np.ndarray, np.ndarray, np.ndarray]  # T (n, 4, 4), V (n, 6), V̇ (n, 6)


class RockingOrientation(Trajectory):
    """``position``'s path with the orientation oscillating about a body axis.

    Args:
        position: Position trajectory (world).
        R0: Orientation at rest; (3, 3).
        axis: Rotation axis in the body (tool) frame, normalised here; (3,).
        amplitude: Oscillation amplitude [rad].
        period: Oscillation period [s] (> 0).
        ramp_time: Amplitude ramp-up time [s] (> 0).
        t0: Start of the oscillation [s].

    Raises:
        ConfigError: Zero axis, non-positive period or ramp time.
    """

    def __init__(
        self,
        position: Trajectory,
        R0: npt.ArrayLike,
        axis: npt.ArrayLike,
        amplitude: float,
        period: float,
        ramp_time: float,
        t0: float = 0.0,
    ) -> None:
        a = np.asarray(axis, float)
        n = float(np.linalg.norm(a))
        if not n > 0.0 or not math.isfinite(n):
            raise ConfigError(f"orientation axis must be a non-zero vector, got {a.tolist()}")
        if not (period > 0.0 and ramp_time > 0.0):
            raise ConfigError(
                f"orientation period and ramp_time must be > 0 [s], got {period}, {ramp_time}"
            )
        self.position = position
        self.R0 = np.array(R0, float)
        self.axis = a / n
        self.amplitude, self.period = float(amplitude), float(period)
        self.ramp_time = float(ramp_time)
        self.t0 = float(t0)
        self.duration = position.duration
        k = self.axis
        self._K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])

    def angles(self, ts: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """θ [rad], θ̇ [rad/s], θ̈ [rad/s²] at each of ``ts`` [s]; (n,) each."""
        t = np.atleast_1d(np.asarray(ts, float)) - self.t0
        s, ds, dds = quintic_blends(t / self.ramp_time)
        ds, dds = ds / self.ramp_time, dds / self.ramp_time**2
        w = 2.0 * np.pi / self.period
        active = t > 0.0
        sn, cs = np.sin(w * t) * active, np.cos(w * t) * active
        A = self.amplitude
        th = A * s * sn
        dth = A * (ds * sn + s * w * cs)
        ddth = A * (dds * sn + 2.0 * ds * w * cs - s * w * w * sn)
        return th, dth, ddth

    def get_motion_states(self, ts: npt.ArrayLike) -> MotionStates:
        """Pose ``T_d`` (n, 4, 4), body twist ``V_d`` (n, 6), ``V̇_d`` (n, 6) at ``ts`` [s]."""
        pos, vel, acc = self.position.get_states(ts)
        th, dth, ddth = self.angles(ts)
        K = self._K
        R = self.R0 @ (
            np.eye(3) + np.sin(th)[:, None, None] * K + (1.0 - np.cos(th))[:, None, None] * (K @ K)
        )
        T = np.zeros((len(th), 4, 4))
        T[:, :3, :3], T[:, :3, 3], T[:, 3, 3] = R, pos, 1.0
        v = np.einsum("nji,nj->ni", R, vel)  # Rᵀ ṗ
        w = dth[:, None] * self.axis
        V = np.concatenate([v, w], 1)
        vdot = np.einsum("nji,nj->ni", R, acc) - np.cross(w, v)
        Vdot = np.concatenate([vdot, ddth[:, None] * self.axis], 1)
        return T, V, Vdot

    def get_motion_state(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``T_d`` (4, 4), body ``V_d`` (6,) and ``V̇_d`` (6,) at ``t`` [s]."""
        T, V, Vdot = self.get_motion_states([t])
        return T[0], V[0], Vdot[0]

    def get_state(self, t: float) -> State:
        """The position trajectory's state at ``t`` [s]."""
        return self.position.get_state(t)

    def get_states(self, ts: npt.ArrayLike) -> States:
        """The position trajectory's states at ``ts`` [s]; (n, 3) each."""
        return self.position.get_states(ts)

    def segment(self, t: float) -> int:
        """The position trajectory's segment at ``t``."""
        return self.position.segment(t)

    def segments(self, ts: npt.ArrayLike) -> np.ndarray:
        """The position trajectory's segments at ``ts``."""
        return self.position.segments(ts)
