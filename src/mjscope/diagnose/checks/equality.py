"""Equality rules: a closed chain or weld that comes apart during the rollout.

Reads the :class:`~mjscope.diagnose.probes.EqualityProbe` summary.
"""

from __future__ import annotations

import mujoco

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.rollout import RolloutResult

POS_FRACTION = 0.01  # of the model's extent (``stat.extent``) [1]
POS_FLOOR = 1e-3  # the position tolerance is never below this [m]
ROT_TOL = 0.05  # [rad], about 3°


def position_tolerance(model: mujoco.MjModel) -> float:
    """Largest accepted position violation of a connect/weld [m]: 1 % of the extent, ≥ 1 mm."""
    return max(POS_FLOOR, POS_FRACTION * float(model.stat.extent))


def equality_violation_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """EQUALITY_VIOLATION: an equality's violation exceeded the tolerance at some step.

    Position (connect, weld, tendon and slide couplings) [m]: above :func:`position_tolerance`;
    weld rotation and hinge couplings [rad]: above :data:`ROT_TOL`. A soft equality
    (large ``solref[0]``) lets the chain drift apart under load.
    """
    out = []
    for q in result.probes.get("equalities", []):
        tol = ROT_TOL if q["unit"] == "rad" else position_tolerance(model)
        pos_bad = q["max_position"] > tol
        rot_bad = q["max_rotation_rad"] > ROT_TOL
        if not (pos_bad or rot_bad):
            continue
        parts = []
        if pos_bad:
            parts.append(f"position {q['max_position']:.3g} {q['unit']} > {tol:.3g}")
        if rot_bad:
            parts.append(f"rotation {q['max_rotation_rad']:.3g} rad > {ROT_TOL:g}")
        out.append(
            Finding(
                "EQUALITY_VIOLATION",
                "warning",
                f"equality '{q['name']}' ({q['type']})",
                f"violated by {' and '.join(parts)} (worst at step {q['worst_step']}; "
                f"solref {q['solref']}): the constraint is too soft for the load",
                "lower the equality's solref[0] (≥ 2×timestep), raise solimp, or lower the "
                "timestep; check that the anchors coincide at qpos0",
            )
        )
    return out
