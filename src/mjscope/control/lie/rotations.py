"""Small rotation helpers used by the planners, metrics and plots (no Pinocchio)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from mjscope.control.lie.so3 import so3_log
from mjscope.control.wrench import cross3


def orientation_error(R_d: npt.ArrayLike, R: npt.ArrayLike) -> np.ndarray:
    """World-frame orientation error ``log(R_d Rᵀ)`` [rad]: rotates ``R`` onto ``R_d``; (3,)."""
    return so3_log(np.asarray(R_d, float) @ np.asarray(R, float).T)


def homogeneous(R: npt.ArrayLike, p: npt.ArrayLike) -> np.ndarray:
    """4×4 transform from a rotation (3, 3) and a translation (3,) [m]."""
    T = np.eye(4)
    T[:3, :3] = np.asarray(R, float)
    T[:3, 3] = np.asarray(p, float)
    return T


def axis_angle_between(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Angle between two directions [rad] (robust near 0 and π)."""
    u = np.asarray(a, float)
    v = np.asarray(b, float)
    c = cross3(u, v)
    return math.atan2(math.sqrt(float(c @ c)), float(u @ v))


def rotation_error(R_a: npt.ArrayLike, R_b: npt.ArrayLike) -> np.ndarray:
    """Angle of ``R_aᵀ R_b`` per sample [rad], accurate near zero (batched).

    Args:
        R_a: Rotations; (n, 3, 3).
        R_b: Rotations; (n, 3, 3).

    Returns:
        Angles in [0, π]; (n,).
    """
    E = np.einsum("nji,njk->nik", np.asarray(R_a, float), np.asarray(R_b, float))  # (n, 3, 3)
    w = np.stack([E[:, 2, 1] - E[:, 1, 2], E[:, 0, 2] - E[:, 2, 0], E[:, 1, 0] - E[:, 0, 1]], 1)
    cos = (np.trace(E, axis1=1, axis2=2) - 1.0) / 2.0
    return np.arctan2(np.linalg.norm(w, axis=1) / 2.0, cos)
