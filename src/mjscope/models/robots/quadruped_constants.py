"""Facts about the bundled Go2-like ``quadruped`` (dimensions close to a Unitree Go2).

Masses [kg], lengths [m], inertias [kg·m²], angles [rad], torques [N·m].
"""

from __future__ import annotations

LEGS = ("FR", "FL", "RR", "RL")
# Hip mount on the trunk, (x, y) sign per leg.
LEG_SIGN = {"FR": (1.0, -1.0), "FL": (1.0, 1.0), "RR": (-1.0, -1.0), "RL": (-1.0, 1.0)}
JOINT_SUFFIXES = ("hip", "thigh", "calf")
JOINT_NAMES = tuple(f"{leg}_{j}_joint" for leg in LEGS for j in JOINT_SUFFIXES)
ACTUATOR_NAMES = tuple(f"{leg}_{j}" for leg in LEGS for j in JOINT_SUFFIXES)
FOOT_GEOMS = tuple(f"{leg}_foot" for leg in LEGS)
ROOT_JOINT = "root"
TRUNK = "trunk"

NQ = 7 + 12
NV = 6 + 12
NU = 12

TRUNK_HALF = (0.1881, 0.04675, 0.057)
TRUNK_MASS = 6.921
TRUNK_INERTIA = (0.02448, 0.098077, 0.107)
HIP_OFFSET = (0.1934, 0.0465)
HIP_MASS = 0.678
HIP_INERTIA = (0.00048, 0.00088, 0.00059)
THIGH_OFFSET_Y = 0.0955
THIGH_LENGTH = 0.213
THIGH_MASS = 1.152
THIGH_INERTIA = (0.0058, 0.0056, 0.0010)
CALF_LENGTH = 0.213
CALF_MASS = 0.154
CALF_INERTIA = (0.0011, 0.0011, 0.00003)
FOOT_RADIUS = 0.022
FOOT_MASS = 0.04

# Standing pose: the bodies are authored in it (joint ``ref``), so qpos0 is this pose.
STAND = {"hip": 0.0, "thigh": 0.9, "calf": -1.8}
RANGE = {"hip": (-1.0472, 1.0472), "thigh": (-1.5708, 3.4907), "calf": (-2.7227, -0.83776)}
FORCE_LIMIT = {"hip": 23.7, "thigh": 23.7, "calf": 45.43}
KP = 60.0  # position gain [N·m/rad]
KV = 2.0  # velocity gain [N·m·s/rad]
JOINT_DAMPING = 0.1  # [N·m·s/rad]
ARMATURE = 0.01  # reflected rotor inertia [kg·m²]

DROP_HEIGHT = 0.45  # initial trunk height [m]; standing height is about 0.30
TIMESTEP = 0.002  # [s]
FOOT_FRICTION = (0.8, 0.02, 0.01)
FOOT_SOLREF = (0.005, 1.0)
FOOT_SOLIMP = (0.95, 0.99, 0.001, 0.5, 2.0)
