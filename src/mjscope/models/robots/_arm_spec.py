"""Spec helpers shared by the torque-driven arm builders (``iiwa14``, ``fr3``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType

import mujoco

_VISUAL_RGBA = (0.85, 0.55, 0.2, 1.0)


def new_arm_spec(name: str) -> mujoco.MjSpec:
    """An empty spec with the docking-loop options: 1 ms step, implicitfast, zero gravity.

    Args:
        name: Model name.

    Returns:
        The spec.
    """
    spec = mujoco.MjSpec()
    spec.modelname = name
    spec.option.timestep = 0.001
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.gravity = [0.0, 0.0, 0.0]
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    spec.compiler.degree = False  # joint ranges in radians
    return spec


def set_inertial(
    body: mujoco.MjsBody,
    mass: float,
    ipos: Sequence[float],
    iquat: Sequence[float],
    inertia: Sequence[float],
) -> None:
    """Explicit inertial: mass [kg], frame pos [m] and quat, principal moments [kg·m²]."""
    body.explicitinertial = True
    body.mass = mass
    body.ipos = list(ipos)
    body.iquat = list(iquat)
    body.inertia = list(inertia)


def add_visual_segment(
    body: mujoco.MjsBody,
    to: Sequence[float],
    radius: float = 0.04,
    rgba: Sequence[float] = _VISUAL_RGBA,
    group: int = 1,
    sphere_radius: float | None = None,
) -> None:
    """A massless, non-colliding capsule from the body origin to ``to`` [m] (or a sphere).

    Args:
        body: Body to add the geom to.
        to: Capsule end in the body frame [m]; a (near) zero vector gives a sphere.
        radius: Capsule radius [m].
        rgba: Colour.
        group: Geom group.
        sphere_radius: Radius of the sphere case [m] (default: ``radius``).
    """
    g = body.add_geom()
    g.contype = g.conaffinity = 0
    g.density = 0.0
    g.group = group
    g.rgba = list(rgba)
    if sum(abs(x) for x in to) < 1e-6:
        g.type = mujoco.mjtGeom.mjGEOM_SPHERE
        g.size = [radius if sphere_radius is None else sphere_radius, 0.0, 0.0]
    else:
        g.type = mujoco.mjtGeom.mjGEOM_CAPSULE
        g.fromto = [0.0, 0.0, 0.0, *to]
        g.size = [radius, 0.0, 0.0]


def add_hinge(
    body: mujoco.MjsBody,
    name: str,
    lo: float,
    hi: float,
    armature: float = 0.0,
    damping: float = 0.0,
    frictionloss: float = 0.0,
) -> None:
    """A z-axis hinge with range [rad], armature [kg·m²], damping [N·m·s/rad], friction [N·m]."""
    j = body.add_joint()
    j.name = name
    j.type = mujoco.mjtJoint.mjJNT_HINGE
    j.axis = [0.0, 0.0, 1.0]
    j.range = [lo, hi]
    j.limited = mujoco.mjtLimited.mjLIMITED_TRUE
    j.armature = armature
    j.damping = [damping, 0.0, 0.0]
    j.frictionloss = frictionloss


def add_motors(
    spec: mujoco.MjSpec, joints: Sequence[str], names: Sequence[str], limits: Sequence[float]
) -> None:
    """One ``motor`` actuator per joint, gear 1, control range ± the torque limit [N·m]."""
    for joint, name, lim in zip(joints, names, limits, strict=True):
        a = spec.add_actuator()
        a.name = name
        a.target = joint
        a.trntype = mujoco.mjtTrn.mjTRN_JOINT
        a.set_to_motor()
        a.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE
        a.ctrlrange = [-lim, lim]


def add_home_key(spec: mujoco.MjSpec, qpos: Sequence[float]) -> None:
    """Keyframe ``home``."""
    k = spec.add_key()
    k.name = "home"
    k.qpos = list(qpos)


HingeArgs = tuple[float, float, float, float, float]  # lo, hi [rad], armature, damping, friction


def add_serial_chain(
    spec: mujoco.MjSpec,
    root: mujoco.MjsBody,
    C: ModuleType,
    hinge_args: Callable[[int, object], HingeArgs],
) -> None:
    """Add the links of ``C.LINKS`` below ``root``, the flange site, motors and ``home`` key.

    Args:
        spec: The arm spec (from :func:`new_arm_spec`).
        root: The base body (already has its inertial).
        C: The robot's constants module (``LINKS``, ``JOINT_NAMES``, ``ATTACHMENT_POS``,
            ``FLANGE_BODY``, ``ATTACHMENT_SITE``, ``ACTUATOR_NAMES``, ``TORQUE_LIMITS``, ``HOME``).
        hinge_args: Joint index and the ``LINKS`` range entry → :data:`HingeArgs`.
    """
    bodies = {root.name: root}
    children = {row[1]: row[2] for row in C.LINKS}
    for i, (name, parent, pos, quat, rng, mass, ipos, iquat, inertia) in enumerate(C.LINKS):
        b = bodies[parent].add_body()
        b.name, b.pos, b.quat = name, list(pos), list(quat)
        set_inertial(b, mass, ipos, iquat, inertia)
        add_hinge(b, C.JOINT_NAMES[i], *hinge_args(i, rng))
        add_visual_segment(b, children.get(name, C.ATTACHMENT_POS), 0.05 if i < 5 else 0.04)
        bodies[name] = b
    site = bodies[C.FLANGE_BODY].add_site()
    site.name, site.pos = C.ATTACHMENT_SITE, list(C.ATTACHMENT_POS)
    add_motors(spec, C.JOINT_NAMES, C.ACTUATOR_NAMES, C.TORQUE_LIMITS)
    add_home_key(spec, C.HOME)
