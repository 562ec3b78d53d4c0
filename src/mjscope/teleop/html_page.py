"""A teleop run as one HTML page (``--html``): per arm what happened, stage latencies, frames."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mjscope.report import Figure, Report, Section, Table
from mjscope.text import plural

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


#: Captions of the figures the demo shows (by file name; others: from the name).
CAPTIONS = {
    "teleop_strip.png": "the MuJoCo mirror of the commanded joints at four times of the run",
}
#: The page's badge by exit code (anything else: ``FAIL``).
VERDICTS = {0: "OK", 1: "FAIL", 130: "INTERRUPTED"}


def teleop_page(
    report: Mapping[str, Any], figures: list[Path], code: int, title: str = "mjscope teleop"
) -> Report:
    """The page of one teleop run.

    Args:
        report: The teleop report (what ``--json`` writes: ``sides``, ``mujoco`` and, for a
            real/mock/replay run, ``loop``, ``fault``, ``fault_policy``, ``interrupted``, ``xr``).
        figures: PNGs to show (the demo's strip of frames).
        code: The run's exit code (its verdict).
        title: The page's heading.

    Returns:
        The page.
    """
    sides: Mapping[str, Mapping[str, Any]] = report.get("sides", {})
    arms = [
        {"": label, **{n: _value(s, key) for n, s in sides.items()}}
        for key, label in COUNTERS.items()
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
    run = _run_table(report)
    if run is not None:
        sections.insert(0, Section("Run", tables=(run,)))
    if figures:
        sections.insert(
            0,
            Section(
                "Frames",
                figures=tuple(Figure.from_png(p, CAPTIONS.get(p.name, "")) for p in figures),
            ),
        )
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
    return Report(
        title=title,
        verdict=VERDICTS.get(code, "FAIL"),
        summary=_summary(report, sides),
        sections=tuple(sections),
    )


def _summary(report: Mapping[str, Any], sides: Mapping[str, Mapping[str, Any]]) -> str:
    """How the run ended: the first safe stop and the policy, an interrupt, or no stop."""
    parts = [f"{plural(len(sides), 'arm')}"]
    fault = report.get("fault")
    if isinstance(fault, Mapping):
        isolate = report.get("fault_policy") == "isolate"
        how = "the others kept running" if isolate else "all stopped"
        parts.append(f"safe stop of the {fault.get('side')} arm: {fault.get('cause')} ({how})")
    stops = [f"{n}: {s['safe_stop']}" for n, s in sides.items() if s.get("safe_stop")]
    if stops and not isinstance(fault, Mapping):
        parts.append("safe stop " + "; ".join(stops))
    if report.get("interrupted"):
        parts.append("interrupted (every arm braked to rest)")
    if len(parts) == 1:
        parts.append("no safe stop")
    return ", ".join(parts)


def _run_table(report: Mapping[str, Any]) -> Table | None:
    """The run's settings and its loop and XR counters (``None`` for the demo's report)."""
    loop, xr = report.get("loop"), report.get("xr")
    if not isinstance(loop, Mapping) and not isinstance(xr, Mapping):
        return None
    row: dict[str, Any] = {k: report.get(k) for k in ("mode", "arm", "transport")}
    row["fault policy"] = report.get("fault_policy")
    row["interrupted"] = report.get("interrupted")
    if isinstance(xr, Mapping):
        row["XR"] = xr.get("kind")
        row["XR frames"] = xr.get("frames")
        row["XR dropped"] = xr.get("dropped")
        rejects = {k: v for k, v in (xr.get("rejects") or {}).items() if v}
        row["XR rejects"] = ", ".join(f"{k} {v}" for k, v in rejects.items()) or "none"
        row["XR worst poll [ms]"] = xr.get("worst_poll_ms")
    if isinstance(loop, Mapping):
        row.update({f"loop {k.replace('_', ' ')}": v for k, v in loop.items()})
    return Table.from_mapping(row, "the run: settings, loop timing (all arms), XR input")


def _value(side: Mapping[str, Any], key: str) -> Any:
    value = side.get(key)
    return "none" if key == "safe_stop" and not value else value


def _peak(side: Mapping[str, Any], key: str) -> Any:
    value = side.get(key)
    return value.get("max") if isinstance(value, Mapping) else value


def _stage_row(arm: str, stage: str, values: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"arm": arm, "stage": stage}
    if isinstance(values, Mapping):
        for k, v in values.items():
            if not isinstance(v, Mapping | list):
                row[_stage_label(k)] = v
    return row


def _stage_label(key: str) -> str:
    """``p50_us`` → ``p50 [µs]``; other keys as they are."""
    return f"{key[:-3]} [µs]" if key.endswith("_us") else key
