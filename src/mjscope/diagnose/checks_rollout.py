"""Lint rules that need the rollout: resting penetration, condim 6, divergence, solver cap."""

from __future__ import annotations

from typing import Any

import mujoco

from mjscope.diagnose.checks import Finding
from mjscope.diagnose.contacts import current_contacts
from mjscope.diagnose.rollout import RolloutResult

PENETRATION_FRACTION = 0.01  # of the smaller geom's size, at rest
DEEP_FRACTION = 0.5  # of the smaller geom's size, at any time
CONDIM6_FRACTION = 0.5


def rollout_checks(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """All rollout rules."""
    out = divergence_rule(result)
    if result.divergence is None:
        out += penetration_rule(model, result.final_data)
    out += deep_penetration_rule(result.probes)
    out += condim_rule(result.probes)
    out += solver_rule(result.probes)
    out += warning_rule(result.warnings)
    return out


def divergence_rule(result: RolloutResult) -> list[Finding]:
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


def penetration_rule(model: mujoco.MjModel, data: mujoco.MjData) -> list[Finding]:
    """PENETRATION_REST: final-state penetration above 1 % of the smaller geom's size."""
    worst: dict[tuple[str, str], dict[str, Any]] = {}
    for c in current_contacts(model, data):
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


def deep_penetration_rule(probes: dict[str, Any]) -> list[Finding]:
    """PENETRATION_DEEP: some step overlapped a geom pair by half the smaller geom's size."""
    out = []
    for p in probes.get("worst_pairs", []):
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


def condim_rule(probes: dict[str, Any]) -> list[Finding]:
    """CONDIM6_MAJORITY: most sampled contacts have condim 6."""
    counts = {int(k): v for k, v in probes.get("condim_counts", {}).items()}
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


def solver_rule(probes: dict[str, Any]) -> list[Finding]:
    """SOLVER_ITER_CAP: the constraint solver used all its iterations."""
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


def warning_rule(warnings: dict[str, int]) -> list[Finding]:
    """MUJOCO_WARNING: any other warning counter that is non-zero."""
    fixes = {
        "contactfull": "raise nconmax / memory, or reduce collision geoms",
        "cnstrfull": "raise njmax / memory",
        "inertia": "fix non-positive-definite inertia (add armature, check masses)",
        "badctrl": "send finite controls",
    }
    return [
        Finding(
            "MUJOCO_WARNING",
            "warning",
            f"mjWARN_{k.upper()}",
            f"MuJoCo raised {k} {v} time(s)",
            fixes[k],
        )
        for k, v in warnings.items()
        if v and k in fixes
    ]
