"""Force and energy probes: generalized force norms, energy, inverse-dynamics consistency.

Generalized forces mix units (N on slide/free translation DOFs, N·m on rotational ones), so
their norms carry the unit ``N|Nm``.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.names import dof_label
from mjscope.diagnose.probes.base import Column, Probe, merged

INVERSE_TOL = 1e-6  # relative to the largest bias or constraint force [1]; converged: ~1e-14

FORCE_TERMS = ("bias", "constraint", "actuator", "passive", "applied")
_MEANING = {
    "bias": "Coriolis, centrifugal and gravity forces (qfrc_bias)",
    "constraint": "contact, limit and equality forces (qfrc_constraint)",
    "actuator": "actuator forces (qfrc_actuator)",
    "passive": "springs, dampers, fluid, gravity compensation (qfrc_passive)",
    "applied": "user-applied generalized forces (qfrc_applied)",
}


class ForceProbe(Probe):
    """Norm of each generalized force term per step, and per DOF its RMS and max over the run.

    Both vectorised per block from raw copies. The per-DOF decomposition (S1.7 exercise 3,
    S1.13 "which force is it") groups the DOFs by joint name, the free base first.
    """

    columns = tuple(Column(f"qfrc_{t}_norm", "N|Nm", _MEANING[t]) for t in FORCE_TERMS)

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        self.sumsq = np.zeros((len(FORCE_TERMS), model.nv))
        self.maxabs = np.zeros((len(FORCE_TERMS), model.nv))
        self.count = 0

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        return [getattr(self.data, f"qfrc_{t}") for t in FORCE_TERMS]  # (nv,) views

    raw_parts = True  # the five vectors side by side in the block: a view, no copy

    def flush(self, n: int, start: int, raw: Any) -> None:  # noqa: D102
        vec = merged(raw).reshape(n, len(FORCE_TERMS), self.model.nv)
        self.out[:n] = np.sqrt(np.einsum("rkv,rkv->rk", vec, vec))
        if n:
            self.sumsq += np.einsum("rkv,rkv->kv", vec, vec)
            np.fmax(self.maxabs, np.abs(vec).max(axis=0), out=self.maxabs)
            self.count += n

    def summary(self) -> dict[str, Any]:  # noqa: D102
        return {"dof_forces": dof_force_table(self.model, self.sumsq, self.maxabs, self.count)}


def dof_force_table(
    model: mujoco.MjModel, sumsq: np.ndarray, maxabs: np.ndarray, count: int
) -> list[dict[str, Any]]:
    """One row per DOF, free-base DOFs first: label, group, unit, per term RMS and max.

    Args:
        model: The model.
        sumsq: Sum over steps of each term's square, (len(FORCE_TERMS), nv).
        maxabs: Largest |value| of each term, (len(FORCE_TERMS), nv).
        count: Steps summed.
    """
    rows = []
    rms = np.sqrt(sumsq / max(count, 1))
    for dof in range(model.nv):
        label, group, unit = dof_label(model, dof)
        row: dict[str, Any] = {"dof": dof, "label": label, "group": group, "unit": unit}
        for k, t in enumerate(FORCE_TERMS):
            row[f"{t}_rms"], row[f"{t}_max"] = float(rms[k, dof]), float(maxabs[k, dof])
        rows.append(row)
    rows.sort(key=lambda r: (r["group"] != "free base", r["dof"]))
    return rows


class EnergyProbe(Probe):
    """Potential and kinetic energy (needs the ``energy`` enable flag, set by the rollout)."""

    columns = (
        Column("energy_potential", "J", "gravitational + spring potential energy"),
        Column("energy_kinetic", "J", "kinetic energy"),
    )

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        return [self.data.energy]  # (2,) view: potential, kinetic

    raw_parts = True

    def flush(self, n: int, start: int, raw: Any) -> None:  # noqa: D102
        self.out[:n] = raw[0]


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
        self.dof_max = np.zeros(model.nv)  # largest |residual| per DOF [N|Nm]
        self.worst_step = -1
        self.bias_max = 0.0  # largest |qfrc_bias|, |qfrc_constraint| [N|Nm]: the tolerance's scale
        self.step = 0

    def read(self, i: int) -> None:  # noqa: D102
        o = self.out[i]
        res = inverse_residual_vector(self.model, self.data, self.scratch)
        o[0] = float(np.linalg.norm(res))
        o[1], o[2] = self.fwdinv[0], self.fwdinv[1]
        a = np.abs(res)
        if a.size and a.max() > self.dof_max.max(initial=0.0):
            self.worst_step = self.step
        np.fmax(self.dof_max, a, out=self.dof_max)
        sc = self.scratch
        big = max(
            np.abs(sc.qfrc_bias).max(initial=0.0), np.abs(sc.qfrc_constraint).max(initial=0.0)
        )
        self.bias_max = max(self.bias_max, float(big))
        self.step += 1

    def flush(self, n: int, start: int, raw: np.ndarray) -> None:  # noqa: D102
        col = self.out[:n, 0]
        if n and np.isfinite(col).any():
            self.max_residual = max(self.max_residual, float(np.nanmax(col)))

    def summary(self) -> dict[str, Any]:  # noqa: D102
        worst = int(np.argmax(self.dof_max)) if self.model.nv else -1
        return {
            "max_inverse_residual": self.max_residual,
            "inverse_tolerance": INVERSE_TOL * max(1.0, self.bias_max),
            "inverse_dof_max": self.dof_max.tolist(),
            "inverse_worst_dof": dof_label(self.model, worst)[0] if worst >= 0 else None,
            "inverse_worst_step": self.worst_step,
        }


def inverse_residual(
    model: mujoco.MjModel, data: mujoco.MjData, scratch: mujoco.MjData | None = None
) -> float:
    """The norm of :func:`inverse_residual_vector` [N|Nm]."""
    return float(np.linalg.norm(inverse_residual_vector(model, data, scratch)))


def inverse_residual_vector(
    model: mujoco.MjModel, data: mujoco.MjData, scratch: mujoco.MjData | None = None
) -> np.ndarray:
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
        The residual per DOF [N|Nm], (nv,); near zero when the forward solver converged.
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
    return s.qfrc_inverse - expected


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
