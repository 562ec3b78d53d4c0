"""Manipulability of a serial chain and its gradient (singularity avoidance)."""

from __future__ import annotations

import math

import numpy as np


def manipulability_gradient(J_body: np.ndarray) -> tuple[float, np.ndarray]:
    """Manipulability ``w = √det(J Jᵀ)`` and ``∇ log w`` of a serial chain of 1-DoF joints.

    Uses ``∂J_k/∂q_i = [J_k, J_i]`` (Lie bracket of body-Jacobian columns, ``i > k``), so
    ``∂ log w/∂q_i = Σ_{k<i} B_kᵀ [J_k, J_i]`` with ``B = (J Jᵀ)⁻¹ J``, evaluated with cross
    products in O(nv). ``w`` is the same for the body and LOCAL_WORLD_ALIGNED Jacobians.

    Args:
        J_body: Body (LOCAL) Jacobian of the end-effector frame, (v, ω) rows; (6, nv).

    Returns:
        ``w`` and ``∇ log w`` [1/rad]; (nv,).
    """
    A = J_body.dot(J_body.T)
    w = math.sqrt(max(np.linalg.det(A), 0.0))
    B = np.linalg.solve(A + 1e-12 * np.eye(6), J_body)
    v, om, bv, bo = J_body[:3], J_body[3:], B[:3], B[3:]
    P = _cross(bv, om)  # (3, nv)
    Q = _cross(bv, v) + _cross(bo, om)
    cP = np.cumsum(P, axis=1) - P  # Σ_{k<i}
    cQ = np.cumsum(Q, axis=1) - Q
    return w, (v * cP).sum(axis=0) + (om * cQ).sum(axis=0)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Column-wise cross product of (3, n) arrays; (3, n)."""
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )
