"""Initial-state rules: the model at ``qpos0`` (or the chosen keyframe) after ``mj_forward``."""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.contacts import (
    NUMERICAL_ZERO,
    contact_dict,
    contact_table,
    deepest_per_pair,
)

ROBUST = 1.5  # an overlap past this multiple of the solimp width is a warning [1]


def self_collision_rule(model: mujoco.MjModel, data: mujoco.MjData) -> list[Finding]:
    """SELF_COLLISION_INIT: bodies of the same tree overlapping at the initial state.

    One finding per geom pair (the deepest of its contacts). Only real overlaps count: a
    contact that MuJoCo makes a constraint (``exclude == 0``) with a penetration above the
    numerical-zero floor (1 µm: a 1e-14 mm touch is round-off); a contact inside a margin that
    does not touch is none. An overlap within :data:`ROBUST`× the pair's solimp width (two
    closed gripper fingertips resting on each other) is an info; deeper, a warning. ``data``
    must hold the initial state after ``mj_forward``.
    """
    t = contact_table(model, data)
    root = np.append(model.body_rootid, 0)  # index -1 (a flex): the world
    body = np.append(model.geom_bodyid, -1)
    r1, r2 = root[body[t.geom1]], root[body[t.geom2]]
    hit = (t.geom1 >= 0) & (t.geom2 >= 0) & (r1 == r2) & (r1 != 0)
    hit &= (t.penetration > NUMERICAL_ZERO) & (t.exclude == 0)
    deep = t.penetration + t.margin > ROBUST * t.width
    out = []
    for k in deepest_per_pair(t, np.flatnonzero(hit)):
        c = contact_dict(model, t, k)
        pen = f"penetration {c['penetration'] * 1e3:.3g} mm"
        out.append(
            Finding(
                "SELF_COLLISION_INIT",
                "warning" if deep[k] else "info",
                f"geoms '{c['geom1']}' / '{c['geom2']}'",
                f"in contact at the initial pose ({pen}"
                + (
                    ")"
                    if deep[k]
                    else f", within {ROBUST:g}× the contact's solimp width "
                    f"{c['width'] * 1e3:.3g} mm: they rest on each other)"
                ),
                "move the initial pose apart, or exclude the body pair (<exclude>)",
            )
        )
    return out
