"""Franka FR3, torque-driven and mesh-free, built with ``MjSpec`` (armature, damping, friction)."""

from __future__ import annotations

import mujoco

from mjscope.models.registry import register
from mjscope.models.robots import fr3_constants as C
from mjscope.models.robots.iiwa14 import (
    add_hinge,
    add_home_key,
    add_motors,
    add_visual_segment,
    new_arm_spec,
    set_inertial,
)


@register("fr3", "arm", "Franka FR3 (mesh-free, motor actuators, identified joint friction)")
def build() -> mujoco.MjSpec:
    """Build the torque-driven FR3 spec (1 ms step, zero gravity, site ``attachment_site``)."""
    spec = new_arm_spec(C.NAME)
    link0 = spec.worldbody.add_body()  # the Menagerie's massless "base" body is omitted
    link0.name = "fr3_link0"
    set_inertial(link0, *C.LINK0)
    add_visual_segment(link0, (0.0, 0.0, 0.333), 0.06)
    bodies = {"fr3_link0": link0}
    children = {row[1]: row[2] for row in C.LINKS}
    for i, (name, parent, pos, quat, rng, mass, ipos, iquat, inertia) in enumerate(C.LINKS):
        b = bodies[parent].add_body()
        b.name, b.pos, b.quat = name, list(pos), list(quat)
        set_inertial(b, mass, ipos, iquat, inertia)
        add_hinge(
            b, C.JOINT_NAMES[i], rng[0], rng[1], C.ARMATURE[i], C.DAMPING[i], C.FRICTIONLOSS[i]
        )
        add_visual_segment(b, children.get(name, C.ATTACHMENT_POS), 0.05 if i < 5 else 0.04)
        bodies[name] = b
    site = bodies[C.FLANGE_BODY].add_site()
    site.name, site.pos = C.ATTACHMENT_SITE, list(C.ATTACHMENT_POS)
    add_motors(spec, C.JOINT_NAMES, C.ACTUATOR_NAMES, C.TORQUE_LIMITS)
    add_home_key(spec, C.HOME)
    return spec
