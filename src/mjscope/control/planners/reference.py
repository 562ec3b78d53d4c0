"""Motion-reference adapter: any planner → (T_d, V_d, V̇_d) plus the world-frame linear parts.

This is the contract of the SE(3) controllers: ``T_d`` is the desired pose (4×4), ``V_d`` and
``V̇_d`` the desired body twist and its derivative (linear first, then angular). The world-frame
linear quantities are kept alongside for the classical controller.

Two kinds of planner (the seed's two-layer planner contract):

- an SE(3) planner with ``get_motion_state(t)`` / ``get_motion_states(ts)`` (SE(3)-TOPP,
  :class:`~mjscope.control.planners.orientation.RockingOrientation`) is passed through
  untouched; its world linear velocity and acceleration follow from the body twist,
  ``ṗ = R v``, ``p̈ = R (v̇ + ω × v)``;
- a plain position planner (``get_state``) is lifted with a fixed orientation ``R_d``: the body
  angular velocity is zero and the body linear parts are the world ones rotated by ``R_dᵀ``.
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


def is_se3_planner(planner: object) -> bool:
    """Whether ``planner`` gives full SE(3) motion (``get_motion_state`` and ``…_states``)."""
    return callable(getattr(planner, "get_motion_state", None)) and callable(
        getattr(planner, "get_motion_states", None)
    )


def _world_linear(
    T: np.ndarray, V: np.ndarray, Vdot: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World position, ``ṗ = R v`` and ``p̈ = R (v̇ + ω × v)`` of body motion; (n, 3) each."""
    R = T[:, :3, :3]
    vel = np.einsum("nij,nj->ni", R, V[:, :3])
    acc = np.einsum("nij,nj->ni", R, Vdot[:, :3] + np.cross(V[:, 3:], V[:, :3]))
    return T[:, :3, 3].copy(), vel, acc


class ReferenceAdapter:
    """A planner as a reference callable (constant parts precomputed).

    Args:
        planner: An SE(3) planner (passed through; ``R_d`` is then ignored) or a position
            planner (lifted with ``R_d``).
        R_d: Constant desired orientation for a position planner; (3, 3).

    Raises:
        ValueError: A position planner without ``R_d``.
    """

    def __init__(self, planner: Trajectory, R_d: npt.ArrayLike | None = None) -> None:
        self.planner = planner
        self.se3 = is_se3_planner(planner)
        if R_d is None and not self.se3:
            raise ValueError("a position planner needs a fixed orientation R_d (3, 3)")
        self.R = np.eye(3) if R_d is None else np.array(R_d, float)
        self._Rt = self.R.T.copy()
        self._T = np.eye(4)
        self._T[:3, :3] = self.R

    def _se3_batch(self, ts: npt.ArrayLike) -> list[MotionReference]:
        T, V, Vdot = self.planner.get_motion_states(ts)  # type: ignore[attr-defined]
        pos, vel, acc = _world_linear(T, V, Vdot)
        segments = self.planner.segments(ts).tolist()
        rot = T[:, :3, :3]
        rows = zip(T, V, Vdot, pos, vel, acc, rot, segments, strict=True)
        return list(map(MotionReference._make, rows))

    def __call__(self, t: float) -> MotionReference:
        """Reference at ``t`` [s] (see the module docstring for both kinds of planner)."""
        if self.se3:
            T, V, Vdot = self.planner.get_motion_state(t)  # type: ignore[attr-defined]
            pos, vel, acc = _world_linear(T[None], V[None], Vdot[None])
            seg = self.planner.segment(t)
            return MotionReference(T, V, Vdot, pos[0], vel[0], acc[0], T[:3, :3], seg)
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
        field, not per instant); for a position planner the orientation is the adapter's
        constant ``R``, an SE(3) planner's ``get_motion_states`` gives its own.
        """
        if self.se3:
            return self._se3_batch(ts)
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
