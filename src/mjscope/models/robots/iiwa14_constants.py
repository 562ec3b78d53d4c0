"""KUKA LBR iiwa 14 constants (mesh-free copy of the Menagerie ``kuka_iiwa_14/iiwa14.xml``).

Kinematics and inertials as compiled by MuJoCo 3.17 (see ``facts/docking_control.md`` §5a).
Joint friction, damping and armature are zero: this robot carries the numeric regression
anchors of the docking experiments.
"""

from __future__ import annotations

NAME = "iiwa14"
JOINT_NAMES: tuple[str, ...] = tuple(f"joint{i}" for i in range(1, 8))
ACTUATOR_NAMES: tuple[str, ...] = tuple(f"motor{i}" for i in range(1, 8))
BODY_NAMES: tuple[str, ...] = ("base", *(f"link{i}" for i in range(1, 8)))
NQ = NV = NU = 7
FLANGE_BODY = "link7"
ATTACHMENT_SITE = "attachment_site"
ATTACHMENT_POS = (0.0, 0.0, 0.045)  # on link7 [m]

# KUKA rated torques, as used by kevinzakka/mjctrl [N·m].
TORQUE_LIMITS = (320.0, 320.0, 176.0, 176.0, 110.0, 40.0, 40.0)
HOME = (0.0, 0.785398, 0.0, -1.5708, 0.0, 0.0, 0.0)  # [rad]

_Q90 = (0.0, 0.0, 0.707107, 0.707107)
_QX = (0.707107, 0.707107, 0.0, 0.0)
_ID = (1.0, 0.0, 0.0, 0.0)

# (body, parent, pos, quat, joint range, mass, inertial pos, inertial quat, principal inertia)
LINKS: tuple[tuple, ...] = (
    ("link1", "base", (0, 0, 0.1575), _ID, 2.96706, 5.76, (0, -0.03, 0.12), _ID,
     (0.0333, 0.033, 0.0123)),
    ("link2", "link1", (0, 0, 0.2025), _Q90, 2.0944, 6.35, (0.0003, 0.059, 0.042), _Q90,
     (0.0305, 0.0304, 0.011)),
    ("link3", "link2", (0, 0.2045, 0), _Q90, 2.96706, 3.5, (0, 0.03, 0.13), _ID,
     (0.025, 0.0238, 0.0076)),
    ("link4", "link3", (0, 0, 0.2155), _QX, 2.0944, 3.5, (0, 0.067, 0.034), _QX,
     (0.017, 0.0164, 0.006)),
    ("link5", "link4", (0, 0.1845, 0), _Q90, 2.96706, 3.5, (0.0001, 0.021, 0.076), _ID,
     (0.01, 0.0087, 0.00449)),
    ("link6", "link5", (0, 0, 0.2155), _QX, 2.0944, 1.8, (0, 0.0006, 0.0004), _QX,
     (0.0049, 0.0047, 0.0036)),
    ("link7", "link6", (0, 0.081, 0), _Q90, 3.05433, 1.2, (0, 0, 0.02), _ID,
     (0.001, 0.001, 0.001)),
)  # fmt: skip
BASE_INERTIAL = (5.0, (-0.1, 0.0, 0.07), _ID, (0.05, 0.06, 0.03))
