"""Dual RM75 rig constants: the sideways torso mount of ``dual_rm75_robot.urdf``.

Source: ``facts/rm75_arm_and_teleop.md`` §2, option A (``XRoboToolkit-Teleop-Sample-Python``):
``world`` →(rpy 0 0 π) torso → ``l1`` at (0.125, 0, 0.93), rpy (π/2, 0, π/2) → right arm;
``l2`` at (−0.125, 0, 0.93), rpy (π/2, 0, −π/2) → left arm; each followed by a shoulder joint
with rpy (0, 0, π/2) (the file writes 1.57). Resulting base poses in ``world``: right base at
(−0.125, 0, 0.93) with its z-axis along −x, left base at (+0.125, 0, 0.93) with z along +x.
"""

from __future__ import annotations

import math

NAME = "dual_rm75"
SIDES: tuple[str, ...] = ("left", "right")
TORSO_MASS = 8.52  # [kg]
TORSO_RPY = (0.0, 0.0, math.pi)  # world → torso
SHOULDER_HEIGHT = 0.93  # [m]
# Side → (mount xyz in the torso frame [m], mount rpy [rad]); then the shoulder rpy below.
MOUNTS: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "right": ((0.125, 0.0, SHOULDER_HEIGHT), (math.pi / 2, 0.0, math.pi / 2)),
    "left": ((-0.125, 0.0, SHOULDER_HEIGHT), (math.pi / 2, 0.0, -math.pi / 2)),
}
SHOULDER_RPY = (0.0, 0.0, math.pi / 2)


def joint_names(side: str) -> tuple[str, ...]:
    """``<side>_joint1`` .. ``<side>_joint7``."""
    return tuple(f"{side}_joint{i}" for i in range(1, 8))


JOINT_NAMES: tuple[str, ...] = joint_names("left") + joint_names("right")
NQ = NV = 14
