"""Rollout rules: divergence, penetration at rest and at any time, condim 6, solver cap, warnings.

Every rule here is a :data:`~mjscope.diagnose.checks.base.RolloutRule`: it takes the model and
the finished :class:`~mjscope.diagnose.rollout.RolloutResult`.
"""

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
from mjscope.diagnose.probes.contacts import ROLLING_FRACTION
from mjscope.diagnose.rollout import RolloutResult

PENETRATION_FRACTION = 0.01  # of the smaller geom's size, at rest
ROBUST = 1.5  # a penetration counts only past this multiple of its allowance [1]
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
    """PENETRATION_REST: final-state penetration clearly beyond what the contact allows.

    The pair's own allowance is the larger of 1 % of the smaller geom's size and the
    contact's solimp width (the depth over which MuJoCo ramps its impedance up: a soft foot
    with ``solimp="0.015 1 0.031"`` is meant to sink a few millimetres, MuJoCo's default
    contact about a millimetre at most), measured from the contact's margin surface as
    MuJoCo does (``dist − margin``). It fires only past :data:`ROBUST`× that allowance, so a
    foot resting at its design depth does not flip between runs. Skipped when the rollout
    diverged: its final state is not a resting one.
    """
    if result.divergence is not None:
        return []
    t = contact_table(model, result.final_data)
    allowed = ROBUST * np.maximum(PENETRATION_FRACTION * t.size, t.width)
    depth = t.penetration + t.margin  # [m], from the margin surface
    hit = (depth > allowed) & (t.penetration > NUMERICAL_ZERO) & (t.exclude == 0)
    out = []
    for k in deepest_per_pair(t, np.flatnonzero(hit)):
        c = contact_dict(model, t, k)
        out.append(
            Finding(
                "PENETRATION_REST",
                "warning",
                f"geoms '{c['geom1']}' / '{c['geom2']}'",
                f"penetration {c['penetration'] * 1e3:.3g} mm at the end of the rollout > "
                f"{float(allowed[k]) * 1e3:.3g} mm ({ROBUST:g}× the larger of 1% of the smaller "
                f"geom's size {c['size'] * 1e3:.3g} mm and the contact's solimp width "
                f"{c['width'] * 1e3:.3g} mm)",
                "stiffen the contact: smaller solref[0] (≥ 2×timestep) or solimp closer to 1",
            )
        )
    return out


def deep_penetration_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """PENETRATION_DEEP: a geom pair overlapped past the smaller geom's size at some step.

    The smaller geom's size (a sphere's radius, a box's smallest half-extent) is where its
    centre crosses the other surface: past it a contact can flip its normal and let go. A
    landing within that (a 10 g sphere dropped 4 cm sinks a few millimetres into MuJoCo's
    default contact) is what soft contacts do; so is sinking within :data:`ROBUST`× the
    pair's solimp width when the contact is made that soft (a Menagerie quadruped's rubber
    foot).
    """
    out = []
    for p in result.probes.get("worst_pairs", []):
        size = p["smaller_geom_size_m"]
        width = p.get("solimp_width_m", 0.0)
        allowed = max(size, ROBUST * width, NUMERICAL_ZERO)
        if p["max_penetration_m"] > allowed:
            out.append(
                Finding(
                    "PENETRATION_DEEP",
                    "warning",
                    f"geoms '{p['geom1']}' / '{p['geom2']}'",
                    f"penetration reached {p['max_penetration_m'] * 1e3:.3g} mm during the rollout "
                    f"(> {allowed * 1e3:.3g} mm: the smaller geom's size {size * 1e3:.3g} mm, or "
                    f"{ROBUST:g}× the contact's solimp width {width * 1e3:.3g} mm): it may pass "
                    "through",
                    "stiffen the contact (smaller solref[0], solimp closer to 1) or lower timestep",
                )
            )
    return out


def condim_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """CONDIM6_MAJORITY: most sampled contacts have condim 6 for a negligible rolling friction.

    A condim-6 contact whose rolling-friction coefficient (a lever arm [m]) is below 1 % of the
    smaller geom's size (MuJoCo's default 1e-4 m on anything bigger than a centimetre) costs
    the solver twice the work of condim 3 for no effect; rolling friction set to matter (a
    quadruped's rubber feet, ``friction="0.8 0.02 0.01"`` on a 2 cm foot) is a choice, not a
    finding.
    """
    counts = {int(k): v for k, v in result.probes.get("condim_counts", {}).items()}
    total = sum(counts.values())
    wasted = int(result.probes.get("condim6_negligible_rolling", counts.get(6, 0)))
    if not total or wasted / total <= CONDIM6_FRACTION:
        return []
    return [
        Finding(
            "CONDIM6_MAJORITY",
            "warning",
            "contacts",
            f"{wasted / total:.0%} of sampled contacts have condim 6 (rolling friction) with a "
            f"rolling-friction coefficient below {ROLLING_FRACTION:.0%} of the smaller geom's "
            "size: the solver does twice the work of condim 3 for a negligible effect",
            "use condim 3 and raise to 4/6 only where torsional/rolling friction matters",
        )
    ]


def solver_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """SOLVER_ITER_CAP: the solver used all its iterations *and* the constraint error grew.

    A model that sets few iterations on purpose (an MJX scene with ``iterations="1"``) hits
    the cap every step; that is a warning only when the constraints it leaves unconverged
    drift: the deepest penetration or equality violation over the last third of the rollout
    above :data:`GROWTH` times its level over the first third (and above the numerical-zero
    floor). Otherwise an info says the cap is hit with a steady error.
    """
    probes = result.probes
    n = probes.get("steps_at_cap", 0)
    if not n:
        return []
    growth = constraint_growth(result)
    cap = probes["iterations_cap"]
    where = f"on {n} steps (first at step {probes['first_step_at_cap']})"
    if growth is None:
        return [
            Finding(
                "SOLVER_ITER_CAP",
                "info",
                "option iterations",
                f"solver hit its cap of {cap} iterations {where}, but the constraint error "
                "stayed steady (penetration, equality violation): few iterations look intended",
                "nothing to do unless forces must be accurate; then raise option iterations",
            )
        ]
    col, early, late = growth
    return [
        Finding(
            "SOLVER_ITER_CAP",
            "warning",
            "option iterations",
            f"solver hit its cap of {cap} iterations {where} and {col} grew from "
            f"{early:.3g} to {late:.3g} (first to last third): forces are not converged",
            "raise option iterations, use the newton solver, or soften conflicting constraints",
        )
    ]


GROWTH = 2.0  # late/early constraint error ratio that counts as growing [1]
_ERROR_COLUMNS = ("pen_max", "eq_pos_max")


def constraint_growth(result: RolloutResult) -> tuple[str, float, float] | None:
    """(column, early level, late level) of a constraint error that grew, or ``None``.

    Levels are the median of the first third of the decimated rows and the maximum of the
    last third; a growth counts above :data:`GROWTH`× and :data:`NUMERICAL_ZERO`.
    """
    rows = result.preview
    names = [h.split(" [")[0] for h in result.header]
    if rows.shape[0] < 6:
        return None
    third = rows.shape[0] // 3
    for col in _ERROR_COLUMNS:
        if col not in names:
            continue
        v = rows[:, names.index(col)]
        early, late = float(np.median(v[:third])), float(np.max(v[-third:]))
        if late > NUMERICAL_ZERO and late > GROWTH * max(early, NUMERICAL_ZERO):
            return col, early, late
    return None


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
