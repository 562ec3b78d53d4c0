"""Force and energy probes: generalized force norms, energy, inverse-dynamics consistency.

Generalized forces mix units (N on slide/free translation DOFs, N·m on rotational ones), so
their norms carry the unit ``N|Nm``.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.probes.base import Column, Probe

FORCE_TERMS = ("bias", "constraint", "actuator", "passive", "applied")
_MEANING = {
    "bias": "Coriolis, centrifugal and gravity forces (qfrc_bias)",
    "constraint": "contact, limit and equality forces (qfrc_constraint)",
    "actuator": "actuator forces (qfrc_actuator)",
    "passive": "springs, dampers, fluid, gravity compensation (qfrc_passive)",
    "applied": "user-applied generalized forces (qfrc_applied)",
}


class ForceProbe(Probe):
    """Euclidean norm of each generalized force term, vectorised per block from raw copies."""

    columns = tuple(Column(f"qfrc_{t}_norm", "N|Nm", _MEANING[t]) for t in FORCE_TERMS)

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        return [getattr(self.data, f"qfrc_{t}") for t in FORCE_TERMS]  # (nv,) views

    def flush(self, n: int, start: int, raw: np.ndarray) -> None:  # noqa: D102
        vec = raw.reshape(n, len(FORCE_TERMS), self.model.nv)
        self.out[:n] = np.sqrt(np.einsum("rkv,rkv->rk", vec, vec))


class EnergyProbe(Probe):
    """Potential and kinetic energy (needs the ``energy`` enable flag, set by the rollout)."""

    columns = (
        Column("energy_potential", "J", "gravitational + spring potential energy"),
        Column("energy_kinetic", "J", "kinetic energy"),
    )

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        return [self.data.energy]  # (2,) view: potential, kinetic

    def flush(self, n: int, start: int, raw: np.ndarray) -> None:  # noqa: D102
        self.out[:n] = raw


class InverseProbe(Probe):
    """Forward/inverse consistency at each step (costly: one extra forward + inverse).

    ``inv_residual`` is ‖qfrc_inverse − (qfrc_actuator + qfrc_applied + Jᵀ·xfrc_applied)‖ at the
    post-step state, computed on a scratch ``MjData``; ``fwdinv_*`` are MuJoCo's own
    ``solver_fwdinv`` figures (the ``fwdinv`` flag, set by the rollout).
    """

    columns = (
        Column("inv_residual", "N|Nm", "inverse dynamics vs actuator + applied forces"),
        Column("fwdinv_joint", "1", "MuJoCo solver_fwdinv[0]: relative joint-space discrepancy"),
        Column("fwdinv_constraint", "1", "MuJoCo solver_fwdinv[1]: constraint-space discrepancy"),
    )

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        self.scratch = mujoco.MjData(model)
        self.fwdinv = data.solver_fwdinv  # (2,) view
        self.max_residual = 0.0

    def read(self, i: int) -> None:  # noqa: D102
        o = self.out[i]
        o[0] = inverse_residual(self.model, self.data, self.scratch)
        o[1], o[2] = self.fwdinv[0], self.fwdinv[1]

    def flush(self, n: int, start: int, raw: np.ndarray) -> None:  # noqa: D102
        col = self.out[:n, 0]
        if n and np.isfinite(col).any():
            self.max_residual = max(self.max_residual, float(np.nanmax(col)))

    def summary(self) -> dict[str, Any]:  # noqa: D102
        return {"max_inverse_residual": self.max_residual}


def inverse_residual(
    model: mujoco.MjModel, data: mujoco.MjData, scratch: mujoco.MjData | None = None
) -> float:
    """‖qfrc_inverse − (qfrc_actuator + qfrc_applied + Jᵀ·xfrc_applied)‖ at ``data``'s state.

    ``mj_inverse`` already moves ``qfrc_passive`` to the left-hand side (measured with MuJoCo
    3.17: adding it as the seed's exercise 3 does leaves a residual equal to ‖qfrc_passive‖).

    The state (qpos, qvel, act, ctrl, applied forces) is copied into ``scratch``, which runs
    ``mj_forward`` and then ``mj_inverse`` on the resulting ``qacc``; ``data`` is not changed.
    ``xfrc_applied`` is included through its generalized force.

    Args:
        model: The model.
        data: The state to check.
        scratch: Reusable scratch data (created when ``None``).

    Returns:
        The residual norm [N|Nm]; near zero when the forward solver converged.
    """
    s = scratch if scratch is not None else mujoco.MjData(model)
    s.time = data.time
    s.qpos[:], s.qvel[:], s.ctrl[:] = data.qpos, data.qvel, data.ctrl
    if model.na:
        s.act[:] = data.act
    s.qfrc_applied[:], s.xfrc_applied[:] = data.qfrc_applied, data.xfrc_applied
    s.qacc_warmstart[:] = data.qacc_warmstart
    mujoco.mj_forward(model, s)
    expected = s.qfrc_actuator + s.qfrc_applied + _xfrc_generalized(model, s)
    mujoco.mj_inverse(model, s)
    return float(np.linalg.norm(s.qfrc_inverse - expected))


def _xfrc_generalized(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """Jᵀ·xfrc_applied as a generalized force, shape (nv,)."""
    out = np.zeros(model.nv)
    if not data.xfrc_applied.any():
        return out
    for b in np.flatnonzero(np.abs(data.xfrc_applied).sum(axis=1)):
        mujoco.mj_applyFT(
            model,
            data,
            data.xfrc_applied[b, :3],
            data.xfrc_applied[b, 3:],
            data.xipos[b],
            int(b),
            out,
        )
    return out
