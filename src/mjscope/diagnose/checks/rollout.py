"""Rollout rules: divergence, penetration at rest and at any time, condim 6, solver cap, warnings.

Every rule here is a :data:`~mjscope.diagnose.checks.base.RolloutRule`: it takes the model and
the finished :class:`~mjscope.diagnose.rollout.RolloutResult`.
"""

from __future__ import annotations

from typing import Any

import mujoco

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.contacts import current_contacts
from mjscope.diagnose.rollout import RolloutResult

PENETRATION_FRACTION = 0.01  # of the smaller geom's size, at rest
DEEP_FRACTION = 0.5  # of the smaller geom's size, at any time
CONDIM6_FRACTION = 0.5
_WARNING_FIXES = {
    "contactfull": "raise nconmax / memory, or reduce collision geoms",
    "cnstrfull": "raise njmax / memory",
    "inertia": "fix non-positive-definite inertia (add armature, check masses)",
    "badctrl": "send finite controls",
}


def divergence_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """DIVERGED: the rollout stopped on BADQACC/BADQVEL/BADQPOS."""
    dv = result.divergence
    if dv is None:
        return []
    return [
        Finding(
            "DIVERGED",
            "error",
            f"joint '{dv['joint']}'",
            f"{dv['kind']} at t={dv['time']:.6g} s ({dv['where']}): NaN, Inf or |x|>1e10; "
            "the rollout stopped there",
            "check solref vs timestep, add damping/armature, lower gains or the timestep",
        )
    ]


def rest_penetration_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """PENETRATION_REST: final-state penetration above 1 % of the smaller geom's size.

    Skipped when the rollout diverged: its final state is not a resting one.
    """
    if result.divergence is not None:
        return []
    worst: dict[tuple[str, str], dict[str, Any]] = {}
    for c in current_contacts(model, result.final_data):
        if c["penetration"] > PENETRATION_FRACTION * c["size"]:
            key = (c["geom1"], c["geom2"])
            if key not in worst or c["penetration"] > worst[key]["penetration"]:
                worst[key] = c
    return [
        Finding(
            "PENETRATION_REST",
            "warning",
            f"geoms '{c['geom1']}' / '{c['geom2']}'",
            f"penetration {c['penetration'] * 1e3:.3g} mm at the end of the rollout > "
            f"{PENETRATION_FRACTION * c['size'] * 1e3:.3g} mm (1% of the smaller geom's size "
            f"{c['size'] * 1e3:.3g} mm)",
            "stiffen the contact: smaller solref[0] (≥ 2×timestep) or solimp closer to 1",
        )
        for c in worst.values()
    ]


def deep_penetration_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """PENETRATION_DEEP: some step overlapped a geom pair by half the smaller geom's size."""
    out = []
    for p in result.probes.get("worst_pairs", []):
        size = p["smaller_geom_size_m"]
        if p["max_penetration_m"] > DEEP_FRACTION * size:
            out.append(
                Finding(
                    "PENETRATION_DEEP",
                    "warning",
                    f"geoms '{p['geom1']}' / '{p['geom2']}'",
                    f"penetration reached {p['max_penetration_m'] * 1e3:.3g} mm during the rollout "
                    f"(≥ half the smaller geom's size {size * 1e3:.3g} mm): it may pass through",
                    "stiffen the contact (smaller solref[0], solimp closer to 1) or lower timestep",
                )
            )
    return out


def condim_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """CONDIM6_MAJORITY: most sampled contacts have condim 6."""
    counts = {int(k): v for k, v in result.probes.get("condim_counts", {}).items()}
    total = sum(counts.values())
    if not total or counts.get(6, 0) / total <= CONDIM6_FRACTION:
        return []
    return [
        Finding(
            "CONDIM6_MAJORITY",
            "warning",
            "contacts",
            f"{counts[6] / total:.0%} of sampled contacts have condim 6 (rolling friction): "
            "the solver does twice the work of condim 3",
            "use condim 3 and raise to 4/6 only where torsional/rolling friction matters",
        )
    ]


def solver_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """SOLVER_ITER_CAP: the constraint solver used all its iterations."""
    probes = result.probes
    n = probes.get("steps_at_cap", 0)
    if not n:
        return []
    return [
        Finding(
            "SOLVER_ITER_CAP",
            "warning",
            "option iterations",
            f"solver hit its cap of {probes['iterations_cap']} iterations on {n} steps "
            f"(first at step {probes['first_step_at_cap']}): forces are not converged",
            "raise option iterations, use the newton solver, or soften conflicting constraints",
        )
    ]


def warning_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """MUJOCO_WARNING: any other warning counter that is non-zero."""
    return [
        Finding(
            "MUJOCO_WARNING",
            "warning",
            f"mjWARN_{k.upper()}",
            f"MuJoCo raised {k} {v} time(s)",
            _WARNING_FIXES[k],
        )
        for k, v in result.warnings.items()
        if v and k in _WARNING_FIXES
    ]
