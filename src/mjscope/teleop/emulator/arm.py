"""The arm inside the controller emulator: joint motion under the controller's own limits.

Joints are in degrees here (the controller's unit). A planned move (``movej``) and
pass-through (``movej_canfd``) both drive every joint toward its target, time-optimally under
the joint's speed and acceleration limits (``movej`` scaled by its speed %); a target beyond
the position range is refused with error 0x1002, as the controller does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mjscope.exceptions import MjscopeError
from mjscope.models.robots import rm75_constants as rm75

ERR_BEYOND_LIMIT = 0x1002  # errorList: target beyond a joint limit
DEFAULT_ACC_DEG_S2 = 600.0  # 100 RPM/s, what a RealMan controller reports by default [°/s²]


@dataclass(frozen=True)
class ArmSpec:
    """One arm model as its controller describes it.

    Attributes:
        name: Model key (``rm75``).
        product_version: ``Product_version`` of ``get_arm_software_info``.
        min_pos_deg: Per-joint lower limits [deg].
        max_pos_deg: Per-joint upper limits [deg].
        max_speed_deg_s: Per-joint speed limits [°/s].
        max_acc_deg_s2: Per-joint acceleration limits [°/s²].
        dh: Per-joint DH rows (alpha [0.001°], a [0.001 mm], d [0.001 mm], offset [0.001°]).
    """

    name: str
    product_version: str
    min_pos_deg: tuple[float, ...]
    max_pos_deg: tuple[float, ...]
    max_speed_deg_s: tuple[float, ...]
    max_acc_deg_s2: tuple[float, ...]
    dh: tuple[tuple[int, int, int, int], ...]

    @property
    def dof(self) -> int:
        """Number of joints."""
        return len(self.min_pos_deg)


def rm75_spec() -> ArmSpec:
    """The RM75-B, from ``rm75_constants`` (``facts/rm75_arm_and_teleop.md`` §1a)."""
    lim = tuple(math.degrees(v) for v in rm75.JOINT_LIMITS)
    d_um = [round(xyz[2] * 1e6) for xyz in rm75.JOINT_XYZ]
    alpha = [0, -90_000, 90_000, -90_000, 90_000, -90_000, 90_000]
    return ArmSpec(
        name=rm75.NAME,
        product_version="RM75-B",
        min_pos_deg=tuple(-v for v in lim),
        max_pos_deg=lim,
        max_speed_deg_s=tuple(math.degrees(v) for v in rm75.VELOCITY_LIMITS),
        max_acc_deg_s2=(DEFAULT_ACC_DEG_S2,) * rm75.NQ,
        dh=tuple((a, 0, d, 0) for a, d in zip(alpha, d_um, strict=True)),
    )


ARMS = {"rm75": rm75_spec}  # model key → spec builder


class SimArm:
    """Joint positions and velocities moving under the limits.

    Args:
        spec: The arm.
        q0_deg: ``(dof,)`` the power-on pose [deg].

    Raises:
        MjscopeError: The pose has the wrong size or is beyond a joint limit.

    Attributes:
        q: ``(dof,)`` joint angles [deg].
        v: ``(dof,)`` joint velocities [°/s].
        mode: ``arm_current_status``: ``idle``, ``move_J``, ``move_through_joint``, ``stop``,
            ``slow_stop`` or ``pause``.
        err: The arm's error code (0 = none).
    """

    def __init__(self, spec: ArmSpec, q0_deg: npt.ArrayLike) -> None:
        self.spec = spec
        self.lo = np.asarray(spec.min_pos_deg, dtype=float)
        self.hi = np.asarray(spec.max_pos_deg, dtype=float)
        self.vmax = np.asarray(spec.max_speed_deg_s, dtype=float)
        self.amax = np.asarray(spec.max_acc_deg_s2, dtype=float)
        self.q = np.asarray(q0_deg, dtype=float).copy()
        if self.q.shape != (spec.dof,) or not self.within_limits(self.q):
            raise MjscopeError(
                f"rm-emulator: power-on pose {self.q.tolist()} deg must be {spec.dof} angles "
                f"within the joint limits ±{np.round(self.hi, 1).tolist()} deg"
            )
        self.v = np.zeros(spec.dof)
        self.target = self.q.copy()
        self.scale = 1.0
        self.mode = "idle"
        self.err = 0
        self._paused_from = ""

    def within_limits(self, q_deg: np.ndarray) -> bool:
        """Whether every angle is inside the position range."""
        return bool(np.all((q_deg >= self.lo) & (q_deg <= self.hi)))

    def command(self, q_deg: np.ndarray, mode: str, speed_percent: int = 100) -> bool:
        """Start a move (``move_J``) or take a pass-through target (``move_through_joint``).

        Returns:
            False (and error 0x1002) when a target is beyond a joint limit; nothing moves then.
        """
        if not self.within_limits(q_deg):
            self.err = ERR_BEYOND_LIMIT
            return False
        self.err = 0
        self.target = q_deg.astype(float).copy()
        self.scale = speed_percent / 100.0
        self.mode = mode
        return True

    def stop(self, slow: bool) -> None:
        """Stop at once (``stop``) or brake along the motion (``slow_stop``)."""
        if slow:
            brake = self.v * np.abs(self.v) / (2.0 * self.amax)
            self.target = np.clip(self.q + brake, self.lo, self.hi)
            self.scale = 1.0
        else:
            self.v[:] = 0.0
            self.target = self.q.copy()
        self.mode = "slow_stop" if slow else "stop"

    def pause(self, on: bool) -> None:
        """Pause (hold still, keep the target) or continue."""
        if on and self.mode != "pause":
            self._paused_from, self.mode = self.mode, "pause"
            self.v[:] = 0.0
        elif not on and self.mode == "pause":
            self.mode = self._paused_from or "idle"

    def step(self, dt: float) -> bool:
        """Advance by ``dt`` [s].

        Returns:
            Whether a planned move (``move_J``) arrived in this step.
        """
        if self.mode == "pause":
            return False
        d = self.target - self.q
        vcap, acap = self.vmax * self.scale, self.amax * self.scale
        # the fastest speed that can still stop at the target in steps of dt (discrete braking)
        brake = acap * dt * (np.sqrt(0.25 + 2.0 * np.abs(d) / (acap * dt * dt)) - 0.5)
        v_des = np.sign(d) * np.minimum(vcap, brake)
        self.v = self.v + np.clip(v_des - self.v, -acap * dt, acap * dt)
        dq = self.v * dt
        done = (np.abs(dq) >= np.abs(d)) & (np.sign(dq) * np.sign(d) >= 0)
        self.q = np.where(done, self.target, self.q + dq)
        self.v = np.where(done, 0.0, self.v)
        if not np.all(done) or self.mode in ("idle", "stop"):
            return False
        arrived = self.mode == "move_J"
        self.mode = "idle"
        return arrived


def flange_pose(q_deg: np.ndarray) -> tuple[list[int], list[int], list[int]]:
    """The RM75 flange pose at ``q_deg`` in wire units.

    Returns:
        Position [0.001 mm], Euler angles rx, ry, rz [0.001 rad] and quaternion w, x, y, z
        [× 1e6], in the base frame.
    """
    T = np.eye(4)
    for xyz, rpy, axis, q in zip(
        rm75.JOINT_XYZ, rm75.JOINT_RPY, rm75.JOINT_AXES, np.radians(q_deg), strict=True
    ):
        step = np.eye(4)
        step[:3, :3] = _rpy(rpy) @ _axis_angle(np.asarray(axis), q)
        step[:3, 3] = xyz
        T = T @ step
    R = T[:3, :3]
    roll, yaw = math.atan2(R[2, 1], R[2, 2]), math.atan2(R[1, 0], R[0, 0])
    euler = (roll, math.asin(-float(np.clip(R[2, 0], -1.0, 1.0))), yaw)
    pos = [round(v * 1e6) for v in T[:3, 3]]
    return pos, [round(v * 1e3) for v in euler], [round(v * 1e6) for v in _quat(R)]


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def _rpy(rpy: tuple[float, float, float]) -> np.ndarray:
    r, p, y = rpy
    x_ax, y_ax, z_ax = np.eye(3)
    return _axis_angle(z_ax, y) @ _axis_angle(y_ax, p) @ _axis_angle(x_ax, r)


def _quat(R: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a rotation matrix, w ≥ 0."""
    w = math.sqrt(max(0.0, 1.0 + R[0, 0] + R[1, 1] + R[2, 2])) / 2.0
    x = math.copysign(
        math.sqrt(max(0.0, 1.0 + R[0, 0] - R[1, 1] - R[2, 2])) / 2.0, R[2, 1] - R[1, 2]
    )
    y = math.copysign(
        math.sqrt(max(0.0, 1.0 - R[0, 0] + R[1, 1] - R[2, 2])) / 2.0, R[0, 2] - R[2, 0]
    )
    z = math.copysign(
        math.sqrt(max(0.0, 1.0 - R[0, 0] - R[1, 1] + R[2, 2])) / 2.0, R[1, 0] - R[0, 1]
    )
    return np.array([w, x, y, z])
