"""Quaternion and pose helpers against SciPy's rotations (an independent implementation)."""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from mjscope.teleop.poses import (
    Pose,
    canonical,
    mat_to_quat,
    matrix_to_pose,
    pose_to_matrix,
    quat_angle,
    quat_conj,
    quat_mul,
    quat_to_mat,
    quat_to_rotvec,
    rotvec_to_quat,
)
from tests.utils import assert_close

RNG = np.random.default_rng(0)


def _wxyz(r: Rotation) -> np.ndarray:
    x, y, z, w = r.as_quat()
    return canonical(np.array([w, x, y, z]))


def _rot(q: np.ndarray) -> Rotation:
    return Rotation.from_quat([q[1], q[2], q[3], q[0]])


def test_products_matrices_and_logs_match_scipy() -> None:
    for a, b in zip(
        Rotation.random(50, random_state=1), Rotation.random(50, random_state=2), strict=True
    ):
        qa, qb = _wxyz(a), _wxyz(b)
        assert_close(canonical(quat_mul(qa, qb)), _wxyz(a * b), 1e-12, what="a·b")
        assert_close(quat_to_mat(qa), a.as_matrix(), 1e-12, what="matrix")
        assert_close(mat_to_quat(a.as_matrix()), qa, 1e-12, what="from matrix")
        assert_close(quat_to_rotvec(qa), a.as_rotvec(), 1e-10, what="log")
        assert_close(canonical(rotvec_to_quat(a.as_rotvec())), qa, 1e-12, what="exp")
        assert abs(quat_angle(qa, qb) - (a.inv() * b).magnitude()) < 1e-7
        assert_close(canonical(quat_mul(qa, quat_conj(qa))), [1, 0, 0, 0], 1e-12)


def test_mat_to_quat_covers_every_branch() -> None:
    # Rotations by π about each axis hit the trace ≤ 0 branches.
    for axis in np.eye(3):
        r = Rotation.from_rotvec(np.pi * axis * 0.999)
        assert_close(mat_to_quat(r.as_matrix()), _wxyz(r), 1e-12, what=str(axis))


def test_small_angles_stay_accurate() -> None:
    rv = np.array([1e-13, -2e-13, 3e-13])
    assert_close(quat_to_rotvec(rotvec_to_quat(rv)), rv, 1e-20)


def test_pose_matrix_round_trip() -> None:
    q = _wxyz(Rotation.random(random_state=3))
    pose = Pose(RNG.normal(size=3), q)
    back = matrix_to_pose(pose_to_matrix(pose))
    assert_close(back.as_array(), pose.as_array(), 1e-12)
    assert pose.is_finite() and not Pose(np.array([np.nan, 0, 0]), q).is_finite()
