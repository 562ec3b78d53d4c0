"""How the actuators were used in the rollout: saturated at their force limit, or chattering.

From the counts of :class:`~mjscope.diagnose.probes.ActuatorProbe`:

- ACTUATOR_SATURATED: the force sat at its limit (``forcerange``, or a motor's
  ``gain × ctrlrange``) on more than :data:`SATURATED_FRACTION` of the steps: the actuator
  is too weak for what it is asked (or the limit is in the wrong unit).
- ACTUATOR_CHATTER: the force changed sign (at more than a tenth of its limit) more than
  :data:`CHATTER_PER_STEP` times per step, at least :data:`MIN_FLIPS` times: a servo too stiff
  for the timestep, or a controller fighting a constraint, buzzing back and forth.

Actuators driven by ``--ctrl noise`` are left out: a random control saturates and flips by
itself.
"""

from __future__ import annotations

import mujoco

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.names import name_of
from mjscope.diagnose.rollout import RolloutResult

SATURATED_FRACTION = 0.5  # of the steps [1]
CHATTER_PER_STEP = 0.2  # sign flips per step [1]
MIN_FLIPS = 20


def actuator_use_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """ACTUATOR_SATURATED and ACTUATOR_CHATTER, per actuator."""
    p = result.probes
    frac, flips, steps = (
        p.get("actuator_at_limit_fraction"),
        p.get("actuator_force_flips"),
        p.get("actuator_steps", 0),
    )
    if not frac or not flips or not steps:
        return []
    h = float(model.opt.timestep)
    kinds = list(p.get("ctrl_used", {}).get("per_actuator", {}).values())
    out = []
    for a in range(model.nu):
        if a < len(kinds) and kinds[a] == "noise":
            continue  # a random control saturates and flips by itself
        label = f"actuator '{name_of(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a, 'actuator')}'"
        if frac[a] > SATURATED_FRACTION:
            out.append(
                Finding(
                    "ACTUATOR_SATURATED",
                    "warning",
                    label,
                    f"its force sat at its limit on {frac[a]:.0%} of the {steps} steps: it "
                    "cannot give what the control asks",
                    "raise forcerange (or gear / ctrlrange) to the real actuator's, lower the "
                    "load, or check the limit's unit",
                )
            )
        if flips[a] >= MIN_FLIPS and flips[a] > CHATTER_PER_STEP * steps:
            rate = flips[a] / (steps * h) if h > 0 else float("inf")
            out.append(
                Finding(
                    "ACTUATOR_CHATTER",
                    "warning",
                    label,
                    f"its force changed sign {flips[a]} times in {steps} steps "
                    f"({rate:.3g} per second of simulated time): it buzzes",
                    "add damping (kv, joint damping) or armature, lower kp, or lower the timestep",
                )
            )
    return out
