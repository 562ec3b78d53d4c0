"""SE(3): exp/log of twists, Adjoints, ``ad`` and the right Jacobian ``dexp`` with derivatives.

Twists are ξ = (v [m], ω [rad]) (or per second), the ordering of Pinocchio's ``Motion``;
wrenches are (f [N], τ [N·m]), the ordering of ``Force``. ``dexp`` is the right Jacobian in the
body frame, as Pinocchio's ``Jexp6``/``Jlog6``: ``exp(ξ + δ) ≈ exp(ξ) exp(J_r(ξ) δ)``.
Every function takes a leading batch axis.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mjscope.control.lie._series import inv_coeff, trig_coeffs
from mjscope.control.lie.so3 import (
    _col,
    _sq,
    hat,
    so3_dexp,
    so3_dexp_dot,
    so3_dexp_inv,
    so3_exp,
    so3_log,
)


def _split(xi: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    xi = np.asarray(xi, float)
    return xi[..., :3], xi[..., 3:]


def _blocks(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """6×6 from 3×3 blocks [[a, b], [c, d]]; (..., 6, 6)."""
    return np.concatenate([np.concatenate([a, b], -1), np.concatenate([c, d], -1)], -2)


def _homogeneous(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    T = np.zeros((*R.shape[:-2], 4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def se3_exp(xi: npt.ArrayLike) -> np.ndarray:
    """Homogeneous transform of a twist (v, ω) (= ``pin.exp6``); (..., 6) → (..., 4, 4)."""
    v, w = _split(xi)
    c = trig_coeffs(_sq(w))
    W = hat(w)
    V = np.eye(3) + _col(c.f2) * W + _col(c.f3) * (W @ W)  # left Jacobian of SO(3)
    return _homogeneous(so3_exp(w), np.einsum("...ij,...j->...i", V, v))


def se3_log(T: npt.ArrayLike) -> np.ndarray:
    """Twist (v [m], ω [rad]), θ ∈ [0, π], of a transform (= ``pin.log6``); (..., 6)."""
    T = np.asarray(T, float)
    w = so3_log(T[..., :3, :3])
    W = hat(w)
    V_inv = np.eye(3) - 0.5 * W + _col(inv_coeff(_sq(w))) * (W @ W)
    return np.concatenate([np.einsum("...ij,...j->...i", V_inv, T[..., :3, 3]), w], -1)


def se3_inverse(T: npt.ArrayLike) -> np.ndarray:
    """Inverse transform ``(Rᵀ, -Rᵀ p)``; (..., 4, 4)."""
    T = np.asarray(T, float)
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    return _homogeneous(Rt, -np.einsum("...ij,...j->...i", Rt, T[..., :3, 3]))


def se3_adjoint(T: npt.ArrayLike) -> np.ndarray:
    """Adjoint ``[[R, p̂R], [0, R]]`` acting on twists (= ``SE3.action``); (..., 6, 6)."""
    T = np.asarray(T, float)
    R = T[..., :3, :3]
    return _blocks(R, hat(T[..., :3, 3]) @ R, np.zeros_like(R), R)


def se3_coadjoint(T: npt.ArrayLike) -> np.ndarray:
    """Wrench Adjoint ``Ad⁻ᵀ = [[R, 0], [p̂R, R]]`` on (f, τ) (= ``SE3.dualAction``); (..., 6, 6)."""
    T = np.asarray(T, float)
    R = T[..., :3, :3]
    return _blocks(R, np.zeros_like(R), hat(T[..., :3, 3]) @ R, R)


def se3_ad(xi: npt.ArrayLike) -> np.ndarray:
    """``ad(ξ) = [[ω̂, v̂], [0, ω̂]]``: ``ad(ξ) η = [ξ, η]`` (= ``Motion.action``); (..., 6, 6)."""
    v, w = _split(xi)
    W = hat(w)
    return _blocks(W, hat(v), np.zeros_like(W), W)


def _q_terms(V: np.ndarray, W: np.ndarray) -> list[list[np.ndarray]]:
    """Matrix products of Barfoot's Q, grouped by coefficient (½, f₃, f₄, -f₃')."""
    return [
        [V],
        [W @ V, V @ W, W @ V @ W],
        [W @ W @ V, V @ W @ W, -3.0 * (W @ V @ W)],
        [W @ V @ W @ W, W @ W @ V @ W],
    ]


def _q_terms_dot(V: np.ndarray, W: np.ndarray, Vd: np.ndarray, Wd: np.ndarray) -> list[np.ndarray]:
    """Time derivatives of the grouped products of ``_q_terms`` (product rule)."""

    def d(*fs: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        out = np.zeros_like(V)
        for i in range(len(fs)):
            prod = np.broadcast_to(np.eye(3), V.shape)
            for j, (m, md) in enumerate(fs):
                prod = prod @ (md if i == j else m)
            out = out + prod
        return out

    x, y = (V, Vd), (W, Wd)
    return [
        Vd,
        d(y, x) + d(x, y) + d(y, x, y),
        d(y, y, x) + d(x, y, y) - 3.0 * d(y, x, y),
        d(y, x, y, y) + d(y, y, x, y),
    ]


def _q_right(xi: np.ndarray) -> np.ndarray:
    """Upper-right block of the right Jacobian, ``Q(-v, -ω)`` (Barfoot's Q); (..., 3, 3)."""
    v, w = _split(-xi)
    c = trig_coeffs(_sq(w))
    weights = [np.full_like(c.f3, 0.5), c.f3, c.f4, -c.df3]
    groups = _q_terms(hat(v), hat(w))
    return sum(_col(k) * sum(g) for k, g in zip(weights, groups, strict=True))  # type: ignore[return-value]


def _q_right_dot(xi: np.ndarray, xi_dot: np.ndarray) -> np.ndarray:
    """Time derivative of ``Q(-v, -ω)``; (..., 3, 3)."""
    v, w = _split(-xi)
    vd, wd = _split(-xi_dot)
    c = trig_coeffs(_sq(w))
    s_dot = 2.0 * np.einsum("...i,...i->...", w, wd)
    weights = [np.full_like(c.f3, 0.5), c.f3, c.f4, -c.df3]
    rates = [np.zeros_like(c.f3), c.df3 * s_dot, c.df4 * s_dot, -c.ddf3 * s_dot]
    V, W = hat(v), hat(w)
    sums = [sum(g) for g in _q_terms(V, W)]
    dots = _q_terms_dot(V, W, hat(vd), hat(wd))
    out = np.zeros_like(V)
    for k, kd, m, md in zip(weights, rates, sums, dots, strict=True):
        out = out + _col(kd) * m + _col(k) * md
    return out


def se3_dexp(xi: npt.ArrayLike) -> np.ndarray:
    """Right Jacobian ``[[J_r(ω), Q(-v,-ω)], [0, J_r(ω)]]`` (= ``pin.Jexp6``); (..., 6, 6)."""
    xi = np.asarray(xi, float)
    J = so3_dexp(xi[..., 3:])
    return _blocks(J, _q_right(xi), np.zeros_like(J), J)


def se3_dexp_inv(xi: npt.ArrayLike) -> np.ndarray:
    """Inverse right Jacobian (= ``pin.Jlog6(exp6(ξ))``), for θ < π; (..., 6, 6)."""
    xi = np.asarray(xi, float)
    A = so3_dexp_inv(xi[..., 3:])
    return _blocks(A, -A @ _q_right(xi) @ A, np.zeros_like(A), A)


def se3_dexp_dot(xi: npt.ArrayLike, xi_dot: npt.ArrayLike) -> np.ndarray:
    """``d/dt J_r(ξ(t))`` given ξ and ξ̇ (twist rates, e.g. [m/s], [rad/s]); (..., 6, 6) [1/s]."""
    xi = np.asarray(xi, float)
    xi_dot = np.asarray(xi_dot, float)
    Jd = so3_dexp_dot(xi[..., 3:], xi_dot[..., 3:])
    return _blocks(Jd, _q_right_dot(xi, xi_dot), np.zeros_like(Jd), Jd)


def se3_dexp_inv_dot(xi: npt.ArrayLike, xi_dot: npt.ArrayLike) -> np.ndarray:
    """Time derivative of the inverse right Jacobian, ``-J⁻¹ J̇ J⁻¹``; (..., 6, 6) [1/s]."""
    Ji = se3_dexp_inv(xi)
    return -Ji @ se3_dexp_dot(xi, xi_dot) @ Ji
