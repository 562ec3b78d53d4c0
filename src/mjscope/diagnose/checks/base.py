"""The check contract: what a rule takes and what it yields.

A rule is a plain function that looks at one thing and returns a list of :class:`Finding`
(empty when all is well). Rules come in three kinds, by what they need:

- :data:`ModelRule` ``(model) -> list[Finding]``: the compiled model only (static lint).
- :data:`StateRule` ``(model, data) -> list[Finding]``: the initial state, ``data`` reset
  (to ``qpos0`` or the chosen keyframe) and forwarded with ``mj_forward``.
- :data:`RolloutRule` ``(model, result) -> list[Finding]``: the finished rollout (its probe
  summaries, warning counters, divergence and final state).

Each finding has a stable code, a severity from :data:`SEVERITIES`, the offending element by
name and a one-line fix. :mod:`mjscope.diagnose.checks.registry` lists every rule in the order
the report shows them; a new rule is a function in the module of its group plus one entry there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, TypeAlias

import mujoco

from mjscope.diagnose.rollout import RolloutResult

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One check result.

    Attributes:
        code: Stable identifier (``SOLREF_CLAMPED``, ...).
        severity: ``error``, ``warning`` or ``info``.
        element: The offending element, e.g. ``geom 'foot'``.
        message: What is wrong, with the numbers.
        fix: One-line fix.
        source: ``path:line`` of the element in the model file (``None``: unknown; set by
            :func:`mjscope.diagnose.source_map.locate`).
    """

    code: str
    severity: str
    element: str
    message: str
    fix: str
    source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """As a JSON-ready dict."""
        return asdict(self)


ModelRule: TypeAlias = Callable[[mujoco.MjModel], list[Finding]]
"""A static rule: the compiled model → findings."""

StateRule: TypeAlias = Callable[[mujoco.MjModel, mujoco.MjData], list[Finding]]
"""An initial-state rule: the model and its reset, forwarded data → findings."""

RolloutRule: TypeAlias = Callable[[mujoco.MjModel, RolloutResult], list[Finding]]
"""A rollout rule: the model and the finished rollout → findings."""
