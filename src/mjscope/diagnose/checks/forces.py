"""Force rules: forward/inverse consistency (S1.13 "inverse-dynamics residual is large").

Reads the :class:`~mjscope.diagnose.probes.InverseProbe` summary (``--inverse``).
"""

from __future__ import annotations

import mujoco

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.rollout import RolloutResult


def inverse_mismatch_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """INVERSE_MISMATCH: ``mj_inverse`` disagrees with the forward forces beyond the tolerance.

    The residual per DOF is ``qfrc_inverse − (qfrc_actuator + qfrc_applied + Jᵀ·xfrc_applied)``
    at each recorded state, recomputed with ``mj_forward`` then ``mj_inverse`` on the same
    state (so nothing is left out and the state is in sync); the tolerance is
    ``INVERSE_TOL × max(1, max |qfrc_bias|, max |qfrc_constraint|)`` [N|Nm] (a converged solve
    leaves ~1e-14 of it; the constraint solver's own tolerance is relative too). What
    remains is the forward constraint solve not converging, as MuJoCo's docs say.
    """
    p = result.probes
    dof_max = p.get("inverse_dof_max")
    if not dof_max or result.divergence is not None:
        return []
    worst, tol = max(dof_max), p["inverse_tolerance"]
    if worst <= tol:
        return []
    return [
        Finding(
            "INVERSE_MISMATCH",
            "warning",
            f"DOF '{p['inverse_worst_dof']}'",
            f"forward/inverse residual reached {worst:.3g} N|Nm at this DOF "
            f"(step {p['inverse_worst_step']}; tolerance {tol:.3g}, i.e. 1e-6 of the largest "
            "bias or constraint force): with qfrc_applied, qfrc_passive and the state already "
            "accounted for, the forward constraint solver did not converge",
            "raise option iterations or lower tolerance, use the newton solver, enable diagexact, "
            "or soften conflicting constraints",
        )
    ]
