"""What ``mjscope dock --json PATH|-`` writes: one JSON summary per mode (NaN → ``null``).

- a single run (:func:`run_summary`): scene, controller, status, the gate's checks with value,
  limit and pass, the metrics, the files written and the verdict;
- a comparison (:func:`comparison_summary`): the same per controller, and the overall verdict;
- a campaign (:func:`campaign_summary`): per controller successes, trials, rate and Wilson band,
  the failed trials, and ``min_success_rate``;
- an envelope study (:func:`envelope_summary`): the table rows;
- a trial replay, ``--trial K`` (:func:`trial_summary`): the trial's row per controller;
- a calibration, ``--calibrate`` (:func:`calibration_summary`): identified vs scene values.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mjscope.dock.comparison import Comparison
from mjscope.dock.gate import GateResult
from mjscope.dock.report import DockingReport


def jsonable(v: Any) -> Any:
    """``v`` with NaN/inf → ``None``, paths → text, tuples → lists (strict JSON)."""
    if isinstance(v, bool | int | str) or v is None:
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, Path):
        return str(v)
    if isinstance(v, Mapping):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, Iterable):
        return [jsonable(x) for x in v]
    try:  # numpy scalars
        return jsonable(v.item())
    except AttributeError:
        return str(v)


def gate_summary(gate: GateResult) -> dict[str, Any]:
    """The gate: its mode, verdict and every check (value, op, limit, unit, passed)."""
    checks = [{"name": c.name, "value": c.value, "op": c.op, "limit": c.threshold,
               "unit": c.unit, "passed": c.passed} for c in gate.checks]  # fmt: skip
    return {"mode": gate.mode, "passed": bool(gate.passed), "checks": checks}


def _run(report: DockingReport) -> dict[str, Any]:
    r = report.result
    return {
        "controller": r.controller,
        "status": r.status,
        "message": r.message,
        "steps": r.steps,
        "sim_time_s": r.steps * r.scene.cfg.control_period,
        "gate": gate_summary(report.gate),
        "metrics": dict(report.metrics),
        "files": report.files,
        "passed": report.passed,
    }


def run_summary(report: DockingReport) -> dict[str, Any]:
    """One run's summary."""
    sc = report.result.scene
    return jsonable({"kind": "run", "scene": sc.name, "mode": sc.mode, **_run(report)})


def comparison_summary(cmp: Comparison) -> dict[str, Any]:
    """A comparison's summary: every controller's run summary, the verdict, the files."""
    runs = {c: _run(r) for c, r in cmp.reports.items()}
    return jsonable({"kind": "comparison", "scene": cmp.scene.name, "mode": cmp.scene.mode,
                     "baseline": cmp.baseline, "controllers": runs, "files": cmp.files,
                     "passed": cmp.passed})  # fmt: skip


def campaign_summary(head: Mapping[str, Any], controllers: Sequence[Mapping[str, Any]],
                     files: Sequence[Path], code: int) -> dict[str, Any]:  # fmt: skip
    """A campaign's summary.

    Args:
        head: ``scene``, ``trials``, ``seed``, ``min_success_rate``, ``interrupted``…
        controllers: :meth:`mjscope.dock.campaign_results.Tally.summary` of each controller.
        files: The files written.
        code: The exit code (``passed`` is ``code == 0``).
    """
    return jsonable({"kind": "campaign", **head, "controllers": list(controllers),
                     "files": list(files), "passed": code == 0})  # fmt: skip


def envelope_summary(head: Mapping[str, Any], rows: Sequence[Mapping[str, Any]],
                     files: Sequence[Path]) -> dict[str, Any]:  # fmt: skip
    """An envelope study's summary: what was swept and the table rows."""
    return jsonable({"kind": "envelope", **head, "rows": list(rows), "files": list(files)})


def trial_summary(head: Mapping[str, Any], rows: Sequence[Mapping[str, Any]],
                  files: Sequence[Path]) -> dict[str, Any]:  # fmt: skip
    """A replayed trial: its row per controller (as in ``trials.csv``); passed if all succeed."""
    passed = all(bool(r["success"]) for r in rows)
    return jsonable({"kind": "trial", **head, "rows": list(rows), "files": list(files),
                     "passed": passed})  # fmt: skip


def calibration_summary(record: Mapping[str, Any], files: Sequence[Path]) -> dict[str, Any]:
    """A calibration: :func:`mjscope.dock.calibrate.calibration_record` and the file written."""
    return jsonable({"kind": "calibration", **record, "files": list(files)})
