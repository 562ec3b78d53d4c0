"""SO(3) helpers: rotation error vs SciPy; exp/log/dexp vs Pinocchio, a series and FD."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from scipy.spatial.transform import Rotation

from mjscope.control.lie import (
    hat,
    rotation_error,
    so3_dexp,
    so3_dexp_dot,
    so3_dexp_inv,
    so3_dexp_inv_dot,
    so3_exp,
    so3_log,
    vee,
)
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


# --- SO(3) toolkit against Pinocchio, a series reference and finite differences -------------

#: Pinocchio 3.8's Jlog3/Jlog6/Jexp6 lose up to 1e-5 here (closed forms past its Taylor switch).
PIN_BAND = (1e-4, 2e-2)


def sample_rotvecs(rng: np.random.Generator) -> np.ndarray:
    """1000 rotation vectors: uniform angles, θ < 1e-8, [1e-6, 1e-3], π - θ < 1e-6; (1000, 3)."""
    th = np.concatenate(
        [
            rng.uniform(0.0, np.pi, 700),
            10.0 ** rng.uniform(-12, -8, 100),
            10.0 ** rng.uniform(-6, -3, 100),
            np.pi - 10.0 ** rng.uniform(-9, -6, 100),
        ]
    )
    a = rng.normal(size=(th.size, 3))
    return a / np.linalg.norm(a, axis=1, keepdims=True) * th[:, None]


def series_dexp(A: np.ndarray) -> np.ndarray:
    """Independent reference ``Σ (-A)^k / (k+1)!`` of the right Jacobian (A = ad ξ or ω̂)."""
    S, P = np.zeros_like(A), np.eye(A.shape[-1])
    for k in range(60):
        S, P = S + P / math.factorial(k + 1), P @ -A
    return S


@pytest.fixture(scope="module")
def rotvecs() -> np.ndarray:
    return sample_rotvecs(np.random.default_rng(0))


def test_hat_vee() -> None:
    w = np.array([1.0, -2.0, 3.0])
    assert_close(hat(w) @ [0.5, 0.25, -1.0], np.cross(w, [0.5, 0.25, -1.0]), atol=1e-15)
    assert_close(vee(hat(w)), w, atol=0.0)


def test_so3_exp_log_match_pinocchio(rotvecs: np.ndarray) -> None:
    R = np.array([pin.exp3(w) for w in rotvecs])
    assert_close(so3_exp(rotvecs), R, atol=1e-14, what="exp3")
    assert_close(so3_log(R), np.array([pin.log3(r) for r in R]), atol=1e-10, what="log3")
    assert_close(so3_log(R), rotvecs, atol=1e-9, what="log(exp(ω)) = ω")
    assert_close(so3_exp(so3_log(R)), R, atol=1e-14, what="exp(log(R)) = R")


def test_so3_log_at_exactly_pi() -> None:
    R = np.diag([1.0, -1.0, -1.0])  # θ = π about x: vee(R) = 0, only the symmetric part helps
    w = so3_log(R)
    assert_close(np.abs(w), [np.pi, 0.0, 0.0], atol=1e-15)
    assert_close(so3_exp(w), R, atol=1e-15)


def test_so3_dexp_matches_pinocchio_and_series(rotvecs: np.ndarray) -> None:
    assert_close(so3_dexp(rotvecs), np.array([pin.Jexp3(w) for w in rotvecs]), atol=1e-12)
    ref = np.array([series_dexp(hat(w)) for w in rotvecs])
    assert_close(so3_dexp(rotvecs), ref, atol=1e-14, what="Jexp3 vs series")
    w = rotvecs[np.linalg.norm(rotvecs, axis=1) < 3.0]
    th = np.linalg.norm(w, axis=1)
    outside = (th < PIN_BAND[0]) | (th > PIN_BAND[1])
    pin_inv = np.array([pin.Jlog3(pin.exp3(x)) for x in w[outside]])
    assert_close(so3_dexp_inv(w[outside]), pin_inv, atol=1e-10, what="Jlog3")
    ref_inv = np.linalg.inv(np.array([series_dexp(hat(x)) for x in w]))
    assert_close(so3_dexp_inv(w), ref_inv, atol=1e-12, what="Jlog3 vs series")


def test_so3_dexp_finite_differences(rotvecs: np.ndarray) -> None:
    rng = np.random.default_rng(1)
    h = 1e-6
    for w in rotvecs[::5]:
        d = rng.normal(size=3)
        Rinv = so3_exp(w).T
        fd = (so3_log(Rinv @ so3_exp(w + h * d)) - so3_log(Rinv @ so3_exp(w - h * d))) / (2 * h)
        assert_close(so3_dexp(w) @ d, fd, atol=1e-6, what="exp(ω+δ) = exp(ω) exp(Jδ)")
        if np.linalg.norm(w) < 3.0:
            R = so3_exp(w)
            fd = (so3_log(R @ so3_exp(h * d)) - so3_log(R @ so3_exp(-h * d))) / (2 * h)
            assert_close(so3_dexp_inv(w) @ d, fd, atol=1e-6, what="log(R exp(δ)) = ω + J⁻¹δ")


def test_so3_dexp_time_derivatives_finite_differences(rotvecs: np.ndarray) -> None:
    rng = np.random.default_rng(2)
    h = 1e-6
    for w in rotvecs[::5]:
        wd, wdd = rng.normal(size=3), rng.normal(size=3)

        def at(t: float, w: np.ndarray = w, wd: np.ndarray = wd, wdd: np.ndarray = wdd):
            return w + t * wd + 0.5 * t * t * wdd

        fd = (so3_dexp(at(h)) - so3_dexp(at(-h))) / (2 * h)
        assert_close(so3_dexp_dot(w, wd), fd, atol=1e-6, what="d/dt Jexp3")
        if np.linalg.norm(w) < 3.0:
            fd = (so3_dexp_inv(at(h)) - so3_dexp_inv(at(-h))) / (2 * h)
            assert_close(so3_dexp_inv_dot(w, wd), fd, atol=1e-6, what="d/dt Jlog3")
