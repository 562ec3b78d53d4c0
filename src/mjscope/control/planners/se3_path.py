"""SE(3)-TOPP through several poses: one time-optimal geodesic segment after another.

Segment ``i`` runs from pose ``i`` to pose ``i + 1`` (:class:`~.se3_topp.SE3ToppTrajectory`,
same bounds), starting when segment ``i − 1`` arrives; each segment starts and ends at rest, so
the path is continuous in pose and twist. Before ``t0`` the path holds at the first pose, after
the last segment at the last one. The segment index (:meth:`SE3ToppPath.segment`) is what the
docking metrics read as approach (0) and insertion (1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from mjscope.control.planners.se3_topp import MotionState, MotionStates, Pose, SE3ToppTrajectory
from mjscope.control.planners.trajectory import State, States, Trajectory
from mjscope.exceptions import ConfigError


class SE3ToppPath(Trajectory):
    """Time-optimal SE(3) motion through ``poses``, segment after segment.

    Args:
        poses: Two or more poses ``T_world_ee``; each (4, 4) or ``(pos (3,) [m], R (3, 3))``.
        v_max: Linear speed bound [m/s] (> 0); one for all segments or one per segment.
        a_max: Linear acceleration bound (body frame) [m/s²] (> 0).
        w_max: Angular speed bound [rad/s] (> 0).
        alpha_max: Angular acceleration bound [rad/s²] (> 0).
        t0: The first segment starts here [s] (≥ 0); the path holds at ``poses[0]`` before.

    Raises:
        ConfigError: Fewer than two poses, or a pose or bound is invalid.
    """

    def __init__(
        self,
        poses: Sequence[Pose],
        v_max: float | Sequence[float],
        a_max: float,
        w_max: float,
        alpha_max: float,
        t0: float = 0.0,
    ) -> None:
        if len(poses) < 2:
            raise ConfigError(f"SE3ToppPath needs at least two poses, got {len(poses)}")
        if not t0 >= 0:
            raise ConfigError(f"SE3ToppPath: t0 must be >= 0 [s], got {t0}")
        speeds = [v_max] * (len(poses) - 1) if isinstance(v_max, float | int) else list(v_max)
        if len(speeds) != len(poses) - 1:
            raise ConfigError(f"SE3ToppPath: {len(speeds)} speeds for {len(poses) - 1} segments")
        self.parts: list[SE3ToppTrajectory] = []
        start = float(t0)
        for a, b, v in zip(poses[:-1], poses[1:], speeds, strict=True):
            part = SE3ToppTrajectory(a, b, float(v), a_max, w_max, alpha_max, hold_before=start)
            self.parts.append(part)
            start = part.t_end
        self.starts = np.array([p.t_start for p in self.parts])  # [s]
        self.duration = self.parts[-1].t_end

    def segment(self, t: float) -> int:
        """Index of the segment active at ``t`` (0 before the first one starts)."""
        return int(self.segments([t])[0])

    def segments(self, ts: npt.ArrayLike) -> np.ndarray:
        """See :meth:`Trajectory.segments`."""
        idx = np.searchsorted(self.starts, np.asarray(ts, float), side="right") - 1
        return np.clip(idx, 0, len(self.parts) - 1).astype(np.int64)

    def get_motion_states(self, ts: npt.ArrayLike) -> MotionStates:
        """Pose (n, 4, 4), body twist (n, 6) and its derivative (n, 6) at each of ``ts`` [s]."""
        ts = np.atleast_1d(np.asarray(ts, float))
        seg = self.segments(ts)
        T, V, Vdot = np.empty((len(ts), 4, 4)), np.empty((len(ts), 6)), np.empty((len(ts), 6))
        for i, part in enumerate(self.parts):
            mask = seg == i
            if mask.any():
                T[mask], V[mask], Vdot[mask] = part.get_motion_states(ts[mask])
        return T, V, Vdot

    def get_motion_state(self, t: float) -> MotionState:
        """``T_d`` (4, 4), body ``V_d`` (6,) and ``Vdot_d`` (6,) at ``t`` [s]; linear first."""
        T, V, Vdot = self.get_motion_states([t])
        return T[0], V[0], Vdot[0]

    def get_states(self, ts: npt.ArrayLike) -> States:
        """World position [m], velocity [m/s], acceleration [m/s²] at each ``ts``; (n, 3) each."""
        ts = np.atleast_1d(np.asarray(ts, float))
        seg = self.segments(ts)
        pos, vel, acc = (np.empty((len(ts), 3)) for _ in range(3))
        for i, part in enumerate(self.parts):
            mask = seg == i
            if mask.any():
                pos[mask], vel[mask], acc[mask] = part.get_states(ts[mask])
        return pos, vel, acc

    def get_state(self, t: float) -> State:
        """World position [m], velocity [m/s], acceleration [m/s²] at ``t`` [s]; (3,) each."""
        pos, vel, acc = self.get_states([t])
        return pos[0], vel[0], acc[0]
