"""A teleop run as one HTML page (``--html``): per arm what happened, stage latencies, frames."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mjscope.report import Figure, Report, Section, Table

#: Per-arm counters shown side by side (report key → label).
COUNTERS = {
    "adapter": "adapter",
    "cycles": "cycles",
    "rate_hz": "rate [Hz]",
    "clutch_engagements": "engagements",
    "engage_refused": "engagements refused",
    "resets": "resets",
    "xr_timeouts": "XR timeouts",
    "feedback_timeouts": "feedback timeouts",
    "qp_failures": "QP failures",
    "safe_stop": "safe stop",
}


def teleop_page(
    report: Mapping[str, Any], figures: list[Path], code: int, title: str = "mjscope teleop"
) -> Report:
    """The page of one teleop run.

    Args:
        report: The teleop report (what ``--json`` writes: ``sides`` and ``mujoco``).
        figures: PNGs to show (the demo's strip of frames).
        code: The run's exit code (its verdict).
        title: The page's heading.

    Returns:
        The page.
    """
    sides: Mapping[str, Mapping[str, Any]] = report.get("sides", {})
    arms = [
        {"": label, **{n: s.get(key) for n, s in sides.items()}} for key, label in COUNTERS.items()
    ]
    arms.append(
        {
            "": "peak joint speed [rad/s]",
            **{n: _peak(s, "max_joint_speed") for n, s in sides.items()},
        }
    )
    arms.append(
        {"": "peak joint acc [rad/s²]", **{n: _peak(s, "max_joint_acc") for n, s in sides.items()}}
    )
    sections = [Section("Arms", tables=(Table.from_records(arms),))]
    if figures:
        sections.insert(0, Section("Frames", figures=tuple(Figure.from_png(p) for p in figures)))
    stages = [
        _stage_row(n, st, v) for n, s in sides.items() for st, v in s.get("stages", {}).items()
    ]
    if stages:
        caption = "per-stage time per cycle [µs]: XR receive → target → IK → limits → send → ack"
        sections.append(Section("Latency", tables=(Table.from_records(stages, caption),)))
    clamps = [{"arm": n, **s.get("clamps", {})} for n, s in sides.items() if s.get("clamps")]
    if clamps:
        sections.append(
            Section("Limits that acted (cycles clamped)", tables=(Table.from_records(clamps),))
        )
    stops = [f"{n}: {s['safe_stop']}" for n, s in sides.items() if s.get("safe_stop")]
    return Report(
        title=title,
        verdict="FAIL" if code else "OK",
        summary="; ".join(stops) if stops else f"{len(sides)} arm(s), no safe stop",
        sections=tuple(sections),
    )


def _peak(side: Mapping[str, Any], key: str) -> Any:
    value = side.get(key)
    return value.get("max") if isinstance(value, Mapping) else value


def _stage_row(arm: str, stage: str, values: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"arm": arm, "stage": stage}
    if isinstance(values, Mapping):
        row.update({k: v for k, v in values.items() if not isinstance(v, Mapping | list)})
    return row
