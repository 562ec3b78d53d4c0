"""Every rule, by kind, in the order the report lists their findings; and the three runners."""

from __future__ import annotations

import mujoco

from mjscope.diagnose.checks.actuator import actuator_rules
from mjscope.diagnose.checks.actuator_use import actuator_use_rule
from mjscope.diagnose.checks.authority import (
    authority_rules,
    ctrl_outside_rule,
    holding_rule,
    no_effect_rule,
)
from mjscope.diagnose.checks.base import Finding, ModelRule, RolloutRule, StateRule
from mjscope.diagnose.checks.collision import collision_rules
from mjscope.diagnose.checks.contact import contact_slip_rule
from mjscope.diagnose.checks.equality import equality_violation_rule
from mjscope.diagnose.checks.fall import explain_fall
from mjscope.diagnose.checks.forces import inverse_mismatch_rule
from mjscope.diagnose.checks.initial_state import self_collision_rule
from mjscope.diagnose.checks.joint import range_rules
from mjscope.diagnose.checks.model import inertia_rules, solref_rules, timestep_rule
from mjscope.diagnose.checks.pitfalls import (
    dampratio_rule,
    dynamics_rule,
    mass_rule,
    timestep_range_rule,
)
from mjscope.diagnose.checks.rollout import (
    condim_rule,
    deep_penetration_rule,
    divergence_rule,
    rest_penetration_rule,
    solver_rule,
    warning_rule,
)
from mjscope.diagnose.checks.units import angle_unit_rule
from mjscope.diagnose.rollout import RolloutResult

MODEL_RULES: tuple[ModelRule, ...] = (
    timestep_rule,
    timestep_range_rule,
    solref_rules,
    dampratio_rule,
    dynamics_rule,
    mass_rule,
    collision_rules,
    actuator_rules,
    authority_rules,
    inertia_rules,
    range_rules,
    angle_unit_rule,
)
STATE_RULES: tuple[StateRule, ...] = (self_collision_rule, holding_rule)
ROLLOUT_RULES: tuple[RolloutRule, ...] = (
    divergence_rule,
    rest_penetration_rule,
    deep_penetration_rule,
    condim_rule,
    contact_slip_rule,
    inverse_mismatch_rule,
    equality_violation_rule,
    ctrl_outside_rule,
    no_effect_rule,
    actuator_use_rule,
    solver_rule,
    warning_rule,
)


def static_checks(model: mujoco.MjModel) -> list[Finding]:
    """All rules that need only the model (:data:`MODEL_RULES`)."""
    return [f for rule in MODEL_RULES for f in rule(model)]


def initial_state_checks(model: mujoco.MjModel, data: mujoco.MjData) -> list[Finding]:
    """All initial-state rules (:data:`STATE_RULES`).

    Args:
        model: The compiled model.
        data: The initial state after reset and ``mj_forward``.
    """
    return [f for rule in STATE_RULES for f in rule(model, data)]


def rollout_checks(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """All rollout rules (:data:`ROLLOUT_RULES`); a floating base's fall explained."""
    return explain_fall(model, result, [f for rule in ROLLOUT_RULES for f in rule(model, result)])
