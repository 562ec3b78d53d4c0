"""``mjscope dock --html PATH``: one self-contained page per mode.

A single run, a comparison, a campaign and an envelope study each get a title, the verdict,
the gate and metrics tables and the run's figures; a trial replay its rows, a calibration the
identified load beside the scene's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mjscope.dock.comparison import Comparison, Row
from mjscope.dock.gate import GateResult
from mjscope.dock.metric_units import LEVELS, UNITS, Metrics
from mjscope.dock.report import DockingReport
from mjscope.report import Figure, Report, Section, Table


def verdict(passed: bool) -> str:
    """``PASS`` or ``FAIL``."""
    return "PASS" if passed else "FAIL"


def _figures(pngs: Sequence[Path]) -> Section:
    return Section("Figures", figures=tuple(Figure.from_png(p) for p in pngs))


def gate_table(gate: GateResult) -> Table:
    """One row per check: value, limit, unit, result."""
    rows = [{"check": c.name, "value": c.value, "limit": f"{c.op} {c.threshold:.4g}",
             "unit": c.unit, "result": verdict(c.passed)} for c in gate.checks]  # fmt: skip
    return Table.from_records(rows, f"gate ({gate.mode}): PASS only when every check passes")


def metrics_table(metrics: Metrics) -> Table:
    """One row per metric, by level."""
    rows = [{"level": level, "metric": n, "value": metrics[n], "unit": UNITS[n]}
            for level, names in LEVELS.items() for n in names if n in metrics]  # fmt: skip
    return Table.from_records(rows)


def run_page(report: DockingReport, pngs: Sequence[Path]) -> Report:
    """The page of one run."""
    r = report.result
    sim = r.steps * r.scene.cfg.control_period
    summary = f"{r.scene.mode}, {r.steps} steps, {sim:.2f} s simulated"
    summary += "" if r.status == "ok" else f"; stopped early: {r.message}"
    sections = [
        Section("Gate", tables=(gate_table(report.gate),)),
        _figures(pngs),
        Section("Metrics", tables=(metrics_table(report.metrics),)),
    ]
    return Report(f"mjscope dock · {r.scene.name} · {r.controller}", verdict(report.passed),
                  summary, tuple(sections))  # fmt: skip


def _cmp_rows(cmp: Comparison, rows: list[Row]) -> Table:
    records = []
    for row in rows:
        rec: dict[str, Any] = {"level": row.level, "name": row.name, "unit": row.unit}
        rec |= {"limit": row.limit} if row.limit else {}
        for c in cmp.controllers:
            mark = f" {verdict(row.passed[c])}" if row.passed else ""
            rec[c] = f"{_num(row.values[c])}{mark}"
        for c in cmp.controllers[1:]:
            rec[f"{c} − {cmp.baseline}"] = row.diffs[c]
        records.append(rec)
    return Table.from_records(records)


def _num(v: Any) -> str:
    from mjscope.report.model import cell

    return cell(v)


def comparison_page(cmp: Comparison, pngs: Sequence[Path]) -> Report:
    """The page of a side-by-side run: gate and metrics per controller, the overlay figures."""
    verdicts = ", ".join(f"{c} {verdict(r.passed)}" for c, r in cmp.reports.items())
    sections = (
        Section("Gate", tables=(_cmp_rows(cmp, cmp.gate_rows()),)),
        _figures(pngs),
        Section("Metrics", tables=(_cmp_rows(cmp, cmp.metric_rows()),)),
    )
    title = f"mjscope dock · {cmp.scene.name} · {' vs '.join(cmp.controllers)}"
    return Report(title, verdict(cmp.passed), verdicts, sections)


def campaign_page(head: Mapping[str, Any], summaries: Sequence[Mapping[str, Any]],
                  pngs: Sequence[Path], code: int) -> Report:  # fmt: skip
    """The page of a campaign: per controller successes, rate and Wilson band; its figures."""
    floor = head.get("min_success_rate")
    rows = [{"controller": s["controller"], "successes": s["successes"], "trials": s["trials"],
             "errors": s["errors"], "rate": s["success_rate"], "Wilson 95 % low":
             s["wilson95_low"], "Wilson 95 % high": s["wilson95_high"],
             "failed trials": s["failed_trials"]} for s in summaries]  # fmt: skip
    caption = "gate: every trial ran" + (f" and rate ≥ {floor:g}" if floor is not None else "")
    summary = f"{head['trials']} trials per controller, seed {head['seed']}"
    sections = (Section("Success rate", tables=(Table.from_records(rows, caption),)),
                _figures(pngs))  # fmt: skip
    return Report(f"mjscope dock campaign · {head['scene']}", verdict(code == 0), summary,
                  sections)  # fmt: skip


def envelope_page(head: Mapping[str, Any], rows: Sequence[Mapping[str, Any]],
                  png: Path) -> Report:  # fmt: skip
    """The page of an envelope study: success vs magnitude per controller, the curve figure."""
    summary = (f"success vs {head['swept']} [{head['unit']}], {head['trials']} trials per "
               f"magnitude, seed {head['seed']}")  # fmt: skip
    sections = (Section("Envelope", tables=(Table.from_records(list(rows)),)), _figures([png]))
    return Report(f"mjscope dock envelope · {head['scene']}", "OK", summary, sections)


TRIAL_KEYS = ("controller", "success", "final_insertion_depth", "time_to_depth",
              "peak_contact_force", "final_lateral_error", "final_axis_angle",
              "failed_checks")  # fmt: skip


def trial_page(head: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> Report:
    """The page of a replayed trial: its row per controller (the ``trial_K.csv`` columns)."""
    passed = all(bool(r["success"]) for r in rows)
    table = Table.from_records([{k: r[k] for k in TRIAL_KEYS} for r in rows],
                               "the trial's row in the campaign, per controller")  # fmt: skip
    summary = f"trial {head['trial']} of the campaign (seed {head['seed']})"
    return Report(f"mjscope dock trial · {head['scene']} · {head['trial']}", verdict(passed),
                  summary, (Section("Trial", tables=(table,)),))  # fmt: skip


def calibration_page(record: Mapping[str, Any]) -> Report:
    """The page of ``--calibrate``: identified vs scene values, and the residuals."""
    rows = [{**r, "difference": r["identified"] - r["scene"]} for r in record["rows"]]
    residuals = {k: record[k] for k in ("peak_raw_N", "residual_scene_N",
                                        "residual_identified_N", "fit_residual_rms_N",
                                        "samples", "condition")}  # fmt: skip
    tables = (Table.from_records(rows, "tool load beyond the sensor: identified vs the scene's"),
              Table.from_mapping(residuals, "max free-space |force| left [N]"))  # fmt: skip
    ok = all(isinstance(r["identified"], float) and r["identified"] == r["identified"]
             for r in record["rows"])  # fmt: skip
    return Report(f"mjscope dock calibrate · {record['scene']}", "OK" if ok else "WARN",
                  f"least squares over {record['samples']} free-space readings",
                  (Section("Calibration", tables=tables),))  # fmt: skip
