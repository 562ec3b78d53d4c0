"""The clutch: relative-pose teleoperation, engaged while the grip is held.

As in the XRoboToolkit samples (``facts/rm75_arm_and_teleop.md`` §6): on the first engaged
cycle the clutch stores the end-effector pose of the IK model (synced to the arm's feedback) and
the controller pose as anchors; every engaged cycle the target is

    p = p_ee,anchor + s · (p_ctrl − p_ctrl,anchor)
    R = ΔR · R_ee,anchor,   ΔR = R_ctrl · R_ctrl,anchorᵀ   (the rotation applied in the world)

with ``s`` the side's ``scale_factor``. Releasing the grip (or a reset) clears both anchors, so
the next engagement starts from wherever the arm and the controller are: no jump.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from mjscope.teleop.poses import Pose


class Clutch:
    """Anchors and the relative target of one arm.

    Args:
        scale: End-effector motion per controller motion (``scale_factor``).
        threshold: The clutch is engaged while the grip is above this (0..1).

    Attributes:
        engagements: How many times it anchored (grip presses, and re-anchors after a reset).
    """

    __slots__ = ("_anchors", "_ctrl", "_ee", "engagements", "scale", "threshold")

    def __init__(self, scale: float, threshold: float) -> None:
        self.scale = float(scale)
        self.threshold = float(threshold)
        self.engagements = 0
        self._ee: Pose | None = None
        self._ctrl: Pose | None = None
        self._anchors: tuple[list[float], ...] = ()

    @property
    def anchored(self) -> bool:
        """Whether the anchors are set (the clutch is engaged)."""
        return self._ee is not None

    @property
    def anchor(self) -> Pose | None:
        """The end-effector anchor, or ``None`` when released."""
        return self._ee

    @property
    def anchors(self) -> tuple[list[float], ...]:
        """``(ee p, ee q, controller p, controller q conjugate)`` as floats (while anchored)."""
        return self._anchors

    def pressed(self, grip: float) -> bool:
        """Whether a grip value engages the clutch (strictly above the threshold)."""
        return grip > self.threshold

    def target(self, ctrl: Pose, ee_pose: Callable[[], Pose]) -> Pose:
        """The end-effector target for the controller pose ``ctrl``; anchors on first use.

        Args:
            ctrl: The controller pose, robot world frame.
            ee_pose: The IK model's current end-effector pose (called only when anchoring).

        Returns:
            The target (on the anchoring cycle: the anchor itself).
        """
        p, q = self.follow(ctrl.p.tolist(), ctrl.q.tolist(), ee_pose)
        return Pose(np.array(p), np.array(q))

    def follow(
        self, p_ctrl: list[float], q_ctrl: list[float], ee_pose: Callable[[], Pose]
    ) -> tuple[list[float], list[float]]:
        """:meth:`target` on plain floats: ``(x, y, z)``, unit ``(w, x, y, z)`` → ``(p, q)``.

        This runs every engaged cycle: no NumPy (its per-call cost dominates for 7 numbers).
        """
        if self._ee is None or self._ctrl is None:
            self._ee, self._ctrl = ee_pose(), Pose(np.array(p_ctrl), np.array(q_ctrl))
            w, x, y, z = q_ctrl
            self._anchors = (self._ee.p.tolist(), self._ee.q.tolist(), p_ctrl, [w, -x, -y, -z])
            self.engagements += 1
        ep, (bw, bx, by, bz), cp, (cw, cx, cy, cz) = self._anchors
        s = self.scale
        x, y, z = p_ctrl
        p = [ep[0] + s * (x - cp[0]), ep[1] + s * (y - cp[1]), ep[2] + s * (z - cp[2])]
        aw, ax, ay, az = q_ctrl  # dq = q_ctrl ⊗ ci, then q = dq ⊗ eq (quat_mul's operations)
        dw = aw * cw - ax * cx - ay * cy - az * cz
        dx = aw * cx + ax * cw + ay * cz - az * cy
        dy = aw * cy - ax * cz + ay * cw + az * cx
        dz = aw * cz + ax * cy - ay * cx + az * cw
        w = dw * bw - dx * bx - dy * by - dz * bz
        qx = dw * bx + dx * bw + dy * bz - dz * by
        qy = dw * by - dx * bz + dy * bw + dz * bx
        qz = dw * bz + dx * by - dy * bx + dz * bw
        n = math.sqrt(w * w + qx * qx + qy * qy + qz * qz)  # canonical(): unit, w ≥ 0
        n = -n if w < 0.0 else n
        return p, [w / n, qx / n, qy / n, qz / n]

    def release(self) -> None:
        """Clear both anchors (grip released, reset, safe stop)."""
        self._ee = self._ctrl = None


def canonical_floats(q: list[float]) -> list[float]:
    """:func:`~mjscope.teleop.poses.canonical` on plain floats (the same operations)."""
    w, x, y, z = q
    n = math.sqrt(w * w + x * x + y * y + z * z)
    n = -n if w < 0.0 else n
    return [w / n, x / n, y / n, z / n]


def controller_pose(pose: np.ndarray) -> Pose:
    """An XR source's ``(7,)`` world pose (x, y, z, w, x, y, z) as a :class:`Pose`."""
    return Pose(pose[:3], pose[3:7])
