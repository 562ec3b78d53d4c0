"""SO(3)/SE(3) helpers (thin, tested wrappers around Pinocchio's exp/log)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from mjscope.control.wrench import cross3


def so3_log(R: npt.ArrayLike) -> np.ndarray:
    """Rotation vector of ``R`` (axis·angle [rad]); (3,)."""
    return np.asarray(pin.log3(np.asarray(R, float)))


def so3_exp(w: npt.ArrayLike) -> np.ndarray:
    """Rotation matrix of a rotation vector [rad]; (3, 3)."""
    return np.asarray(pin.exp3(np.asarray(w, float)))


def orientation_error(R_d: npt.ArrayLike, R: npt.ArrayLike) -> np.ndarray:
    """World-frame orientation error ``log(R_d Rᵀ)`` [rad]: rotates ``R`` onto ``R_d``; (3,)."""
    return so3_log(np.asarray(R_d, float) @ np.asarray(R, float).T)


def se3_log(T: npt.ArrayLike) -> np.ndarray:
    """``log6`` of a 4×4 homogeneous transform: (v [m], ω [rad]); (6,)."""
    return np.asarray(pin.log6(pin.SE3(np.asarray(T, float))).vector)


def se3_exp(xi: npt.ArrayLike) -> np.ndarray:
    """4×4 homogeneous transform of a twist (v, ω); (4, 4)."""
    return np.asarray(pin.exp6(pin.Motion(np.asarray(xi, float))).homogeneous)


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
