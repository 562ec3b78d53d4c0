"""State, solver and warning probes."""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.probes.base import Column, Probe

WARNING_NAMES = tuple(
    n.removeprefix("mjWARN_").lower()
    for n in mujoco.mjtWarning.__members__
    if n.startswith("mjWARN_")
)
DIVERGENCE = ("badqpos", "badqvel", "badqacc")


class StateProbe(Probe):
    """Simulation time and the height of the whole model's centre of mass.

    ``mj_step`` computes every derived quantity (positions, contacts, forces, energy, sensors)
    in its forward pass, before it integrates, so after the step they describe the state one
    timestep earlier than ``data.time``. The ``time`` column is that earlier time, so that a
    row's time and its values belong together (the first row is the initial state, t = 0).
    """

    columns = (
        Column("time", "s", "simulation time of the state this row describes (before the step)"),
        Column("com_z", "m", "height of the centre of mass of the root subtree (whole model)"),
    )

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        self.h = float(model.opt.timestep)  # [s]

    scalars = ("time",)

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        return [self.data.subtree_com[0]]  # (3,) view: CoM of the world subtree

    raw_parts = True

    def flush(self, n: int, start: int, raw: Any) -> None:  # noqa: D102
        self.out[:n, 0] = raw[1][:, 0] - self.h  # time
        self.out[:n, 1] = raw[0][:, 2]  # the world subtree's CoM z


class SolverProbe(Probe):
    """Constraint rows, solver iterations (largest island) and island 0's final improvement.

    Iteration counts of all islands and island 0's per-iteration improvements are gathered
    raw, ``nefc``, ``nisland`` are scalars; the flush picks island 0's final improvement (at
    the index of its last iteration, which changes every step).
    """

    scalars = ("nefc", "nisland")
    raw_parts = True  # one improvement per row is read of island 0's many: no copy of them

    columns = (
        Column("nefc", "count", "number of scalar constraint rows", True),
        Column("solver_niter", "iter", "constraint solver iterations (largest over islands)", True),
        Column("solver_improvement", "1", "last iteration's cost improvement (island 0)"),
    )

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        self.cap = int(model.opt.iterations)
        self.nstat = int(mujoco.mjNSOLVER)
        # island 0's iterations with statistics (noslip's continue after the main solver's)
        self.kept = max(1, min(self.cap + int(model.opt.noslip_iterations), self.nstat))
        self.at_cap = 0
        self.first_cap_step: int | None = None

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        # (mjNISLAND,) int32 iteration counts, then island 0's improvement of each iteration
        # the solver can record (strided float64 view): the flush picks the last one
        return [self.data.solver_niter, self.data.solver.improvement[: self.kept]]

    def flush(self, n: int, start: int, raw: Any) -> None:  # noqa: D102
        niter, improvement, nefc, nisland = raw[0], raw[1], raw[2][:, 0], raw[3][:, 0]
        k, kept = niter.shape[1], self.kept
        self.out[:n, 0] = nefc
        it0 = np.minimum(niter[:, 0], kept).astype(np.intp)  # island 0's last stat + 1
        last = improvement[np.arange(n), np.maximum(it0, 1) - 1]
        self.out[:n, 2] = np.where(it0 > 0, last, 0.0)
        top = np.maximum(nisland, 1)  # islands the solver ran per row (island 0 without any)
        w = min(k, int(top.max())) if n else 1  # the block's widest: fewer columns to reduce
        used = np.arange(w)[None, :] < top[:, None]
        self.out[:n, 1] = np.where(used, niter[:, :w], 0).max(axis=1)
        hit = np.flatnonzero(self.out[:n, 1] >= self.cap)
        if hit.size:
            self.at_cap += int(hit.size)
            if self.first_cap_step is None:
                self.first_cap_step = start + int(hit[0])

    def summary(self) -> dict[str, Any]:  # noqa: D102
        return {
            "iterations_cap": self.cap,
            "steps_at_cap": self.at_cap,
            "first_step_at_cap": self.first_cap_step,
        }


class WarningProbe(Probe):
    """MuJoCo's warning counters (cumulative since reset), one column each."""

    columns = tuple(
        Column(f"warn_{n}", "count", f"MuJoCo mjWARN_{n.upper()} counter", True)
        for n in WARNING_NAMES
    )

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        return [self.data.warning.number]  # (mjNWARNING,) int32 view

    raw_parts = True

    def flush(self, n: int, start: int, raw: Any) -> None:  # noqa: D102
        self.out[:n] = raw[0]
