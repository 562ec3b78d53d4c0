"""Lie-group helpers: the batched rotation error against SciPy, including tiny angles."""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.transform import Rotation

from mjscope.control.lie import rotation_error
from tests.utils import assert_close


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def test_rotation_error_matches_scipy_including_small_angles() -> None:
    rng = np.random.default_rng(0)
    Ra = Rotation.random(50, random_state=rng)
    Rb = Rotation.random(50, random_state=rng)
    expected = (Ra.inv() * Rb).magnitude()
    assert_close(rotation_error(Ra.as_matrix(), Rb.as_matrix()), expected, atol=1e-12)
    small = np.array([rot_z(1e-9), rot_z(1e-5)])
    assert_close(rotation_error(np.tile(np.eye(3), (2, 1, 1)), small), [1e-9, 1e-5], atol=1e-17)
