"""KUKA LBR iiwa 14, torque-driven and mesh-free, built with ``MjSpec``."""

from __future__ import annotations

import mujoco

from mjscope.models.registry import register
from mjscope.models.robots import iiwa14_constants as C
from mjscope.models.robots._arm_spec import (
    HingeArgs,
    add_serial_chain,
    add_visual_segment,
    new_arm_spec,
    set_inertial,
)


def _hinge(i: int, rng: object) -> HingeArgs:
    """Symmetric range ± ``rng`` [rad], no armature, damping or friction (regression anchors)."""
    r = float(rng)  # type: ignore[arg-type]
    return -r, r, 0.0, 0.0, 0.0


@register("iiwa14", "arm", "KUKA LBR iiwa 14 (mesh-free, motor actuators, zero joint friction)")
def build() -> mujoco.MjSpec:
    """Build the torque-driven iiwa14 spec (1 ms step, zero gravity, site ``attachment_site``)."""
    spec = new_arm_spec(C.NAME)
    base = spec.worldbody.add_body()
    base.name = "base"
    set_inertial(base, *C.BASE_INERTIAL)
    add_visual_segment(base, (0.0, 0.0, 0.1575), 0.06)
    add_serial_chain(spec, base, C, _hinge)
    return spec
