"""Parameter sweeps: ``--set`` values, one rollout each, compared like with like.

Targets (:mod:`.targets`): ``option.timestep=0.002,0.005``, ``geom:<glob>.solref=0.001 1;0.02
1``, ``equality:<name>.solref``, ``actuator:<glob>.kp``, ``body:<name>.mass``.

Each value is applied to a fresh ``MjSpec`` and gets its own rollout; the results are overlaid in
one figure and tabulated. Runs compare like with like:

- a ``timestep`` sweep keeps the **simulated duration** (``--steps`` at the model's own
  timestep, or ``--duration``), not the step count: each run's steps are that duration over
  its timestep;
- each run reports its mean CPU time per ``mj_step`` [µs] (``time.thread_time`` around every
  16th step, recording excluded, as exercise 6 measures: what other processes on a loaded
  machine do not inflate), and its mean wall time beside it;
- the table names the checks each run raised.

The runs go through the shared executor (:func:`mjscope.runner.run_items`: this process, a
local pool or Ray), one item per value, and come back in sweep order; apart from the wall
time they are identical whatever the backend. Ctrl-C or SIGTERM stops every run; on a local
pool the running ones are given :data:`STOP_WAIT_S` to keep their partial CSVs, named in one
:class:`~mjscope.diagnose.outputs.Interrupted`. On Ray, ``--csv`` paths are made absolute and
written by the worker, on the machine it runs on.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from mjscope.diagnose.checks import Finding
from mjscope.diagnose.diagnosis import diagnose
from mjscope.diagnose.outputs import Interrupted
from mjscope.diagnose.rollout import RolloutCfg, steps_for
from mjscope.diagnose.targets import GEOM_ATTRS, Sweep, applier, option_attrs, parse_set
from mjscope.exceptions import SimulationError
from mjscope.models import LoadOptions, compile_spec, load_spec
from mjscope.runner import ExecutorCfg, RunInterrupted, run_items

STOP_WAIT_S = 30.0  # how long interrupted local runs get to close their partial CSVs [s]

__all__ = [
    "GEOM_ATTRS",
    "Sweep",
    "SweepRun",
    "applier",
    "option_attrs",
    "parse_set",
    "run_sweeps",
    "summary_row",
]


class SweepRun(NamedTuple):
    """One value of a sweep (picklable: it crosses process boundaries)."""

    label: str
    value: str
    report: dict[str, Any]
    findings: list[Finding]
    header: list[str]
    preview: np.ndarray  # (<= preview_points, ncols) decimated rows for the overlay figure


def run_sweeps(
    model_ref: str,
    options: LoadOptions,
    sweeps: list[Sweep],
    base: RolloutCfg,
    duration: float | None = None,
    executor: ExecutorCfg | None = None,
) -> list[SweepRun]:
    """One diagnosis per sweep value, each on a freshly loaded spec with that value applied.

    Runs on the shared executor (default: a local pool, one worker per CPU, at most one per
    run; ``jobs=1`` runs in this process; ``ray`` a Ray cluster). Results come back in sweep
    order.

    Args:
        model_ref: Bundled name or model file.
        options: Loading options.
        sweeps: Parsed ``--set`` values.
        base: Rollout settings; ``base.csv`` is a path stem, each run writing
            ``<stem>_<attr><k>.csv`` next to it (``k``: the run's index over all sweeps).
        duration: When given, each run's step count is ``duration / its timestep`` [s]; a
            timestep sweep without it keeps ``base.steps`` × the model's own timestep.
        executor: Where the runs go (``--jobs``, ``--ray``); its ``stop_wait`` is raised to
            :data:`STOP_WAIT_S`.

    Returns:
        The runs, in order.

    Raises:
        ConfigError: A bad sweep value.
        ExecutorError: Bad executor options, or Ray missing or unreachable.
        SimulationError: A run failed (names its value and why).
        Interrupted: Ctrl-C or SIGTERM; ``kept`` names the partial CSVs of the stopped runs.
    """
    executor = (executor or ExecutorCfg()).check()
    executor = replace(executor, stop_wait=max(executor.stop_wait, STOP_WAIT_S))
    if executor.ray is not None:  # a Ray worker's working folder is not ours
        base = replace(base, csv=_absolute(base.csv), contacts=_absolute(base.contacts))
    spec = load_spec(model_ref, options)  # user errors surface here, in this process
    if duration is None and any(sw.target == "option" and sw.attr == "timestep" for sw in sweeps):
        duration = base.steps * float(spec.option.timestep)  # like with like: same sim time
    for sw in sweeps:
        for v in sw.values:
            applier(sw, v)(load_spec(model_ref, options))
    pairs = [(sw, v) for sw in sweeps for v in sw.values]
    # k numbers the runs across all sweeps: two sweeps of one attribute get distinct CSVs.
    tasks = [(model_ref, options, sw, v, k, base, duration) for k, (sw, v) in enumerate(pairs)]
    try:  # list(): a Ctrl-C lands inside run_items, which then stops the runs
        results = list(run_items(_run_task, tasks, executor, label="sweep runs"))
    except RunInterrupted as e:
        kept = [p for _, exc in e.stopped if isinstance(exc, Interrupted) for p in exc.kept]
        raise Interrupted(tuple(kept)) from e
    for r in results:
        if not r.ok:
            sw, v = pairs[r.index]
            raise SimulationError(f"the sweep run {sw.label}={v} failed: {r.error}")
    return [r.value for r in results]


def _run_task(task: tuple[Any, ...]) -> SweepRun:
    """One executor item: the arguments of :func:`_run_one` (module level: it is pickled)."""
    return _run_one(*task)


def _run_one(
    model_ref: str,
    options: LoadOptions,
    sw: Sweep,
    value: str,
    k: int,
    base: RolloutCfg,
    duration: float | None,
) -> SweepRun:
    spec = load_spec(model_ref, options)
    applier(sw, value)(spec)
    model = compile_spec(spec, f"{model_ref} with {sw.label}={value}")
    steps = steps_for(model, base.steps, duration) if duration is not None else base.steps
    cfg = replace(
        base,
        steps=steps,
        csv=_csv_for(base.csv, sw.attr, k),
        contacts=_csv_for(base.contacts, sw.attr, k),
    )
    dg = diagnose(model, f"{model_ref} [{sw.label}={value}]", cfg, source=model_ref)
    return SweepRun(sw.label, value, dg.report, dg.findings, dg.result.header, dg.result.preview)


def summary_row(run: SweepRun) -> dict[str, Any]:
    """The sweep table's row for one run."""
    rep = run.report
    r = rep["rollout"]
    cols = {c["name"]: c for c in r["columns"]}
    row: dict[str, Any] = {
        "setting": run.label,
        "value": run.value,
        "steps": r["steps_done"],
        "sim_time_s": r["time"],
        "final_com_z_m": cols["com_z"]["final"],
        "max_penetration_m": cols["pen_max"]["max"],
        "max_solver_niter": cols["solver_niter"]["max"],
    }
    if r.get("equalities"):
        row["max_eq_violation"] = max(q["max_position"] for q in r["equalities"])
    drops = r.get("free_bodies", [])
    if drops:
        row["max_z_drop_mm"] = 1e3 * max(b["z_drop_m"] for b in drops)
    cpu = r.get("cpu_per_step_s", float("nan"))
    wall = r.get("wall_per_step_s", float("nan"))
    row["us_per_step"] = 1e6 * (cpu if cpu == cpu else wall)  # CPU time: load-proof
    row["wall_us_per_step"] = 1e6 * wall
    row["diverged"] = r["divergence"] is not None
    raised = [c["code"] for c in rep["checks"] if c["severity"] != "info"]
    row["checks"] = ", ".join(dict.fromkeys(raised)) or "-"
    return row


def _absolute(path: str | Path | None) -> str | None:
    return str(Path(path).resolve()) if path else None


def _csv_for(csv: str | Path | None, attr: str, k: int) -> str | None:
    if not csv:
        return None
    p = Path(csv)
    return str(p.with_name(f"{p.stem}_{attr}{k}{p.suffix or '.csv'}"))
