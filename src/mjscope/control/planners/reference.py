"""Motion-reference adapter: a position trajectory plus a fixed orientation → (T_d, V_d, V̇_d).

This is the contract of the SE(3) controllers: ``T_d`` is the desired pose (4×4), ``V_d`` and
``V̇_d`` the desired body twist and its derivative (linear first, then angular). The world-frame
linear quantities are kept alongside for the classical controller.
"""

from __future__ import annotations

from itertools import repeat
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from mjscope.control.lie import orientation_error
from mjscope.control.planners.trajectory import Trajectory


class MotionReference(NamedTuple):
    """Desired motion at one instant.

    Attributes:
        T_d: Desired pose, world; (4, 4).
        V_d: Desired body twist (v [m/s], ω [rad/s]); (6,).
        Vdot_d: Its time derivative; (6,).
        pos: Desired position, world [m]; (3,).
        vel: Desired linear velocity, world [m/s]; (3,).
        acc: Desired linear acceleration, world [m/s²]; (3,).
        rot: Desired orientation; (3, 3).
        segment: Planner segment index.
    """

    T_d: np.ndarray
    V_d: np.ndarray
    Vdot_d: np.ndarray
    pos: np.ndarray
    vel: np.ndarray
    acc: np.ndarray
    rot: np.ndarray
    segment: int


def aligned_rotation(R_frame: npt.ArrayLike, R0: npt.ArrayLike, n_fold: int = 4) -> np.ndarray:
    """Tool orientation with tool z along −(frame z), nearest to ``R0`` among ``n_fold`` yaws.

    Candidates: tool x along the frame's x rotated by k·2π/n about the frame's z (a square peg
    fits a square socket in four yaws).

    Args:
        R_frame: Target frame orientation (e.g. the dock; z out of the socket); (3, 3).
        R0: Current tool orientation; (3, 3).
        n_fold: Rotational symmetry order of the fit.

    Returns:
        The chosen orientation; (3, 3).
    """
    flip = np.diag([1.0, -1.0, -1.0])
    best, best_angle = np.eye(3), np.inf
    for k in range(n_fold):
        c, s = np.cos(2 * np.pi * k / n_fold), np.sin(2 * np.pi * k / n_fold)
        Rz = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        cand = np.asarray(R_frame, float) @ Rz @ flip
        angle = float(np.linalg.norm(orientation_error(cand, R0)))
        if angle < best_angle:
            best, best_angle = cand, angle
    return best


def get_motion_reference(planner: Trajectory, R_d: npt.ArrayLike, t: float) -> MotionReference:
    """Reference at ``t`` [s] for a position planner and a constant orientation ``R_d``; (3, 3).

    With a constant orientation the body angular velocity is zero and the body linear
    velocity/acceleration are the world ones rotated by ``R_dᵀ``.
    """
    return ReferenceAdapter(planner, R_d)(t)


class ReferenceAdapter:
    """A planner and a constant orientation as a reference callable (constant parts precomputed).

    Args:
        planner: Position planner.
        R_d: Constant desired orientation; (3, 3).
    """

    def __init__(self, planner: Trajectory, R_d: npt.ArrayLike) -> None:
        self.planner = planner
        self.R = np.array(R_d, float)
        self._Rt = self.R.T.copy()
        self._T = np.eye(4)
        self._T[:3, :3] = self.R

    def __call__(self, t: float) -> MotionReference:
        """Reference at ``t`` [s]; the body twist is the world one rotated by ``R_dᵀ``."""
        pos, vel, acc = self.planner.get_state(t)
        T = self._T.copy()
        T[:3, 3] = pos
        V = np.zeros(6)
        Vdot = np.zeros(6)
        V[:3] = self._Rt @ vel
        Vdot[:3] = self._Rt @ acc
        return MotionReference(T, V, Vdot, pos, vel, acc, self.R, self.planner.segment(t))

    def batch(self, ts: npt.ArrayLike) -> list[MotionReference]:
        """References at each of ``ts`` [s] (n,), vectorised (same values as calling per instant).

        The arrays of each reference are rows of arrays shared by the batch (one allocation per
        field, not per instant); the orientation is the adapter's constant ``R``.
        """
        pos, vel, acc = self.planner.get_states(ts)  # (n, 3) each
        n = len(pos)
        T = np.empty((n, 4, 4))
        T[:] = self._T
        T[:, :3, 3] = pos
        V = np.zeros((n, 6))
        Vdot = np.zeros((n, 6))
        V[:, :3] = vel @ self._Rt.T  # row i: Rᵀ vel_i
        Vdot[:, :3] = acc @ self._Rt.T
        segments = self.planner.segments(ts).tolist()
        rows = zip(T, V, Vdot, pos, vel, acc, repeat(self.R, n), segments, strict=True)
        return list(map(MotionReference._make, rows))
