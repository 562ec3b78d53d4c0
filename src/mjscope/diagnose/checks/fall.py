"""A floating base that fell: what the rollout findings then describe is the fall.

``--ctrl hold`` holds each joint of a legged robot on its start pose; it does not balance the
robot, and a biped or a robot standing on a keyframe that is not statically stable tips over.
Its feet then slide, its servos saturate and buzz against the floor: true of the run, but
about the fall, not the model file. When a floating base (a free body with jointed bodies
below it) ends below :data:`FALL_FRACTION` of its start height, those findings
(:data:`FALL_EXPLAINED`) become info and say so.
"""

from __future__ import annotations

from dataclasses import replace

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.rollout import RolloutResult

FALL_FRACTION = 0.5  # a floating base ending below this fraction of its start height fell [1]
FALL_EXPLAINED = ("CONTACT_SLIP", "ACTUATOR_SATURATED", "ACTUATOR_CHATTER")


def fallen(model: mujoco.MjModel, result: RolloutResult) -> str:
    """What fell: a floating base ending below :data:`FALL_FRACTION` of its start height.

    A floating base is a free body with jointed bodies below it (a legged robot); a free
    object (a box sliding down a ramp, a dropped cylinder) is not one.

    Returns:
        ``"free body 'pelvis' fell from 0.88 to 0.1 m"``, or ``""`` when nothing fell.
    """
    for b in result.probes.get("free_bodies", []):
        bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, b["name"])
        jointed = model.body_rootid[model.jnt_bodyid] == model.body_rootid[max(bid, 0)]
        if bid < 0 or int(np.count_nonzero(jointed)) < 2:
            continue
        z0, z1 = b["z0_m"], b["z_final_m"]
        if z0 > 0 and z1 < FALL_FRACTION * z0:
            return f"free body '{b['name']}' fell from {z0:.3g} to {z1:.3g} m"
    return ""


def explain_fall(
    model: mujoco.MjModel, result: RolloutResult, findings: list[Finding]
) -> list[Finding]:
    """``findings`` with those a fall explains turned into info saying so."""
    fell = fallen(model, result)
    if not fell:
        return findings
    note = f"; while {fell} (a joint-space hold does not balance a floating base)"
    return [
        replace(f, severity="info", message=f.message + note)
        if f.code in FALL_EXPLAINED and f.severity != "info"
        else f
        for f in findings
    ]
