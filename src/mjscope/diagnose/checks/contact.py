"""Contact rules from the per-contact detail: sustained slip.

S1.13's "the gripper's normal force is large but the object slips".

Reads the per-pair summary of :class:`~mjscope.diagnose.probes.ContactDetailProbe`.
"""

from __future__ import annotations

from typing import Any

import mujoco

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.rollout import RolloutResult

SLIP_FRACTION = 0.5  # of a pair's samples in the second half of the rollout [1]
LOST_FRACTION = 0.8  # of a pair's samples, for a pair that slid until it let go [1]
MIN_LATE_SAMPLES = 5  # fewer samples than this in the second half: not sustained


def contact_slip_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """CONTACT_SLIP: a geom pair keeps sliding, or slid until it let go.

    Sliding: friction saturated (``|f_t| ≥ μ·f_n`` within 2 %) or frictionless (condim 1) with
    the surfaces moving tangentially. A landing or a grasp settling slides briefly; a pair
    that slides in most of its samples of the second half of the rollout is losing its hold,
    and one that slid in most of its samples until the contact was lost (still sliding at its
    last sample, well before the end) let go of the object.
    """
    out = []
    end = result.probes.get("contact_last_step", 0)
    every = result.probes.get("contact_sample_every", 1)
    for p in result.probes.get("contact_pairs", []):
        sustained = (
            p["late_samples"] >= MIN_LATE_SAMPLES and p["late_sliding_fraction"] >= SLIP_FRACTION
        )
        lost = (
            p["samples"] >= MIN_LATE_SAMPLES
            and p["sliding_fraction"] >= LOST_FRACTION
            and p["last_sliding"]
            and p["last_step"] < end - 2 * every
        )
        if sustained or lost:
            out.append(_slip(p, sustained))
    return out


def _slip(p: dict[str, Any], sustained: bool) -> Finding:
    mu, condim = p["friction"][0], p["condim"]
    if condim == 1:
        why = "condim 1 is frictionless: nothing resists the tangential load"
        fix = "use condim 3 (4 for cylinders or anything that may twist in the grasp)"
    else:
        why = f"friction saturated (|f_t| up to {p['max_ft_over_mufn']:.2f}·μ·f_n)"
        fix = (
            f"raise friction[0] (now {mu:g}); for cylinders/rotating objects try condim 4; "
            "check that the contact points lie on the object"
        )
    when = (
        f"sliding in {p['late_sliding_fraction']:.0%} of its samples in the second half of the "
        "rollout"
        if sustained
        else f"slid in {p['sliding_fraction']:.0%} of its samples until the contact was lost "
        f"(last at step {p['last_step']})"
    )
    return Finding(
        "CONTACT_SLIP",
        "warning",
        f"geoms '{p['geom1']}' / '{p['geom2']}'",
        f"{when} (normal force up to {p['max_normal_n']:.3g} N, μ={mu:g}, condim {condim}): {why}",
        fix,
    )
