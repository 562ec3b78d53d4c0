"""LinkerHand G20 / L20 v9 left hand: the facts the ``g20_left`` builder is made of.

Joint names, tree, origins, axes and limits follow the public L20 v9 left URDF
(``linker-bot/linkerhand-urdf``, ``l20/left``; see ``facts/g20_hand.md`` §3a, §9). Lengths [m],
angles [rad], masses [kg]. Frame of the palm (``hand_base_link``): +z from the wrist toward the
fingertips, +y toward the pinky, +x toward the palm side (finger flexion about +y moves the tips
toward +x).
"""

from __future__ import annotations

from typing import NamedTuple

ROOT_BODY = "hand_base_link"
MOUNT_POS = (0.0, 0.45, 0.70)  # the seed's mount pose: palm fixed here in the world [m]
FINGERS = ("index", "middle", "ring", "pinky")


class JointDef(NamedTuple):
    """One revolute joint and the link it moves.

    Attributes:
        name: Joint name (L20 v9).
        parent: Parent link.
        child: Child link (the body the joint sits in).
        pos: Joint origin in the parent frame [m].
        rpy: Origin roll/pitch/yaw [rad] (URDF convention).
        axis: Joint axis in the child frame.
        lower: Lower limit [rad].
        upper: Upper limit [rad].
    """

    name: str
    parent: str
    child: str
    pos: tuple[float, float, float]
    rpy: tuple[float, float, float]
    axis: tuple[float, float, float]
    lower: float
    upper: float


# MCP roll origins in the palm frame, index → pinky [m] (URDF joint origins).
_MCP_ROLL_POS = {
    "index": (-0.0298653, -0.0266981, 0.1593114),
    "middle": (-0.0345991, -0.0050981, 0.1638043),
    "ring": (-0.0322943, 0.0165019, 0.1593114),
    "pinky": (-0.0286705, 0.0381019, 0.1503127),
}
_ROLL_TO_PITCH = (0.0167698, 0.0, 0.0)  # metacarpal [m]
_PITCH_TO_PIP = (-0.0041946, 0.0, 0.0448194)  # proximal phalanx [m]
_PIP_TO_DIP = (0.0027556, 0.0, 0.0317024)  # middle phalanx [m]
DISTAL_TIP = (-0.002, 0.0, 0.022)  # fingertip in the distal frame [m] (estimate, facts §9)
THUMB_TIP = (-0.003, 0.0, 0.026)  # thumb tip in the thumb distal frame [m] (estimate)

_Z = (0.0, 0.0, 0.0)


def _finger(f: str) -> list[JointDef]:
    return [
        JointDef(
            f"{f}_mcp_roll",
            ROOT_BODY,
            f"{f}_metacarpals",
            _MCP_ROLL_POS[f],
            _Z,
            (1, 0, 0),
            -0.17,
            0.17,
        ),
        JointDef(
            f"{f}_mcp_pitch",
            f"{f}_metacarpals",
            f"{f}_proximal",
            _ROLL_TO_PITCH,
            _Z,
            (0, 1, 0),
            0.0,
            1.4,
        ),
        JointDef(
            f"{f}_pip", f"{f}_proximal", f"{f}_middle", _PITCH_TO_PIP, _Z, (0, 1, 0), 0.0, 1.57
        ),
        JointDef(f"{f}_dip", f"{f}_middle", f"{f}_distal", _PIP_TO_DIP, _Z, (0, 1, 0), 0.0, 1.4),
    ]


THUMB_JOINTS = (
    JointDef(
        "thumb_cmc_yaw",
        ROOT_BODY,
        "thumb_metacarpals_base2",
        (-0.00091528, -0.0050818, 0.057392),
        _Z,
        (-1, 0, 0),
        0.0,
        1.40,
    ),
    JointDef(
        "thumb_cmc_roll",
        "thumb_metacarpals_base2",
        "thumb_metacarpals_base1",
        (0.024508, -0.002864, 0.0035063),
        (2.0706, 0.0, 0.0),
        (0, 1, 0),
        0.0,
        1.22,
    ),
    JointDef(
        "thumb_cmc_pitch",
        "thumb_metacarpals_base1",
        "thumb_metacarpals",
        (-0.0011523, -0.00048559, 0.030795),
        (0.0, 0.49978, 1.5708),
        (0, 1, 0),
        0.0,
        0.79,
    ),
    JointDef(
        "thumb_mcp",
        "thumb_metacarpals",
        "thumb_proximal",
        (0.0064539, 0.0, 0.055858),
        _Z,
        (0, 1, 0),
        0.0,
        1.05,
    ),
    JointDef(
        "thumb_ip",
        "thumb_proximal",
        "thumb_distal",
        (0.0053547, 0.0, 0.034485),
        _Z,
        (0, 1, 0),
        0.0,
        1.22,
    ),
)

JOINTS: tuple[JointDef, ...] = THUMB_JOINTS + tuple(j for f in FINGERS for j in _finger(f))
JOINT_NAMES = tuple(j.name for j in JOINTS)

# Mimic joint → (driving joint, default ratio): the specification's G20 ratios (facts §4).
MIMIC = {
    "thumb_ip": ("thumb_mcp", 1.02),
    **{f"{f}_dip": (f"{f}_pip", 0.89) for f in FINGERS},
}
MIMIC_JOINT_NAMES = tuple(MIMIC)
ACTIVE_JOINT_NAMES = tuple(n for n in JOINT_NAMES if n not in MIMIC)

# Link masses [kg] (L20 v9 URDF inertials).
MASS = {
    ROOT_BODY: 0.101,
    "thumb_metacarpals_base2": 0.0010,
    "thumb_metacarpals_base1": 0.0046,
    "thumb_metacarpals": 0.0230,
    "thumb_proximal": 0.0052,
    "thumb_distal": 0.0041,
    **{f"{f}_metacarpals": 0.00088 for f in FINGERS},
    **{f"{f}_proximal": 0.00372 for f in FINGERS},
    **{f"{f}_middle": 0.00241 for f in FINGERS},
    **{f"{f}_distal": 0.00340 for f in FINGERS},
}

# Palm collision box: centre and half-sizes in the palm frame [m] (fits the L20 v9 palm mesh
# below the MCP row).
PALM_BOX_POS = (-0.016, 0.004, 0.075)
PALM_BOX_HALF = (0.016, 0.050, 0.065)
FINGER_RADIUS = 0.0075  # phalanx capsule radius [m] (≈ 16 mm wide fingers, facts §9)
THUMB_RADIUS = 0.0085  # thumb capsule radius [m]

# PD gains (stiffness [N·m/rad], damping [N·m·s/rad], max effort [N·m]) the seed uses.
THUMB_GAINS = (10.0, 3.0, 6.0)
FINGER_GAINS = (15.0, 2.5, 8.0)

NQ = NV = len(JOINT_NAMES)  # 21
NU = len(ACTIVE_JOINT_NAMES)  # 16
NEQ = len(MIMIC)  # 5 with mimic_equality
