"""Wrench transform, friction feed-forward and Lie helpers against hand computations."""

from __future__ import annotations

import numpy as np
import pytest

from mjscope.control.friction import FrictionModel
from mjscope.control.lie import (
    axis_angle_between,
    homogeneous,
    orientation_error,
    se3_exp,
    se3_log,
    so3_exp,
    so3_log,
)
from mjscope.control.wrench import cross3, wrench_site_to_frame, wrench_world_to_body
from mjscope.exceptions import ConfigError
from tests.utils import assert_close


def test_wrench_hand_computation() -> None:
    # Site rotated 90° about z, 10 cm above the EEF origin; force along site x = world y.
    R_s = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    p_s, p_e = np.array([0.0, 0.0, 0.1]), np.zeros(3)
    w = wrench_site_to_frame([2.0, 0.0, 0.0], [0.0, 0.0, 0.5], R_s, p_s, None, p_e)
    # f_world = (0, 2, 0); m = (0, 0, 0.5) + (0, 0, 0.1) × (0, 2, 0) = (−0.2, 0, 0.5).
    assert_close(w, [0.0, 2.0, 0.0, -0.2, 0.0, 0.5], atol=1e-15)
    # The same wrench in the EEF axes (rotated −90° about x relative to the world).
    R_e = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])
    w_e = wrench_site_to_frame([2.0, 0.0, 0.0], [0.0, 0.0, 0.5], R_s, p_s, R_e, p_e)
    assert_close(w_e, np.concatenate([R_e.T @ w[:3], R_e.T @ w[3:]]), atol=1e-15)


def test_wrench_world_to_body_hand_computation() -> None:
    # EEF rotated 90° about z: world x is body −y, world y is body x.
    R_e = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    w = wrench_world_to_body([1.0, 2.0, 3.0, 0.1, 0.2, 0.3], R_e)
    assert_close(w, [2.0, -1.0, 3.0, 0.2, -0.1, 0.3], atol=1e-15)
    # Equals moving the site wrench straight into the EEF axes (moment term kept).
    rng = np.random.default_rng(4)
    R_s, R_b = so3_exp(rng.normal(size=3)), so3_exp(rng.normal(size=3))
    f, m, p_s, p_e = rng.normal(size=(4, 3))
    world = wrench_site_to_frame(f, m, R_s, p_s, None, p_e)
    assert_close(wrench_world_to_body(world, R_b),
                 wrench_site_to_frame(f, m, R_s, p_s, R_b, p_e), atol=1e-14)  # fmt: skip


def test_wrench_moment_term_is_kept() -> None:
    rng = np.random.default_rng(1)
    R = so3_exp(rng.normal(size=3))
    f, m = rng.normal(size=3), rng.normal(size=3)
    p_s, p_e = rng.normal(size=3), rng.normal(size=3)
    w = wrench_site_to_frame(f, m, R, p_s, None, p_e)
    # Power invariance: the wrench does the same work on any rigid twist.
    omega, v_s = rng.normal(size=2 * 3).reshape(2, 3)
    v_e = v_s + np.cross(omega, p_e - p_s)
    assert abs((R @ f) @ v_s + (R @ m) @ omega - (w[:3] @ v_e + w[3:] @ omega)) < 1e-12
    assert_close(cross3(f, m), np.cross(f, m), atol=1e-15)


def test_friction_models() -> None:
    fm = FrictionModel(np.array([1.0, 2.0]), np.array([0.5, 0.0]), velocity_eps=0.01)
    assert_close(fm.feedforward([1.0, -1.0], [0.0, 0.0]), [1.0 + 0.5, -2.0], atol=1e-8)
    assert_close(fm.feedforward([0.0, 0.0], [5.0, -5.0]), [0.0, 0.0])
    ft = FrictionModel(np.array([1.0, 2.0]), np.array([0.5, 0.0]), model="torque", torque_eps=0.1)
    assert_close(ft.feedforward([0.0, 0.0], [5.0, -5.0]), [1.0, -2.0], atol=1e-8)
    off = FrictionModel(np.array([1.0]), np.array([0.5]), use_damping=False, scale=0.5)
    assert_close(off.feedforward([2.0], [0.0]), [0.5], atol=1e-8)
    with pytest.raises(ConfigError, match="friction model 'coulomb' unknown"):
        FrictionModel(np.zeros(1), np.zeros(1), model="coulomb")


def test_lie_helpers() -> None:
    rng = np.random.default_rng(2)
    w = rng.normal(size=3) * 0.5
    R = so3_exp(w)
    assert_close(so3_log(R), w, atol=1e-12)
    R0 = so3_exp(rng.normal(size=3))
    e = orientation_error(R @ R0, R0)  # rotating R0 by R reaches the target
    assert_close(e, w, atol=1e-12)
    xi = rng.normal(size=6) * 0.3
    assert_close(se3_log(se3_exp(xi)), xi, atol=1e-12)
    T = homogeneous(R, [1.0, 2.0, 3.0])
    assert_close(T[:3, 3], [1.0, 2.0, 3.0])
    assert abs(axis_angle_between([0, 0, 1], [0, 1, 1]) - np.pi / 4) < 1e-15
    assert abs(axis_angle_between([0, 0, 1], [0, 0, -1]) - np.pi) < 1e-15
    assert axis_angle_between([0, 0, 2], [0, 0, 1]) == 0.0
