"""Parameter sweeps: ``option.timestep=0.002,0.005`` or ``geom:<glob>.solref=0.001 1;0.02 1``.

Each value is applied to a fresh ``MjSpec`` and gets its own rollout; the results are overlaid in
one figure and tabulated.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

import mujoco
import numpy as np

from mjscope.diagnose.checks import Finding
from mjscope.diagnose.diagnosis import diagnose
from mjscope.diagnose.pool import run_pool
from mjscope.diagnose.rollout import RolloutCfg, steps_for
from mjscope.exceptions import ConfigError
from mjscope.models import LoadOptions, compile_spec, load_spec

GEOM_ATTRS = ("solref", "solimp", "friction", "condim", "margin", "priority")
_ENUMS = {
    "integrator": mujoco.mjtIntegrator,
    "cone": mujoco.mjtCone,
    "solver": mujoco.mjtSolver,
}


class Sweep(NamedTuple):
    """A parsed ``--set``: what to change and the values to try."""

    target: str  # "option" or "geom:<glob>"
    attr: str
    values: list[str]

    @property
    def label(self) -> str:
        """``option.timestep`` / ``geom:foot*.solref``."""
        return f"{self.target}.{self.attr}"


def parse_set(text: str) -> Sweep:
    """Parse ``option.<attr>=v1,v2`` or ``geom:<glob>.<attr>=v1;v2``.

    Values are split on ``;`` when there is one (values with spaces), else on ``,``.

    Raises:
        ConfigError: Malformed text or an unsupported attribute.
    """
    lhs, sep, rhs = text.partition("=")
    if not sep or "." not in lhs or not rhs.strip():
        raise ConfigError(
            f"--set {text!r}: expected option.<attr>=v1,v2 or 'geom:<name-or-glob>.<attr>=v1;v2'"
        )
    target, _, attr = lhs.strip().rpartition(".")
    values = [v.strip() for v in rhs.split(";" if ";" in rhs else ",") if v.strip()]
    if target == "option":
        valid = option_attrs()
        if attr not in valid:
            raise ConfigError(f"--set: option has no settable {attr!r}; valid: {', '.join(valid)}")
    elif target.startswith("geom:") and len(target) > 5:
        if attr not in GEOM_ATTRS:
            raise ConfigError(f"--set: geom attribute {attr!r} not one of {', '.join(GEOM_ATTRS)}")
    else:
        raise ConfigError(f"--set {text!r}: target must be 'option' or 'geom:<name-or-glob>'")
    return Sweep(target, attr, values)


def option_attrs() -> list[str]:
    """``option`` attributes a sweep can set: numbers, number arrays and enum names."""
    opt = mujoco.MjSpec().option
    out = []
    for name in dir(opt):
        if name.startswith("_"):
            continue
        value = getattr(opt, name)
        if name in _ENUMS or isinstance(value, int | float | np.ndarray):
            out.append(name)
    return sorted(out)


def applier(sweep: Sweep, value: str) -> Callable[[mujoco.MjSpec], None]:
    """A function that applies ``sweep.attr = value`` to a spec."""

    def apply(spec: mujoco.MjSpec) -> None:
        if sweep.target == "option":
            _set(spec.option, sweep.attr, value)
            return
        pattern = sweep.target[5:]
        geoms = [g for g in spec.geoms if g.name and fnmatch.fnmatchcase(g.name, pattern)]
        if not geoms:
            known = sorted(g.name for g in spec.geoms if g.name)
            raise ConfigError(
                f"--set: no geom matches {pattern!r}; named geoms: {known or '(none)'}"
            )
        for g in geoms:
            _set(g, sweep.attr, value)

    return apply


def _set(obj: Any, attr: str, value: str) -> None:
    if attr in _ENUMS:
        enum = _ENUMS[attr]
        names = {n.split("_", 1)[1].lower(): v for n, v in enum.__members__.items() if "_" in n}
        if value.lower() not in names:
            raise ConfigError(f"--set: {attr} {value!r} not one of {', '.join(names)}")
        setattr(obj, attr, names[value.lower()])
        return
    try:
        nums = [float(x) for x in value.replace(",", " ").split()]
    except ValueError as e:
        raise ConfigError(f"--set: {attr} value {value!r} is not numeric") from e
    current = getattr(obj, attr)
    if isinstance(current, int | float):
        setattr(obj, attr, type(current)(nums[0]))
        return
    arr = list(current)
    if len(nums) > len(arr):
        raise ConfigError(f"--set: {attr} takes at most {len(arr)} numbers, got {value!r}")
    arr[: len(nums)] = nums
    setattr(obj, attr, arr)


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
    jobs: int | None = None,
) -> list[SweepRun]:
    """One diagnosis per sweep value, each on a freshly loaded spec with that value applied.

    Runs on a local process pool (``jobs`` workers; default one per CPU, at most one per
    run; :func:`~mjscope.diagnose.pool.run_pool`); ``jobs=1`` runs in this process. Results
    come back in sweep order.

    Args:
        model_ref: Bundled name or model file.
        options: Loading options.
        sweeps: Parsed ``--set`` values.
        base: Rollout settings; ``base.csv`` is a path stem, each run writing
            ``<stem>_<attr><k>.csv`` next to it (``k``: the run's index over all sweeps).
        duration: When given, each run's step count is ``duration / its timestep``.
        jobs: Worker processes.

    Returns:
        The runs, in order.

    Raises:
        ConfigError: ``jobs`` < 1, or a bad sweep value.
    """
    if jobs is not None and jobs < 1:
        raise ConfigError(f"--jobs {jobs} must be ≥ 1 worker process; leave it out for one per CPU")
    spec = load_spec(model_ref, options)  # user errors surface here, in this process
    for sw in sweeps:
        for v in sw.values:
            applier(sw, v)(spec)
    pairs = [(sw, v) for sw in sweeps for v in sw.values]
    # k numbers the runs across all sweeps: two sweeps of one attribute get distinct CSVs.
    tasks = [(model_ref, options, sw, v, k, base, duration) for k, (sw, v) in enumerate(pairs)]
    workers = min(len(tasks), jobs or os.cpu_count() or 1)
    if workers <= 1:
        return [_run_one(*t) for t in tasks]
    return run_pool(_run_one, tasks, workers)


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
    cfg = replace(base, steps=steps, csv=_csv_for(base.csv, sw.attr, k))
    dg = diagnose(model, f"{model_ref} [{sw.label}={value}]", cfg)
    return SweepRun(sw.label, value, dg.report, dg.findings, dg.result.header, dg.result.preview)


def summary_row(run: SweepRun) -> dict[str, Any]:
    """The sweep table's row for one run."""
    rep = run.report
    cols = {c["name"]: c for c in rep["rollout"]["columns"]}
    return {
        "setting": run.label,
        "value": run.value,
        "steps": rep["rollout"]["steps_done"],
        "final_com_z_m": cols["com_z"]["final"],
        "max_penetration_m": cols["pen_max"]["max"],
        "max_solver_niter": cols["solver_niter"]["max"],
        "diverged": rep["rollout"]["divergence"] is not None,
        "errors": rep["check_counts"]["error"],
        "warnings": rep["check_counts"]["warning"],
    }


def _csv_for(csv: str | Path | None, attr: str, k: int) -> str | None:
    if not csv:
        return None
    p = Path(csv)
    return str(p.with_name(f"{p.stem}_{attr}{k}{p.suffix or '.csv'}"))
