"""The diagnose run as one HTML page (``--html``): verdict, findings with fixes, tables, plots."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mjscope.report import Figure, Finding, Report, Section, Table

_ORDER = {"error": 0, "warning": 1, "info": 2}


def diagnose_page(report: Mapping[str, Any], plots: list[Path], code: int) -> Report:
    """The page of one diagnose run.

    Args:
        report: The diagnose report (what ``--json`` writes).
        plots: PNG plots of the run, in the order to show them.
        code: The run's exit code (its verdict).

    Returns:
        The page.
    """
    counts = report.get("check_counts", {})
    n_err, n_warn = counts.get("error", 0), counts.get("warning", 0)
    verdict = "FAIL" if code else ("WARN" if n_warn else "OK")
    findings = sorted(report.get("checks", []), key=lambda f: _ORDER.get(f["severity"], 3))
    sections = [
        Section(
            f"Findings ({n_err} errors, {n_warn} warnings)",
            paragraphs=() if findings else ("No findings.",),
            findings=tuple(_finding(f) for f in findings),
        ),
    ]
    if plots:
        sections.append(Section("Plots", figures=tuple(Figure.from_png(p) for p in plots)))
    sections.append(
        Section("Model", tables=(Table.from_mapping(_flat(report.get("summary", {}))),))
    )
    if report.get("actuators"):
        sections.append(Section("Actuators", tables=(Table.from_records(report["actuators"]),)))
    rollout = _flat(report.get("rollout", {}))
    if rollout:
        sections.append(Section("Rollout", tables=(Table.from_mapping(rollout),)))
    return Report(
        title=f"mjscope diagnose · {report.get('model', '')}",
        verdict=verdict,
        summary=f"{n_err} errors, {n_warn} warnings, {counts.get('info', 0)} notes",
        sections=tuple(sections),
    )


def _finding(f: Mapping[str, Any]) -> Finding:
    where = " · ".join(str(x) for x in (f.get("element"), f.get("source")) if x)
    return Finding(f["severity"], f["code"], f["message"], f.get("fix", ""), where)


def _flat(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested mappings flattened to ``a.b`` keys; lists of mappings left out (own tables)."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flat(v, f"{key}."))
        elif isinstance(v, list) and v and isinstance(v[0], Mapping):
            continue
        else:
            out[key] = v
    return out
