"""Rigid poses for the teleop chain: position [m] + unit quaternion (w, x, y, z).

One frame notation throughout teleop: ``T_world_ee`` is the end effector in the robot world
frame. Rotations compose as matrices do: ``quat_mul(a, b)`` is ``R_a · R_b``. Quaternions are
kept in the hemisphere ``w ≥ 0``. The functions are written for (3,)/(4,) arrays at the control
rate: plain NumPy, no allocation-heavy helpers.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt


class Pose(NamedTuple):
    """A pose in the robot world frame.

    Attributes:
        p: ``(3,)`` position [m].
        q: ``(4,)`` unit quaternion (w, x, y, z).
    """

    p: np.ndarray
    q: np.ndarray

    def as_array(self) -> np.ndarray:
        """``(7,)`` x, y, z [m], w, x, y, z."""
        return np.concatenate([self.p, self.q])

    def is_finite(self) -> bool:
        """Whether every number is finite."""
        return bool(np.isfinite(self.p).all() and np.isfinite(self.q).all())


def pose_from_array(a: npt.ArrayLike) -> Pose:
    """``(7,)`` x, y, z, w, x, y, z → :class:`Pose` (quaternion normalised, ``w ≥ 0``)."""
    v = np.asarray(a, dtype=float)
    return Pose(v[:3].copy(), canonical(v[3:7]))


def canonical(q: npt.ArrayLike) -> np.ndarray:
    """``q`` normalised, in the hemisphere ``w ≥ 0``."""
    w, x, y, z = np.asarray(q, dtype=float).tolist()
    n = math.sqrt(w * w + x * x + y * y + z * z)
    n = -n if w < 0.0 else n
    return np.array([w / n, x / n, y / n, z / n])


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product ``a ⊗ b`` (the rotation ``R_a · R_b``)."""
    aw, ax, ay, az = a.tolist()
    bw, bx, by, bz = b.tolist()
    return np.array(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ]
    )


def quat_conj(q: np.ndarray) -> np.ndarray:
    """The inverse rotation of a unit quaternion."""
    w, x, y, z = q.tolist()
    return np.array([w, -x, -y, -z])


def quat_to_rotvec(q: np.ndarray) -> np.ndarray:
    """Unit quaternion → rotation vector (axis · angle [rad]), angle in [0, π]."""
    w = q[0]
    v = q[1:]
    if w < 0.0:
        w, v = -w, -v
    s = math.sqrt(float(v @ v))
    if s < 1e-12:
        return 2.0 * v  # small-angle limit
    return (2.0 * math.atan2(s, w) / s) * v


def rotvec_to_quat(r: np.ndarray) -> np.ndarray:
    """Rotation vector (axis · angle [rad]) → unit quaternion (w ≥ 0 for angles ≤ π)."""
    angle = math.sqrt(float(r @ r))
    if angle < 1e-12:
        return canonical(np.array([1.0, 0.5 * r[0], 0.5 * r[1], 0.5 * r[2]]))
    h = 0.5 * angle
    return np.concatenate([[math.cos(h)], (math.sin(h) / angle) * r])


def quat_angle(a: np.ndarray, b: np.ndarray) -> float:
    """The angle [rad] of the rotation between two unit quaternions, in [0, π]."""
    d = min(1.0, abs(float(a @ b)))
    return 2.0 * math.acos(d)


def quat_to_mat(q: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) → ``(3, 3)`` rotation matrix."""
    return np.array(_mat_rows(q))


def _mat_rows(q: np.ndarray) -> list[list[float]]:
    w, x, y, z = q.tolist()
    return [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]


def mat_to_quat(R: np.ndarray) -> np.ndarray:
    """``(3, 3)`` rotation matrix → unit quaternion (w, x, y, z), ``w ≥ 0`` (Shepperd)."""
    t = R[0, 0] + R[1, 1] + R[2, 2]
    if t > 0.0:
        s = 2.0 * math.sqrt(t + 1.0)
        q = [0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        q = [(R[2, 1] - R[1, 2]) / s, 0.25 * s, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s]
    elif R[1, 1] > R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2])
        q = [(R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, 0.25 * s, (R[1, 2] + R[2, 1]) / s]
    else:
        s = 2.0 * math.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1])
        q = [(R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, 0.25 * s]
    return canonical(np.array(q))


def pose_to_matrix(pose: Pose) -> np.ndarray:
    """:class:`Pose` → ``(4, 4)`` homogeneous transform ``T_world_ee``."""
    return np.array(pose_to_flat(pose)).reshape(4, 4)


def pose_to_flat(pose: Pose) -> list[float]:
    """:class:`Pose` → ``T_world_ee`` as 16 floats, row-major (plain floats: fast at 1 kHz)."""
    return floats_to_flat(pose.p.tolist(), pose.q.tolist())


def floats_to_flat(p: list[float], q: list[float]) -> list[float]:
    """Position ``(x, y, z)`` and unit ``(w, x, y, z)`` → ``T_world_ee``, 16 floats row-major."""
    w, x, y, z = q
    px, py, pz = p
    return [
        1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), px,
        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), py,
        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), pz,
        0.0, 0.0, 0.0, 1.0,
    ]  # fmt: skip


def matrix_to_pose(T: np.ndarray) -> Pose:
    """``(4, 4)`` homogeneous transform → :class:`Pose`."""
    return Pose(np.array(T[:3, 3], dtype=float), mat_to_quat(T[:3, :3]))
