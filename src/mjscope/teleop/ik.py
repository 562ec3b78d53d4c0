"""Placo QP IK of one arm: a frame task on the end effector, joint position and speed limits.

One :class:`ArmIk` per arm, on that arm's chain of the rig's URDF (:func:`~.urdf.arm_chain`):
a soft frame task (``T_world_frame`` = the limited target), a soft posture task towards the
initial pose (keeps the redundant elbow near it), a small regularisation, Placo's joint limits
(URDF bounds) and velocity limits (the side's ``joint_max_speed``, ``solver.dt`` = the control
period). One QP step per control cycle, as the XRoboToolkit samples do.

Convergence check: a solve is accepted only when Placo returns, its result is finite and the
step does not increase the task error (the weighted squared position error plus
``3 − tr(R_targetᵀ R)`` = 4 sin²(θ/2) ≈ θ² of the end effector) beyond a small tolerance.
Otherwise the model goes back to where it was and the caller holds its last good command.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from mjscope.exceptions import ConfigError, UnknownNameError
from mjscope.teleop import native_chain
from mjscope.teleop.config import IkCfg
from mjscope.teleop.poses import Pose, matrix_to_pose, pose_to_flat


class IkResult(NamedTuple):
    """One IK step.

    Attributes:
        q: ``(n,)`` the solution [rad] (on failure: the unchanged model position); a list of
            floats when the target was given as one.
        ok: Whether the step is accepted.
        reason: ``""``, or why not: ``qp_failure``, ``non_finite`` or ``not_converged``.
        position_error: End-effector distance to the target after the step [m].
        orientation_error: End-effector angle to the target after the step [rad].
    """

    q: np.ndarray | list[float]
    ok: bool
    reason: str
    position_error: float
    orientation_error: float


class ArmIk:
    """The QP IK of one arm (its Placo model's state changes only through this class).

    Args:
        urdf_text: The arm's chain as URDF text.
        joints: The arm's joint names in the URDF, in command order.
        ee_frame: The end-effector frame (a link of the URDF).
        dt: Control period [s] (Placo's ``solver.dt``).
        max_speed: ``(n,)`` joint speed limits [rad/s] (Placo's velocity limits).
        posture: ``(n,)`` the posture task's joint positions [rad] (the initial pose).
        cfg: Task weights and the convergence tolerance.

    Raises:
        ConfigError: Placo cannot load the URDF.
        UnknownNameError: ``ee_frame`` is not a frame of the URDF.
    """

    __slots__ = (
        "T_address",
        "_T_buf",
        "_T_now",
        "_T_target",
        "_atol",
        "_e",
        "_idx",
        "_native",
        "_pack",
        "_q_model",
        "_rtol1",
        "_state",
        "_task",
        "_w_ori",
        "_w_pos",
        "cfg",
        "ee_frame",
        "joints",
        "lower",
        "q_step",
        "robot",
        "solver",
        "upper",
    )

    def __init__(
        self,
        urdf_text: str,
        joints: Sequence[str],
        ee_frame: str,
        dt: float,
        max_speed: npt.ArrayLike,
        posture: npt.ArrayLike,
        cfg: IkCfg | None = None,
    ) -> None:
        import placo

        self.cfg = cfg or IkCfg()
        self._w_pos, self._w_ori = self.cfg.position_weight, self.cfg.orientation_weight
        self._rtol1 = 1.0 + self.cfg.divergence_rtol
        self.joints = tuple(joints)
        self.ee_frame = ee_frame
        try:
            self.robot = placo.RobotWrapper("", placo.Flags.ignore_collisions, urdf_text)
        except (RuntimeError, ValueError) as e:
            raise ConfigError(f"Placo cannot load the IK model: {e}; check the URDF") from e
        frames = list(self.robot.frame_names())
        if ee_frame not in frames:
            raise UnknownNameError("end-effector frame", ee_frame, frames, "set ee_frame")
        self._idx: Any = np.array([self.robot.get_joint_offset(n) for n in self.joints])
        if np.array_equal(self._idx, np.arange(self._idx[0], self._idx[0] + len(self._idx))):
            self._idx = slice(int(self._idx[0]), int(self._idx[0]) + len(self._idx))  # a view
        limits = np.array([self.robot.get_joint_limits(n) for n in self.joints])  # (n, 2)
        self.lower, self.upper = limits[:, 0].copy(), limits[:, 1].copy()
        for n, v in zip(self.joints, np.asarray(max_speed, dtype=float), strict=True):
            self.robot.set_velocity_limit(n, float(v))
        self._T_now: Any = None  # the EE transform of the model's state (flat, or Placo's)
        self._T_target = np.eye(4)  # the frame task's target (Placo copies it) ...
        self._T_buf = self._T_target.data.cast("B")  # ... written flat (struct, 16 doubles)
        self.T_address = int(self._T_target.ctypes.data)  # ... or by the compiled chain
        self._native = native_chain.module()  # the compiled error check, if built
        self._pack = struct.Struct("16d").pack_into
        # A reference to the model's state. Its ``q`` getter is a view of the model's vector,
        # valid only until the next solve (Placo's solve swaps the vector's storage): it is
        # read and written at once, never kept.
        self._state = self.robot.state
        self._q_model: list[float] = []  # the joints the model holds (before a step)
        self._atol = self.cfg.divergence_atol
        self._e = (0.0, 0.0)  # the last step's errors (:meth:`_errors`)
        self.q_step: list[float] = []
        self._solver(dt, np.asarray(posture, dtype=float))
        self.set_q(np.clip(posture, self.lower, self.upper))

    def _solver(self, dt: float, posture: np.ndarray) -> None:
        import placo

        c = self.cfg
        s = placo.KinematicsSolver(self.robot)
        s.mask_fbase(True)
        s.dt = dt
        s.enable_joint_limits(True)
        s.enable_velocity_limits(True)
        s.add_regularization_task(c.regularization)
        self._task = s.add_frame_task(self.ee_frame, np.eye(4))
        self._task.configure("ee", "soft", c.position_weight, c.orientation_weight)
        posture_task = s.add_joints_task()
        posture_task.set_joints({n: float(v) for n, v in zip(self.joints, posture, strict=True)})
        posture_task.configure("posture", "soft", c.posture_weight)
        self.solver = s

    @property
    def q(self) -> np.ndarray:
        """``(n,)`` the model's joint positions [rad]."""
        return self._state.q[self._idx].copy()

    def set_q(self, q: npt.ArrayLike, floats: list[float] | None = None) -> None:
        """Move the model to ``q`` [rad] (synced to feedback, or to the last command).

        Args:
            q: The joints.
            floats: ``q`` as plain floats, if the caller has them (the control cycle).
        """
        v = self._state.q
        v[self._idx] = q  # into the model's vector
        self._q_model = floats if floats is not None else v[self._idx].tolist()
        self.robot.update_kinematics()
        self._T_now = None

    def ee_pose(self) -> Pose:
        """The end effector's pose of the model's current position (world frame)."""
        return matrix_to_pose(self.robot.get_T_world_frame(self.ee_frame))

    def fk(self, q: npt.ArrayLike) -> Pose:
        """The end-effector pose at ``q`` (the model is left at ``q``)."""
        self.set_q(q)
        return self.ee_pose()

    def _errors(self, target: list[float] | None) -> tuple[float, float]:
        """Squared position error [m²] and ``3 − tr(R_targetᵀ R)`` (= 4 sin²(θ/2)) of the EE.

        ``target`` is ``T_target`` as a flat list (row-major 4 × 4): plain floats are faster
        than NumPy for 16 numbers. The compiled check reads the same numbers from the task's
        target matrix (``target`` may then be ``None``: already written there).
        """
        if self._native is not None:
            if self._T_now is None:
                self._T_now = self.robot.get_T_world_frame(self.ee_frame)
            return self._native.ik_errors(self._T_now, self.T_address)
        assert target is not None
        T = self._T_now or self.robot.get_T_world_frame(self.ee_frame).ravel().tolist()
        self._T_now = T
        t = target
        dx, dy, dz = T[3] - t[3], T[7] - t[7], T[11] - t[11]
        tr = (
            T[0] * t[0] + T[1] * t[1] + T[2] * t[2]
            + T[4] * t[4] + T[5] * t[5] + T[6] * t[6]
            + T[8] * t[8] + T[9] * t[9] + T[10] * t[10]
        )  # fmt: skip
        return dx * dx + dy * dy + dz * dz, 3.0 - tr

    def solve(self, target: Pose | list[float]) -> IkResult:
        """One QP step towards ``target``; the model moves only if the step is accepted.

        Args:
            target: The end-effector target, or ``T_target`` as 16 floats, row-major (the
                control cycle's form: no NumPy on the way; the result's ``q`` is then a
                list of floats).
        """
        if isinstance(target, list):
            reason = self.advance(target)
            return IkResult(self.q_step, not reason, reason, *_metric(self._e))
        reason = self.advance(pose_to_flat(target))
        return IkResult(np.array(self.q_step), not reason, reason, *_metric(self._e))

    def advance(self, target: list[float] | None) -> str:
        """:meth:`solve` in the control cycle's form: ``T_target`` as 16 floats, row-major.

        ``None``: the compiled chain already wrote it into the task's target matrix
        (:attr:`T_address`).

        Returns:
            ``""`` when the step is accepted (its joints: :attr:`q_step`, plain floats), else
            the reason (the model is back where it was; :attr:`q_step` is that position).
            The step's errors are not converted (:meth:`solve` does that).
        """
        q0 = self._q_model
        if target is not None:
            self._pack(self._T_buf, 0, *target)  # into the task's target matrix
        self._task.T_world_frame = self._T_target
        e = self._errors(target)  # the EE where the last step left it: the bound on the step's
        before = (self._w_pos * e[0] + self._w_ori * e[1]) * self._rtol1 + self._atol  # error
        self._T_now = None
        try:
            self.solver.solve(True)
        except RuntimeError:
            return self._reject(q0, "qp_failure", target)
        q = self._state.q[self._idx].tolist()
        if not math.isfinite(sum(q)):
            return self._reject(q0, "non_finite", target)
        self.robot.update_kinematics()
        e = self._e = self._errors(target)  # and caches the new end-effector transform
        if self._w_pos * e[0] + self._w_ori * e[1] > before:
            return self._reject(q0, "not_converged", target)
        self._q_model = self.q_step = q
        return ""

    def _reject(self, q0: list[float], reason: str, target: list[float] | None) -> str:
        """Back to ``q0`` (the model's joints before the step)."""
        self.set_q(q0)
        self.q_step = self._q_model
        self._e = self._errors(target)
        return reason


def _metric(e: tuple[float, float]) -> tuple[float, float]:
    """:meth:`ArmIk._errors` → position error [m] and orientation error θ [rad]."""
    s = math.sqrt(max(0.0, e[1]) / 4.0)
    return math.sqrt(e[0]), 2.0 * math.asin(min(1.0, s))
