"""SE(3) toolkit against Pinocchio 3.8, an independent series reference and finite differences."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from mjscope.control.lie import (
    se3_ad,
    se3_adjoint,
    se3_coadjoint,
    se3_dexp,
    se3_dexp_dot,
    se3_dexp_inv,
    se3_dexp_inv_dot,
    se3_exp,
    se3_inverse,
    se3_log,
)
from tests.test_control_lie import PIN_BAND, sample_rotvecs, series_dexp
from tests.utils import assert_close


@pytest.fixture(scope="module")
def twists() -> np.ndarray:
    rng = np.random.default_rng(0)
    w = sample_rotvecs(rng)
    return np.concatenate([rng.normal(size=w.shape), w], axis=1)  # (1000, 6): (v, ω)


def angles(xi: np.ndarray) -> np.ndarray:
    return np.linalg.norm(xi[..., 3:], axis=-1)


def test_se3_exp_log_match_pinocchio(twists: np.ndarray) -> None:
    T = np.array([pin.exp6(pin.Motion(x)).homogeneous for x in twists])
    assert_close(se3_exp(twists), T, atol=1e-12, what="exp6")
    pin_log = np.array([pin.log6(pin.SE3(t)).vector for t in T])
    assert_close(se3_log(T), pin_log, atol=1e-10, what="log6")
    assert_close(se3_exp(se3_log(T)), T, atol=1e-12, what="exp(log(T)) = T")
    assert_close(se3_inverse(T) @ T, np.broadcast_to(np.eye(4), T.shape), atol=1e-14)


def test_se3_dexp_matches_pinocchio_and_series(twists: np.ndarray) -> None:
    th = angles(twists)
    out = (th < PIN_BAND[0]) | (th > PIN_BAND[1])
    pin_j = np.array([pin.Jexp6(pin.Motion(x)) for x in twists[out]])
    assert_close(se3_dexp(twists[out]), pin_j, atol=1e-10, what="Jexp6")
    ref = np.array([series_dexp(se3_ad(x)) for x in twists])
    assert_close(se3_dexp(twists), ref, atol=1e-12, what="Jexp6 vs series")
    ok = th < 3.0
    pin_inv = np.array([pin.Jlog6(pin.exp6(pin.Motion(x))) for x in twists[ok & out]])
    assert_close(se3_dexp_inv(twists[ok & out]), pin_inv, atol=1e-10, what="Jlog6")
    assert_close(se3_dexp_inv(twists[ok]), np.linalg.inv(ref[ok]), atol=1e-11, what="Jlog6 ref")


def test_adjoints_match_pinocchio(twists: np.ndarray) -> None:
    rng = np.random.default_rng(3)
    for x in twists[::10]:
        M = pin.exp6(pin.Motion(x))
        T = M.homogeneous
        assert_close(se3_adjoint(T), M.action, atol=1e-14, what="Ad")
        assert_close(se3_coadjoint(T), M.dualAction, atol=1e-14, what="Ad⁻ᵀ")
        assert_close(se3_coadjoint(T), np.linalg.inv(se3_adjoint(T)).T, atol=1e-12)
        f = rng.normal(size=6)
        assert_close(se3_coadjoint(T) @ f, M.act(pin.Force(f)).vector, atol=1e-14)
        assert_close(se3_ad(x), pin.Motion(x).action, atol=0.0, what="ad")
        eta = rng.normal(size=6)
        assert_close(se3_ad(x) @ eta, pin.Motion(x).cross(pin.Motion(eta)).vector, atol=1e-14)
        lhs = se3_adjoint(T) @ se3_ad(eta) @ se3_adjoint(se3_inverse(T))
        assert_close(lhs, se3_ad(se3_adjoint(T) @ eta), atol=1e-12, what="Ad ad Ad⁻¹")


def test_se3_dexp_finite_differences(twists: np.ndarray) -> None:
    rng = np.random.default_rng(1)
    h = 1e-6
    for x in twists[::5]:
        d = rng.normal(size=6)
        Ti = se3_inverse(se3_exp(x))
        fd = (se3_log(Ti @ se3_exp(x + h * d)) - se3_log(Ti @ se3_exp(x - h * d))) / (2 * h)
        assert_close(se3_dexp(x) @ d, fd, atol=1e-6, what="exp(ξ+δ) = exp(ξ) exp(Jδ)")
        if angles(x) < 3.0:
            T = se3_exp(x)
            fd = (se3_log(T @ se3_exp(h * d)) - se3_log(T @ se3_exp(-h * d))) / (2 * h)
            assert_close(se3_dexp_inv(x) @ d, fd, atol=1e-6, what="log(T exp(δ)) = ξ + J⁻¹δ")


def test_se3_dexp_time_derivatives_finite_differences(twists: np.ndarray) -> None:
    rng = np.random.default_rng(2)
    h = 1e-6
    for x in twists[::5]:
        xd, xdd = rng.normal(size=6), rng.normal(size=6)
        lo, hi = x - h * xd + 0.5 * h * h * xdd, x + h * xd + 0.5 * h * h * xdd
        fd = (se3_dexp(hi) - se3_dexp(lo)) / (2 * h)
        assert_close(se3_dexp_dot(x, xd), fd, atol=1e-6, what="d/dt Jexp6")
        if angles(x) < 3.0:
            fd = (se3_dexp_inv(hi) - se3_dexp_inv(lo)) / (2 * h)
            assert_close(se3_dexp_inv_dot(x, xd), fd, atol=1e-6, what="d/dt Jlog6")


def test_batched_equals_single(twists: np.ndarray) -> None:
    x = twists[:7]
    assert_close(
        se3_dexp_dot(x, x[::-1]),
        np.array([se3_dexp_dot(a, b) for a, b in zip(x, x[::-1], strict=True)]),
    )


def test_finite_differences_on_every_sample(twists: np.ndarray) -> None:
    """The issue's bar on all 1000 seeded twists at once (batched): FD agreement ≤ 1e-6.

    Includes θ < 1e-8 (Taylor branches) and π − θ < 1e-6; the inverse Jacobian is checked up to
    π − 1e-5, where the perturbed log still has the same branch (θ + h|δ| < π).
    """
    rng = np.random.default_rng(7)
    h = 1e-6
    d = rng.normal(size=twists.shape)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    assert len(twists) >= 1000
    th = angles(twists)
    assert (th < 1e-8).sum() >= 50 and (np.pi - th < 1e-6).sum() >= 50
    Ti = se3_inverse(se3_exp(twists))
    fd = (se3_log(Ti @ se3_exp(twists + h * d)) - se3_log(Ti @ se3_exp(twists - h * d))) / (2 * h)
    assert_close(np.einsum("nij,nj->ni", se3_dexp(twists), d), fd, atol=1e-6, what="Jexp6 FD")
    ok = th < np.pi - 1e-5
    T = se3_exp(twists[ok])
    fd = (se3_log(T @ se3_exp(h * d[ok])) - se3_log(T @ se3_exp(-h * d[ok]))) / (2 * h)
    got = np.einsum("nij,nj->ni", se3_dexp_inv(twists[ok]), d[ok])
    assert_close(got, fd, atol=1e-6, what="Jlog6 FD")
    xd = rng.normal(size=twists.shape)
    fd = (se3_dexp(twists + h * xd) - se3_dexp(twists - h * xd)) / (2 * h)
    assert_close(se3_dexp_dot(twists, xd), fd, atol=1e-6, what="d/dt Jexp6 FD")
    small = th < 3.0  # Jlog6 grows like 1/(π − θ)² near π: FD of its derivative is ill-posed
    fd = se3_dexp_inv(twists[small] + h * xd[small]) - se3_dexp_inv(twists[small] - h * xd[small])
    assert_close(se3_dexp_inv_dot(twists[small], xd[small]), fd / (2 * h), atol=1e-6)
