"""RealMan RM75 constants (``ros2_rm_robot`` ``rm_description/urdf/rm_75.urdf``).

Source: ``facts/rm75_arm_and_teleop.md`` §1a/§1c. Joint origins are URDF ``xyz``/``rpy`` of each
joint in its parent link frame; the file writes π/2 as 1.5708, here it is exact. At q = 0 the
flange (``Link7`` origin) is at (0, 0, 0.8505) with identity orientation.
"""

from __future__ import annotations

import math

NAME = "rm75"
JOINT_NAMES: tuple[str, ...] = tuple(f"joint{i}" for i in range(1, 8))
LINK_NAMES: tuple[str, ...] = ("base_link", *(f"Link{i}" for i in range(1, 8)))
NQ = NV = 7
FLANGE_BODY = "Link7"
FLANGE_SITE = "flange"

_H = math.pi / 2

# Joint origin in the parent link frame: xyz [m] and URDF rpy [rad].
JOINT_XYZ: tuple[tuple[float, float, float], ...] = (
    (0.0, 0.0, 0.2405),
    (0.0, 0.0, 0.0),
    (0.0, 0.0, 0.256),
    (0.0, 0.0, 0.0),
    (0.0, 0.0, 0.21),
    (0.0, 0.0, 0.0),
    (0.0, 0.0, 0.144),
)
JOINT_RPY: tuple[tuple[float, float, float], ...] = (
    (-_H, 0.0, 0.0),
    (_H, 0.0, 0.0),
    (-_H, 0.0, 0.0),
    (_H, 0.0, 0.0),
    (-_H, 0.0, 0.0),
    (_H, 0.0, 0.0),
    (0.0, 0.0, 0.0),
)
JOINT_AXES: tuple[tuple[float, float, float], ...] = (
    (0.0, -1.0, 0.0),
    (0.0, 1.0, 0.0),
    (0.0, -1.0, 0.0),
    (0.0, 1.0, 0.0),
    (0.0, -1.0, 0.0),
    (0.0, 1.0, 0.0),
    (0.0, 0.0, 1.0),
)
JOINT_LIMITS: tuple[float, ...] = (3.1, 2.268, 3.1, 2.355, 3.1, 2.233, 6.28)  # ± [rad]
EFFORT_LIMITS: tuple[float, ...] = (60.0, 60.0, 30.0, 30.0, 10.0, 10.0, 10.0)  # [N·m]
VELOCITY_LIMITS: tuple[float, ...] = (3.14, 3.14, 3.92, 3.92, 3.92, 3.92, 3.92)  # [rad/s]

# Link masses of rm_75.urdf [kg]: base_link, Link1..Link7 (total ≈ 3.11).
LINK_MASSES: tuple[float, ...] = (0.841, 0.594, 0.433, 0.431, 0.290, 0.239, 0.219, 0.065)

FLANGE_HEIGHT_AT_ZERO = 0.2405 + 0.256 + 0.21 + 0.144  # [m] = 0.8505
