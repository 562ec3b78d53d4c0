"""Franka FR3, torque-driven and mesh-free, built with ``MjSpec`` (armature, damping, friction)."""

from __future__ import annotations

import mujoco

from mjscope.models.registry import register
from mjscope.models.robots import fr3_constants as C
from mjscope.models.robots._arm_spec import (
    HingeArgs,
    add_serial_chain,
    add_visual_segment,
    new_arm_spec,
    set_inertial,
)


def _hinge(i: int, rng: object) -> HingeArgs:
    """Range [rad] with the identified armature, damping and friction loss of joint ``i``."""
    lo, hi = (float(x) for x in rng)  # type: ignore[attr-defined]
    return lo, hi, C.ARMATURE[i], C.DAMPING[i], C.FRICTIONLOSS[i]


@register("fr3", "arm", "Franka FR3 (mesh-free, motor actuators, identified joint friction)")
def build() -> mujoco.MjSpec:
    """Build the torque-driven FR3 spec (1 ms step, zero gravity, site ``attachment_site``)."""
    spec = new_arm_spec(C.NAME)
    link0 = spec.worldbody.add_body()  # the Menagerie's massless "base" body is omitted
    link0.name = "fr3_link0"
    set_inertial(link0, *C.LINK0)
    add_visual_segment(link0, (0.0, 0.0, 0.333), 0.06)
    add_serial_chain(spec, link0, C, _hinge)
    return spec
