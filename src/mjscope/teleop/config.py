"""Teleop settings that live in code: the IK's weights and convergence tolerance.

The per-arm limits, clutch and safety settings are keys of the rig YAML (one source of truth
per side, :class:`mjscope.rig.SideCfg`); these are the solver's internals, the same for every
arm, with the values the XRoboToolkit samples use (``facts/rm75_arm_and_teleop.md`` §7).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IkCfg:
    """Weights of the QP IK and its convergence check.

    Attributes:
        position_weight: Frame task, position (soft) [1/m²].
        orientation_weight: Frame task, orientation (soft) [1/rad²].
        posture_weight: Posture task towards the initial pose (soft).
        regularization: Δq regularisation.
        divergence_rtol: A step may raise the task error by this fraction ...
        divergence_atol: ... plus this much [m² or rad²] before it counts as not converged.
    """

    position_weight: float = 1.0
    orientation_weight: float = 1.0
    posture_weight: float = 1e-4
    regularization: float = 1e-6
    divergence_rtol: float = 1e-3
    divergence_atol: float = 1e-6
