"""Initial-state rules: the model at ``qpos0`` (or the chosen keyframe) after ``mj_forward``."""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.contacts import contact_dict, contact_table, deepest_per_pair


def self_collision_rule(model: mujoco.MjModel, data: mujoco.MjData) -> list[Finding]:
    """SELF_COLLISION_INIT: bodies of the same tree overlapping at the initial state.

    One finding per geom pair (the deepest of its contacts). Only real overlaps count: a
    contact with a penetration > 0 that MuJoCo makes a constraint (``exclude == 0``); a contact
    inside a margin that does not touch is none. ``data`` must hold the initial state after
    ``mj_forward``.
    """
    t = contact_table(model, data)
    root = np.append(model.body_rootid, 0)  # index -1 (a flex): the world
    body = np.append(model.geom_bodyid, -1)
    r1, r2 = root[body[t.geom1]], root[body[t.geom2]]
    hit = (t.geom1 >= 0) & (t.geom2 >= 0) & (r1 == r2) & (r1 != 0)
    hit &= (t.penetration > 0) & (t.exclude == 0)
    out = []
    for k in deepest_per_pair(t, np.flatnonzero(hit)):
        c = contact_dict(model, t, k)
        out.append(
            Finding(
                "SELF_COLLISION_INIT",
                "warning",
                f"geoms '{c['geom1']}' / '{c['geom2']}'",
                f"in contact at the initial pose (penetration {c['penetration'] * 1e3:.3g} mm)",
                "move the initial pose apart, or exclude the body pair (<exclude>)",
            )
        )
    return out
