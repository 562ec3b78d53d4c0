"""SO(3): exp/log of rotation vectors and the right Jacobian ``dexp`` with its time derivative.

Convention (Pinocchio's ``Jexp3``/``Jlog3``): the right Jacobian in the body frame,
``exp(ω + δ) ≈ exp(ω) exp(J_r(ω) δ)``. All functions take a leading batch axis (..., 3).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mjscope.control.lie._series import inv_coeff, trig_coeffs

#: Above this angle [rad] the log uses the symmetric part of R (axis robust near π).
_NEAR_PI = 0.5 * np.pi


def hat(w: npt.ArrayLike) -> np.ndarray:
    """Skew matrix ``[w]×`` of 3-vectors; (..., 3) → (..., 3, 3)."""
    w = np.asarray(w, float)
    z = np.zeros(w.shape[:-1])
    x, y, q = w[..., 0], w[..., 1], w[..., 2]
    rows = [np.stack([z, -q, y], -1), np.stack([q, z, -x], -1), np.stack([-y, x, z], -1)]
    return np.stack(rows, -2)


def vee(W: npt.ArrayLike) -> np.ndarray:
    """3-vector of the skew part of ``W``: ``vee(hat(w)) = w``; (..., 3, 3) → (..., 3)."""
    W = np.asarray(W, float)
    return 0.5 * np.stack(
        [W[..., 2, 1] - W[..., 1, 2], W[..., 0, 2] - W[..., 2, 0], W[..., 1, 0] - W[..., 0, 1]], -1
    )


def _sq(w: np.ndarray) -> np.ndarray:
    """θ² = ω·ω [rad²]; (...)."""
    return np.einsum("...i,...i->...", w, w)


def _col(c: np.ndarray) -> np.ndarray:
    """Coefficient (...) broadcast against (..., 3, 3) matrices."""
    return c[..., None, None]


def so3_exp(w: npt.ArrayLike) -> np.ndarray:
    """Rotation matrix of a rotation vector ω [rad] (Rodrigues); (..., 3) → (..., 3, 3)."""
    w = np.asarray(w, float)
    c = trig_coeffs(_sq(w))
    W = hat(w)
    return np.eye(3) + _col(c.f1) * W + _col(c.f2) * (W @ W)


def _axis_near_pi(R: np.ndarray, s_vec: np.ndarray, cos: np.ndarray) -> np.ndarray:
    """Unit axis from ``(R + Rᵀ)/2 - cos I = (1 - cos) a aᵀ`` (accurate for θ ≥ π/2); (..., 3)."""
    B = 0.5 * (R + np.swapaxes(R, -1, -2)) - _col(cos) * np.eye(3)
    diag = np.diagonal(B, axis1=-2, axis2=-1)  # (..., 3)
    k = np.argmax(diag, axis=-1)
    col = np.take_along_axis(B, k[..., None, None], axis=-1)[..., 0]  # (..., 3): B[:, k]
    a = col / np.linalg.norm(col, axis=-1, keepdims=True)
    sign = np.where(np.einsum("...i,...i->...", a, s_vec) < 0.0, -1.0, 1.0)
    return sign[..., None] * a


def so3_log(R: npt.ArrayLike) -> np.ndarray:
    """Rotation vector ω = θ a of a rotation, θ ∈ [0, π] [rad]; (..., 3, 3) → (..., 3).

    θ = atan2(|vee(R)|, (tr R - 1)/2) is accurate everywhere; below π/2 the axis is the
    direction of ``vee(R)`` (no division when θ = 0), above it the robust extraction from the
    symmetric part, with the sign of ``vee(R)`` (either sign at exactly θ = π).
    """
    R = np.asarray(R, float)
    s_vec = vee(R)  # sin θ · a
    sin = np.linalg.norm(s_vec, axis=-1)
    cos = np.clip(0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0), -1.0, 1.0)
    th = np.arctan2(sin, cos)
    ratio = np.where(sin > 0.0, th / np.where(sin > 0.0, sin, 1.0), 1.0)
    small = ratio[..., None] * s_vec
    big = th[..., None] * _axis_near_pi(R, s_vec, cos)
    return np.where((th > _NEAR_PI)[..., None], big, small)


def so3_dexp(w: npt.ArrayLike) -> np.ndarray:
    """Right Jacobian ``J_r(ω) = I - f₂ W + f₃ W²`` (= ``pin.Jexp3``); (..., 3) → (..., 3, 3)."""
    w = np.asarray(w, float)
    c = trig_coeffs(_sq(w))
    W = hat(w)
    return np.eye(3) - _col(c.f2) * W + _col(c.f3) * (W @ W)


def so3_dexp_inv(w: npt.ArrayLike) -> np.ndarray:
    """Inverse right Jacobian ``I + W/2 + e W²`` (= ``pin.Jlog3(exp(ω))``); (..., 3, 3).

    Exists for θ < π (singular at θ = π).
    """
    w = np.asarray(w, float)
    W = hat(w)
    return np.eye(3) + 0.5 * W + _col(inv_coeff(_sq(w))) * (W @ W)


def so3_dexp_dot(w: npt.ArrayLike, w_dot: npt.ArrayLike) -> np.ndarray:
    """Time derivative ``d/dt J_r(ω(t))`` given ω [rad] and ω̇ [rad/s]; (..., 3, 3) [1/s]."""
    w = np.asarray(w, float)
    wd = np.asarray(w_dot, float)
    c = trig_coeffs(_sq(w))
    s_dot = 2.0 * np.einsum("...i,...i->...", w, wd)
    W, Wd = hat(w), hat(wd)
    WW_dot = Wd @ W + W @ Wd
    return (
        -_col(c.df2 * s_dot) * W
        - _col(c.f2) * Wd
        + _col(c.df3 * s_dot) * (W @ W)
        + _col(c.f3) * WW_dot
    )


def so3_dexp_inv_dot(w: npt.ArrayLike, w_dot: npt.ArrayLike) -> np.ndarray:
    """Time derivative of the inverse right Jacobian, ``-J⁻¹ J̇ J⁻¹``; (..., 3, 3) [1/s]."""
    Ji = so3_dexp_inv(w)
    return -Ji @ so3_dexp_dot(w, w_dot) @ Ji
