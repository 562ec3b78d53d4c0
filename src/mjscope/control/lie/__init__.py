"""Lie-group toolkit for SO(3) and SE(3) in NumPy (no Pinocchio at run time).

Conventions, shared with Pinocchio: twists ξ = (v, ω) as ``pin.Motion``, wrenches (f, τ) as
``pin.Force``; ``*_dexp`` is the right Jacobian in the body frame (``Jexp3``/``Jexp6``),
``exp(ξ + δ) ≈ exp(ξ) exp(dexp(ξ) δ)``, and ``*_dexp_inv`` its inverse (``Jlog3``/``Jlog6``).
All exp/log/Jacobian functions accept a leading batch axis.
"""

from mjscope.control.lie.rotations import (
    axis_angle_between,
    homogeneous,
    orientation_error,
    rotation_error,
)
from mjscope.control.lie.se3 import (
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
from mjscope.control.lie.so3 import (
    hat,
    so3_dexp,
    so3_dexp_dot,
    so3_dexp_inv,
    so3_dexp_inv_dot,
    so3_exp,
    so3_log,
    vee,
)

__all__ = [
    "axis_angle_between",
    "hat",
    "homogeneous",
    "orientation_error",
    "rotation_error",
    "se3_ad",
    "se3_adjoint",
    "se3_coadjoint",
    "se3_dexp",
    "se3_dexp_dot",
    "se3_dexp_inv",
    "se3_dexp_inv_dot",
    "se3_exp",
    "se3_inverse",
    "se3_log",
    "so3_dexp",
    "so3_dexp_dot",
    "so3_dexp_inv",
    "so3_dexp_inv_dot",
    "so3_exp",
    "so3_log",
    "vee",
]
