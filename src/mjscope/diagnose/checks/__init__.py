"""Lint checks on a model, its initial state and its rollout.

The contract (a :class:`Finding`, the three rule kinds) is in :mod:`.base`; the rule lists in
:mod:`.registry`. One module per group of rules:

- :mod:`.model`: timestep, solref, inertia.
- :mod:`.actuator`: forces without any bound (:mod:`.actuator_force`: the bound MuJoCo's
  force computation gives), high-gain servos on bare joints.
- :mod:`.joint`: ``qpos0`` and keyframes inside the joint limits.
- :mod:`.collision`: collision filters (geoms that collide with nothing, parent/child pairs),
  linear in the geom count.
- :mod:`.initial_state`: self-collision at the initial pose.
- :mod:`.rollout`: divergence, penetration, condim 6, solver cap, MuJoCo warnings.
"""

from mjscope.diagnose.checks.base import (
    SEVERITIES,
    Finding,
    ModelRule,
    RolloutRule,
    StateRule,
)
from mjscope.diagnose.checks.collision import collidable, parent_child_blocked
from mjscope.diagnose.checks.registry import (
    MODEL_RULES,
    ROLLOUT_RULES,
    STATE_RULES,
    initial_state_checks,
    rollout_checks,
    static_checks,
)

__all__ = [
    "MODEL_RULES",
    "ROLLOUT_RULES",
    "SEVERITIES",
    "STATE_RULES",
    "Finding",
    "ModelRule",
    "RolloutRule",
    "StateRule",
    "collidable",
    "initial_state_checks",
    "parent_child_blocked",
    "rollout_checks",
    "static_checks",
]
