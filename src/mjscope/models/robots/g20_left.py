"""Bundled ``g20_left``: the LinkerHand G20 left hand (L20 v9 joint names and tree).

Built with ``MjSpec`` from :mod:`g20_left_constants`: 16 active + 5 mimic revolute joints,
capsule links, the palm fixed to the world at the seed's mount pose. Collision follows the
seed's selective colliders: only the palm box and the five fingertips collide unless
``collide_all`` is set. Position actuators on the active joints serve the PD mode; mimic
coupling is added as joint equality constraints when ``mimic_equality`` is set.
"""

from __future__ import annotations

from collections.abc import Mapping

import mujoco
import numpy as np

from mjscope.models.registry import register
from mjscope.models.robots import g20_left_constants as c
from mjscope.models.scene import add_camera, add_floor, add_light, set_offscreen_size

_TIP_BODIES = ("thumb_distal", *(f"{f}_distal" for f in c.FINGERS))


def rpy_to_quat(rpy: tuple[float, float, float]) -> list[float]:
    """URDF roll/pitch/yaw [rad] → MuJoCo quaternion ``(w, x, y, z)``."""
    r, p, y = rpy
    cr, sr = np.cos(r / 2), np.sin(r / 2)
    cp, sp = np.cos(p / 2), np.sin(p / 2)
    cy, sy = np.cos(y / 2), np.sin(y / 2)
    return [
        cr * cp * cy + sr * sp * sy,
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
    ]


def _link_end(child: str) -> tuple[float, float, float]:
    """Segment end of a link in its own frame [m]: the next joint origin, or the tip."""
    for j in c.JOINTS:
        if j.parent == child:
            return j.pos
    return c.THUMB_TIP if child.startswith("thumb") else c.DISTAL_TIP


@register("g20_left", "hand", "LinkerHand G20 left hand (L20 v9 names, 16 active + 5 mimic)")
def build(
    collide_all: bool = False,
    actuators: bool = True,
    mimic_equality: bool = True,
    mimic_ratios: Mapping[str, float] | None = None,
    scene: bool = True,
) -> mujoco.MjSpec:
    """Build the G20 left hand spec.

    Args:
        collide_all: Every link collides (default: palm and fingertips only, as in the seed).
        actuators: Add position actuators on the 16 active joints (PD mode).
        mimic_equality: Couple each mimic joint to its driver with a joint equality.
        mimic_ratios: Mimic joint → ratio overrides (default 1.02 thumb, 0.89 fingers).
        scene: Add a floor, a light and the ``compare`` camera.

    Returns:
        The uncompiled spec.
    """
    spec = mujoco.MjSpec()
    spec.modelname = "g20_left"
    spec.compiler.degree = False  # ranges below are in radians
    spec.option.timestep = 0.002
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    palm = spec.worldbody.add_body(name=c.ROOT_BODY, pos=list(c.MOUNT_POS))
    _add_palm(palm, collide_all)
    bodies = {c.ROOT_BODY: palm}
    for j in c.JOINTS:
        bodies[j.child] = _add_link(bodies[j.parent], j, collide_all)
    if actuators:
        _add_actuators(spec)
    if mimic_equality:
        _add_mimic_equalities(spec, mimic_ratios or {})
    if scene:
        add_floor(spec)
        add_light(spec, pos=(0.3, 0.45, 1.6))
        target = np.add(c.MOUNT_POS, (0.04, -0.04, 0.12))  # the seed's COMPARE_LOOKAT
        elev = np.deg2rad(12.0)
        eye = target + 0.46 * np.array([np.cos(elev), 0.0, np.sin(elev)])  # whole hand in view
        add_camera(spec, "compare", pos=eye.tolist(), target=target.tolist())
        set_offscreen_size(spec, 1280, 960)
    return spec


def _collide(geom: mujoco.MjsGeom, on: bool) -> None:
    geom.contype = 1 if on else 0
    geom.conaffinity = 1 if on else 0


def _add_palm(palm: mujoco.MjsBody, collide_all: bool) -> None:
    del collide_all  # the palm always collides
    g = palm.add_geom(name="palm", type=mujoco.mjtGeom.mjGEOM_BOX)
    g.pos, g.size = list(c.PALM_BOX_POS), list(c.PALM_BOX_HALF)
    g.mass = c.MASS[c.ROOT_BODY]
    g.rgba = [0.75, 0.75, 0.78, 1.0]
    _collide(g, True)


def _add_link(parent: mujoco.MjsBody, j: c.JointDef, collide_all: bool) -> mujoco.MjsBody:
    body = parent.add_body(name=j.child, pos=list(j.pos), quat=rpy_to_quat(j.rpy))
    jnt = body.add_joint(name=j.name, type=mujoco.mjtJoint.mjJNT_HINGE, axis=list(j.axis))
    jnt.range = [j.lower, j.upper]
    jnt.limited = mujoco.mjtLimited.mjLIMITED_TRUE
    jnt.armature = 0.0005
    jnt.damping = [0.01, 0.0, 0.0]
    end = np.array(_link_end(j.child), float)
    radius = c.THUMB_RADIUS if j.child.startswith("thumb") else c.FINGER_RADIUS
    g = body.add_geom(name=f"{j.child}_geom", type=mujoco.mjtGeom.mjGEOM_CAPSULE)
    if np.linalg.norm(end) < 2 * radius:  # short link: a sphere at its middle
        g.type = mujoco.mjtGeom.mjGEOM_SPHERE
        g.size = [radius, 0, 0]
        g.pos = list(end / 2)
    else:
        g.fromto = [0.0, 0.0, 0.0, *end]
        g.size = [radius, 0, 0]
    g.mass = c.MASS[j.child]
    tip = j.child in _TIP_BODIES
    g.rgba = [0.9, 0.55, 0.35, 1.0] if tip else [0.35, 0.4, 0.5, 1.0]
    _collide(g, collide_all or tip)
    return body


def _add_actuators(spec: mujoco.MjSpec) -> None:
    for name in c.ACTIVE_JOINT_NAMES:
        kp, kv, effort = c.THUMB_GAINS if name.startswith("thumb") else c.FINGER_GAINS
        a = spec.add_actuator(name=name, target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT)
        a.set_to_position(kp=kp)  # the damping kv is joint damping (implicit, never clamped)
        spec.joint(name).damping = [kv, 0.0, 0.0]
        a.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
        a.forcerange = [-effort, effort]
        a.ctrllimited = mujoco.mjtLimited.mjLIMITED_FALSE


def _add_mimic_equalities(spec: mujoco.MjSpec, ratios: Mapping[str, float]) -> None:
    for mimic, (driver, default) in c.MIMIC.items():
        add_joint_coupling(spec, mimic, driver, float(ratios.get(mimic, default)))


def add_joint_coupling(spec: mujoco.MjSpec, mimic: str, driver: str, ratio: float) -> None:
    """Add ``mimic = ratio · driver`` as a joint equality constraint.

    Args:
        spec: Spec to edit.
        mimic: Coupled joint.
        driver: Driving joint.
        ratio: Multiplier.
    """
    eq = spec.add_equality(name=f"mimic_{mimic}", type=mujoco.mjtEq.mjEQ_JOINT)
    eq.objtype = mujoco.mjtObj.mjOBJ_JOINT
    eq.name1, eq.name2 = mimic, driver
    eq.data = [0.0, ratio, 0.0, 0.0, 0.0, *([0.0] * (len(eq.data) - 5))]
