"""Initial-state rules: what is already wrong at the reset pose, before any step."""

from __future__ import annotations

from typing import Any

import mujoco

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.contacts import current_contacts


def self_collision_rule(model: mujoco.MjModel, data: mujoco.MjData) -> list[Finding]:
    """SELF_COLLISION_INIT: contacts between bodies of the same tree at the initial state.

    One finding per geom pair (the deepest of its contacts). ``data`` must hold the initial
    state after ``mj_forward``.
    """
    root = model.body_rootid
    worst: dict[tuple[int, int], dict[str, Any]] = {}
    for c in current_contacts(model, data):
        g1, g2 = c["geom_ids"]
        if min(g1, g2) < 0:
            continue
        b1, b2 = model.geom_bodyid[g1], model.geom_bodyid[g2]
        same_tree = root[b1] == root[b2] and root[b1] != 0
        if (
            same_tree
            and c["penetration"] > worst.get((g1, g2), {"penetration": -1.0})["penetration"]
        ):
            worst[(g1, g2)] = c
    return [
        Finding(
            "SELF_COLLISION_INIT",
            "warning",
            f"geoms '{c['geom1']}' / '{c['geom2']}'",
            f"in contact at the initial pose (penetration {c['penetration'] * 1e3:.3g} mm)",
            "move the initial pose apart, or exclude the body pair (<exclude>)",
        )
        for c in worst.values()
    ]
