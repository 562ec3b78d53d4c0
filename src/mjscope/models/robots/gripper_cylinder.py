"""Two-finger parallel gripper holding a cylinder under gravity (the seed's exercise 6, S1.11).

The fingers slide along y under position actuators. Each finger's pad is authored touching the
cylinder (joint ``ref`` = ``CONTACT_Q``), so ``ctrl = 0`` (the default of ``--ctrl zero``)
squeezes the cylinder by ``CONTACT_Q`` of travel. The contact dimensionality of pads and cylinder
is a builder option (``condim`` 1, 3, 4 or 6): with 1 (no friction) the cylinder slides out.
"""

from __future__ import annotations

import mujoco

from mjscope.exceptions import ConfigError
from mjscope.models.registry import register
from mjscope.models.scene import add_floor, add_light

CYLINDER_RADIUS = 0.02  # [m]
CYLINDER_HALF_HEIGHT = 0.05  # [m]
CYLINDER_MASS = 0.1  # [kg]
CYLINDER_Z = 0.15  # centre height [m]
PAD_HALF = (0.02, 0.015, 0.03)  # pad box half-sizes [m]
CONTACT_Q = 0.005  # finger travel from "pad touches the cylinder" to ctrl = 0 [m]
OPEN_Q = 0.04  # fully open [m]
KP = 2000.0  # finger position gain [N/m]
KV = 20.0  # finger velocity gain [N·s/m]
GRIP_FORCE_LIMIT = 20.0  # [N]
FINGER_MASS = 0.05  # [kg]
FINGER_DAMPING = 5.0  # [N·s/m]
FINGER_ARMATURE = 0.01  # [kg]
PAD_FRICTION = (1.0, 0.005, 0.0001)
CONTACT_SOLREF = (0.004, 1.0)
CONTACT_SOLIMP = (0.97, 0.995, 0.001, 0.5, 2.0)
CONDIMS = (1, 3, 4, 6)
FINGERS = ("left", "right")


def _finger(spec: mujoco.MjSpec, palm: mujoco.MjsBody, side: str, condim: int) -> None:
    sign = 1.0 if side == "left" else -1.0
    y = sign * (CYLINDER_RADIUS + PAD_HALF[1])
    finger = palm.add_body(name=f"{side}_finger", pos=[0.0, y, 0.0])
    finger.mass = FINGER_MASS
    finger.ipos = [0.0, 0.0, 0.0]
    finger.inertia = [1e-5, 1e-5, 1e-5]
    finger.explicitinertial = True
    j = finger.add_joint(name=f"{side}_slide", type=mujoco.mjtJoint.mjJNT_SLIDE)
    j.axis = [0.0, sign, 0.0]
    j.ref = CONTACT_Q
    j.range = [-0.01, OPEN_Q]
    j.limited = mujoco.mjtLimited.mjLIMITED_TRUE
    j.damping = [FINGER_DAMPING, 0.0, 0.0]
    j.armature = FINGER_ARMATURE
    pad = finger.add_geom(name=f"{side}_pad", type=mujoco.mjtGeom.mjGEOM_BOX, size=list(PAD_HALF))
    pad.density = 0.0
    _contact_params(pad, condim)
    pad.priority = 1
    a = spec.add_actuator(name=f"{side}_finger", target=f"{side}_slide")
    a.trntype = mujoco.mjtTrn.mjTRN_JOINT
    a.set_to_position(kp=KP, kv=KV)
    a.ctrlrange = [0.0, OPEN_Q]
    a.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE
    a.forcerange = [-GRIP_FORCE_LIMIT, GRIP_FORCE_LIMIT]
    a.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE


def _contact_params(geom: mujoco.MjsGeom, condim: int) -> None:
    geom.condim = condim
    geom.friction = list(PAD_FRICTION)
    geom.solref = list(CONTACT_SOLREF)
    geom.solimp = list(CONTACT_SOLIMP)


@register(
    "gripper_cylinder", "gripper", "two-finger slide gripper holding a cylinder; condim 1/3/4/6"
)
def build(condim: int = 4) -> mujoco.MjSpec:
    """Build the gripper scene.

    Args:
        condim: Contact dimensionality of the pads and the cylinder (1, 3, 4 or 6).

    Returns:
        The uncompiled spec (floor and light included).

    Raises:
        ConfigError: ``condim`` is not one of 1, 3, 4, 6.
    """
    if condim not in CONDIMS:
        raise ConfigError(f"gripper_cylinder: condim {condim!r} is not one of {CONDIMS}")
    spec = mujoco.MjSpec()
    spec.modelname = "gripper_cylinder"
    spec.compiler.degree = False
    # Elliptic cone with a high impratio: friction stiff enough that the held cylinder does not
    # creep (pyramidal, impratio 1: about 1 mm/s of slip under gravity).
    spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    spec.option.impratio = 100.0
    add_floor(spec)
    add_light(spec)
    palm = spec.worldbody.add_body(name="palm", pos=[0.0, 0.0, CYLINDER_Z])
    frame = palm.add_geom(name="palm_bar", type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.02, 0.06, 0.01])
    frame.pos = [0.0, 0.0, PAD_HALF[2] + 0.02]
    frame.contype = frame.conaffinity = 0
    for side in FINGERS:
        _finger(spec, palm, side, condim)
    obj = spec.worldbody.add_body(name="cylinder", pos=[0.0, 0.0, CYLINDER_Z])
    obj.add_freejoint(name="cylinder_free")
    g = obj.add_geom(name="cylinder", type=mujoco.mjtGeom.mjGEOM_CYLINDER)
    g.size = [CYLINDER_RADIUS, CYLINDER_HALF_HEIGHT, 0.0]
    g.mass = CYLINDER_MASS
    _contact_params(g, condim)
    g.rgba = [0.9, 0.5, 0.1, 1.0]
    return spec
