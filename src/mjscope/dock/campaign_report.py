"""A campaign's summary files and console output (the table itself is streamed elsewhere)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mjscope.dock.campaign_plan import Plan, perturb_text, replay_command
from mjscope.dock.campaign_results import Tally, markdown
from mjscope.paths import write_json, write_text
from mjscope.runner import ExecutorCfg

MAX_LISTED = 20  # failed trials listed per controller on the console


def write_summary(
    p: Plan, tallies: dict[str, Tally], outputs: dict[str, Path], interrupted: bool, done: int
) -> list[Path]:
    """Write ``summary.md`` and ``summary.json`` (no wall times: they are deterministic).

    Args:
        p: The campaign.
        tallies: Results per controller.
        outputs: Output paths by file name.
        interrupted: Whether the run was stopped early.
        done: Runs finished.

    Returns:
        The two paths.
    """
    summaries = [t.summary() for t in tallies.values()]
    worst, worst_json = [], []
    for t in tallies.values():
        for row in t.worst_rows():
            cmd = replay_command(p, t.name, int(row["trial"]))
            worst.append(f"| {t.name} | {row['trial']} | {_fmt(row['margin'])} | "
                         f"{row['failed_checks'] or '-'} | `{cmd}` |")  # fmt: skip
            worst_json.append({"controller": t.name, "trial": row["trial"],
                               "margin": _fmt(row["margin"]), "replay": cmd})  # fmt: skip
    head = {"scene": p.scene.name, "trials": p.campaign.trials, "seed": p.campaign.seed,
            "perturb": perturb_text(p.campaign), "interrupted": interrupted, "done": done,
            "planned": p.size}  # fmt: skip
    md = write_text(outputs["summary.md"], markdown(head, summaries, worst))
    doc = {**head, "controllers": summaries, "worst": worst_json,
           "perturb_cfg": dataclasses.asdict(p.campaign.perturb)}  # fmt: skip
    return [md, write_json(outputs["summary.json"], doc)]


def _fmt(v: float) -> str:
    return "nan" if math.isnan(v) else f"{v:.3g}"


def timing(p: Plan, ex: ExecutorCfg, wall: float, done: int) -> dict[str, Any]:
    """``timing.json``'s content: backend, runs, wall time [s], runs per second."""
    backend = f"ray {ex.ray}" if ex.ray else f"local jobs={ex.jobs or 'all cores'}"
    return {"backend": backend, "runs": done, "wall_time_s": wall,
            "runs_per_s": done / wall if wall > 0 else math.nan}  # fmt: skip


def print_summary(
    con: Console, p: Plan, tallies: dict[str, Tally], files: list[Path], wall: float, done: int
) -> None:
    """Print the per-controller table, the throughput and the files written."""
    table = Table(title=f"campaign {p.scene.name}: {p.campaign.trials} trials, seed "
                  f"{p.campaign.seed}")  # fmt: skip
    for col in ("controller", "runs", "successes", "errors", "rate", "Wilson 95 %"):
        table.add_column(col)
    for t in tallies.values():
        s = t.summary()
        rate = "n/a" if s["success_rate"] is None else f"{s['success_rate']:.3f}"
        lo, hi = s["wilson95_low"], s["wilson95_high"]
        ci = "n/a" if lo is None else f"[{lo:.3f}, {hi:.3f}]"
        table.add_row(t.name, str(t.runs), str(t.successes), str(t.errors), rate, ci)
    con.print(table)
    floor = p.campaign.min_success_rate
    for t in tallies.values():
        s = t.summary()
        below = floor is not None and (s["success_rate"] is None or s["success_rate"] < floor)
        if below:
            con.print(f"[red]{t.name}: success rate below min_success_rate {floor:g}[/red]")
        if t.failed:
            shown = ", ".join(str(k) for k in t.failed[:MAX_LISTED])
            more = f" (+{len(t.failed) - MAX_LISTED} more)" if len(t.failed) > MAX_LISTED else ""
            con.print(f"{t.name} failed trials {shown}{more}; replay one with: "
                      f"{replay_command(p, t.name, t.failed[0])}")  # fmt: skip
    con.print(f"{done} runs in {wall:.1f} s ({done / max(wall, 1e-9):.2f} runs/s)")
    for f in files:
        con.print(f"wrote {f}")
