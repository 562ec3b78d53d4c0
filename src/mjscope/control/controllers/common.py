"""Pieces the task-space controllers (``cic``, ``se3_lie``, ``hqp``) share.

The end-effector binding with its null-space posture (:class:`FrameController`), the default
task gains (:func:`task_gains`), gain scaling (:func:`scaled`), the one kinematic pass of the
frame (:func:`frame_kinematics`) and the saddle-point work matrix (:func:`saddle_matrix`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from mjscope.control.controllers.base import Controller

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
G = TypeVar("G", bound="DataclassInstance")


class FrameController(Controller):
    """A controller of one end-effector frame with a null-space posture.

    Args:
        model: Pinocchio model (built from the assembled scene MJCF).
        frame: End-effector frame name.
        gains: Gains record with ``kp_null`` [N·m/rad] and ``kd_null`` [N·m·s/rad].
        q_null: Null-space posture [rad]; (nq,).
    """

    def __init__(self, model: Any, frame: str, gains: Any, q_null: npt.ArrayLike) -> None:
        self.model = model
        self.data = model.createData()
        self.fid = model.getFrameId(frame)
        self.gains = gains
        self.q_null = np.asarray(q_null, float).copy()
        # Scalar gains as vectors: array·array is cheaper than scalar·array, and rounds alike.
        self._kp_null = np.full(model.nv, gains.kp_null)
        self._kd_null = np.full(model.nv, gains.kd_null)


def task_gains(
    kp_pos: Sequence[float],
    kp_rot: Sequence[float],
    kd_pos: Sequence[float] | None,
    kd_rot: Sequence[float] | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Stiffness [1/s²] and damping [1/s] (position, orientation); (6,) each.

    A damping given as ``None`` defaults to critical damping 2√kp.
    """
    kp = np.array([*kp_pos, *kp_rot], float)
    kd_p = kd_pos if kd_pos is not None else 2.0 * np.sqrt(kp_pos)
    kd_r = kd_rot if kd_rot is not None else 2.0 * np.sqrt(kp_rot)
    return kp, np.array([*kd_p, *kd_r], float)


def scaled(gains: G, factor: float, fields: Iterable[str]) -> G:
    """A copy of the frozen dataclass ``gains`` with ``fields`` multiplied by ``factor``."""
    return dataclasses.replace(gains, **{f: getattr(gains, f) * factor for f in fields})


def frame_kinematics(
    model: Any, data: Any, fid: int, q: np.ndarray, v: np.ndarray, axes: Any = LWA
) -> tuple[Any, np.ndarray, np.ndarray]:
    """One kinematic pass: frame placement, J (6, nv) and J̇ (6, nv) in ``axes``.

    Args:
        model: Pinocchio model.
        data: Its data (placements and Jacobians are written there).
        fid: Frame id.
        q: Joint positions [rad]; (nq,).
        v: Joint velocities [rad/s]; (nv,).
        axes: Pinocchio reference frame of the Jacobians (default LOCAL_WORLD_ALIGNED).
    """
    pin.computeJointJacobiansTimeVariation(model, data, q, v)
    oMf = pin.updateFramePlacement(model, data, fid)
    J = pin.getFrameJacobian(model, data, fid, axes)
    dJ = pin.getFrameJacobianTimeVariation(model, data, fid, axes)
    return oMf, J, dJ


def saddle_matrix(nv: int, damping: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Work matrix ``[[M, Jᵀ], [J, −εI]]`` (nv + 6, nv + 6) and views of its M and J blocks.

    Fortran-ordered for LAPACK; only the upper triangle is read. The views are (nv, nv) and
    (6, nv) (the latter the transpose of the Jᵀ block).
    """
    K = np.zeros((nv + 6, nv + 6), order="F")
    K[nv:, nv:] = -damping * np.eye(6)
    return K, K[:nv, :nv], K[:nv, nv:].T
