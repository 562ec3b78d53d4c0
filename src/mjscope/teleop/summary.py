"""The console summary of a teleop run: per arm counters and stage times, and how it ended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from mjscope.paths import STDOUT
from mjscope.text import plural


def stage_line(stages: dict[str, dict[str, Any]]) -> str:
    """``target 12/30, ik 40/90, …`` for the stages that ran."""
    parts = [
        f"{name} {st['p50_us']:.0f}/{st['p99_us']:.0f}"
        for name, st in stages.items()
        if st["n"] and st["p50_us"] is not None
    ]
    return ", ".join(parts) or "none"


def print_summary(
    con: Console,
    report: dict[str, Any],
    report_path: Path | None,
    log_path: Path | None,
    html_path: Path | None = None,
) -> None:
    """Per side: cycles, rate, clutch, resets, IK rejects, clamps, timeouts, safe stop."""
    for side, r in report["sides"].items():
        clamps = {k: v for k, v in r["clamps"].items() if v} or "none"
        con.print(
            f"{side:>6}: {plural(r['cycles'], 'cycle')} ({r['rate_hz']:.1f} Hz), "
            f"{plural(r['clutch_engagements'], 'engagement')}, {plural(r['resets'], 'reset')}, "
            f"QP failures {r['qp_failures']}, clamps {clamps}, "
            f"XR timeouts {r['xr_timeouts']}, feedback timeouts {r['feedback_timeouts']}",
            soft_wrap=True,
        )
        con.print(f"{side:>6}: stage p50/p99 [µs]: {stage_line(r['stages'])}", soft_wrap=True)
        if r["safe_stop"]:
            con.print(f"[red]{side}: safe stop: {r['safe_stop']}[/]", soft_wrap=True)
    mirror = report.get("mujoco")
    if mirror and mirror.get("error"):
        con.print(f"[yellow]MuJoCo mirror: {mirror['error']} (teleop was not affected)[/]")
    if mirror and mirror.get("record"):
        con.print(f"wrote {mirror['record']}")
    for p in (report_path, log_path, html_path):
        if p is not None and str(p) != STDOUT:
            con.print(f"wrote {p}")


def print_end(
    con: Console, fault: tuple[str, str] | None, interrupted: bool, isolate: bool
) -> None:
    """How the run ended: the first safe stop (arm and cause), or the interrupt."""
    if fault is not None:
        side, why = fault
        how = (
            "the other arm kept running (--isolate-faults)"
            if isolate
            else "every arm was stopped and the run ended (--isolate-faults keeps the others)"
        )
        con.print(f"[red]teleop: safe stop of the {side} arm: {why}; {how}[/]", soft_wrap=True)
    if interrupted:
        con.print("teleop: interrupted; every arm braked to rest before the last command")
