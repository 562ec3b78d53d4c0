"""Monte-Carlo docking campaigns: N randomised trials per controller on the shared executor.

Trial ``k`` of controller ``c`` is one small, idempotent work item (:class:`TrialItem`: the
scene configuration, the perturbation ranges, ``seed``, ``k``, ``c``); its numbers come from
``(seed, k)`` only (:mod:`mjscope.dock.perturb`), so every controller meets the same trials and
``--trial K`` replays one exactly. Items run on :func:`mjscope.runner.run_items` (this process,
local processes or Ray) and come back in order; each row goes straight to ``trials.csv`` /
``trials.json`` (:mod:`mjscope.dock.campaign_results`), then the summary (success rate with a
Wilson 95 % interval per controller, worst trials with their replay command), the figures and
``timing.json`` (wall times live only there) are written into ``OUT/campaign/<scene>/``.
"""

from __future__ import annotations

import contextlib
import math
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from mjscope.control.controllers import Controller
from mjscope.dock.campaign_outputs import write_campaign_outputs
from mjscope.dock.campaign_plan import CampaignCmdCfg, Plan, TrialItem, plan
from mjscope.dock.campaign_report import print_summary, timing, write_summary
from mjscope.dock.campaign_results import COLUMNS, Tally, TrialTable, csv_line
from mjscope.dock.config import SceneCfg
from mjscope.dock.gate import GateResult, evaluate_gate
from mjscope.dock.html_page import TRIAL_KEYS, trial_page
from mjscope.dock.metric_units import Metrics
from mjscope.dock.metrics import compute_metrics
from mjscope.dock.outputs import check_outputs, write_outputs
from mjscope.dock.perturb import (
    Draw,
    NoisyWrench,
    TrialScene,
    draw,
    trial_cfgs,
    true_dock_fields,
)
from mjscope.dock.run_docking import (
    ControllerFactory,
    build_controller,
    run_simulation,
)
from mjscope.dock.scene import Scene
from mjscope.dock.summary import trial_summary
from mjscope.paths import check_writable, write_json, write_text
from mjscope.runner import run_items
from mjscope.signals import EXIT_INTERRUPTED

EXIT_OK, EXIT_FAIL = 0, 1
__all__ = [
    "CampaignCmdCfg",
    "Plan",
    "TrialItem",
    "error_row",
    "margin",
    "plan",
    "run_campaign",
    "run_trial",
]


def _factory(name: str, d: Draw, docking: bool) -> ControllerFactory:
    def make(sc: Scene, pin_model: Any, q0: Any) -> Controller:
        ctrl = build_controller(name, sc, pin_model, q0)
        if docking and max(d.ft_noise) > 0:
            return NoisyWrench(ctrl, d.ft_noise, d.noise_seed)
        return ctrl

    return make


def run_trial(item: TrialItem) -> dict[str, Any]:
    """Run one trial and return its table row (see :data:`COLUMNS`).

    The row depends on the item only: no wall time, no process-specific value.
    """
    nominal = Scene(item.scene)
    c = item.campaign
    d = draw(c.perturb, c.seed, item.trial, nominal.build_mjmodel().nq)
    m, gate, status = run_drawn(item.scene, d, item.controller, item.duration)
    row: dict[str, Any] = {k: m.get(k, math.nan) for k in COLUMNS if k in m}
    row.update(
        trial=item.trial, controller=item.controller, success=bool(gate.passed),
        status=status, margin=margin(gate),
        failed_checks=";".join(ch.name for ch in gate.checks if not ch.passed), error="",
    )  # fmt: skip
    row.update(_draw_columns(d, nominal.mode == "docking"))
    return {k: row.get(k, math.nan) for k in COLUMNS}


def run_drawn(
    scene_cfg: SceneCfg, d: Draw, controller: str, duration: float | None
) -> tuple[Metrics, GateResult, str]:
    """Run one perturbed trial: metrics and gate against the true (perturbed) plant, status.

    Args:
        scene_cfg: The scene as written.
        d: The trial's numbers.
        controller: Controller name.
        duration: Simulated time [s] (``None``: the scene's).
    """
    nominal = Scene(scene_cfg)
    belief, plant = trial_cfgs(scene_cfg, nominal.initial_q(nominal.build_mjmodel()), d)
    scene = TrialScene(belief, plant)
    result = run_simulation(scene, _factory(controller, d, scene.mode == "docking"), duration)
    arrays = result.log.arrays()
    truth = Scene(plant)
    if plant.dock is not None:
        arrays = true_dock_fields(arrays, plant.dock)
    m = compute_metrics(arrays, truth, controller)
    return m, evaluate_gate(m, truth), result.status


def margin(gate: GateResult) -> float:
    """The gate's smallest relative margin [-]: > 0 passed with room, < 0 failed; NaN: no data.

    Per check ``(threshold − value)/|threshold|`` for upper limits, the reverse for ``>=``.
    """
    worst = math.inf
    for ch in gate.checks:
        if math.isnan(ch.value):
            return math.nan
        scale = abs(ch.threshold) or 1.0
        m = (ch.value - ch.threshold if ch.op == ">=" else ch.threshold - ch.value) / scale
        worst = min(worst, m)
    return worst if math.isfinite(worst) else math.nan


def _draw_columns(d: Draw, docking: bool) -> dict[str, Any]:
    noise = d.ft_noise if docking else (0.0, 0.0)  # tracking never feeds F/T back
    return {
        "dock_dx": d.dock_dpos[0], "dock_dy": d.dock_dpos[1], "dock_dz": d.dock_dpos[2],
        "dock_droll_deg": d.dock_drpy_deg[0], "dock_dpitch_deg": d.dock_drpy_deg[1],
        "dock_dyaw_deg": d.dock_drpy_deg[2],
        "friction": math.nan if d.friction is None else d.friction,
        "tool_mass": math.nan if d.tool_mass is None else d.tool_mass,
        "q0_offset_max": max((abs(x) for x in d.dq), default=0.0),
        "ft_noise_force": float(noise[0]), "ft_noise_torque": float(noise[1]),
    }  # fmt: skip


def error_row(item: TrialItem, error: str) -> dict[str, Any]:
    """The row of a trial whose run failed after every retry."""
    row: dict[str, Any] = dict.fromkeys(COLUMNS, math.nan)
    row.update(trial=item.trial, controller=item.controller, success=False, status="error",
               failed_checks="", error=error.splitlines()[0] if error else "failed")  # fmt: skip
    return row


def run_campaign(cmd: CampaignCmdCfg, con: Console) -> int:
    """Run a campaign (or, with ``cmd.trial``, replay one trial) and print its summary.

    Returns:
        0 when every trial ran and every controller met ``campaign.min_success_rate`` (when
        set), 1 otherwise, 130 when interrupted (finished trials are kept on disk).

    Raises:
        MjscopeError: A user error (scene, controller, perturbation, output folder, Ray).
    """
    p = plan(cmd)
    if cmd.trial is not None:
        return _replay(p, cmd, con)
    check_outputs(cmd.json, cmd.html)
    names = ("trials.csv", "trials.json", "summary.md", "summary.json", "timing.json")
    outputs = {n: check_writable(p.folder / n) for n in names}
    table = TrialTable(outputs["trials.csv"], outputs["trials.json"])
    tallies = {c: Tally(c) for c in p.controllers}
    start, interrupted = time.perf_counter(), False
    results = run_items(run_trial, p.items(), cmd.executor, total=p.size, label="trials")
    try:
        with contextlib.closing(results):  # stops the workers at once, whatever happens
            for r in results:
                item = _item_of(p, r.index)
                row = r.value if r.ok else error_row(item, r.error)
                table.add(row)
                tallies[item.controller].add(row)
    except KeyboardInterrupt:
        interrupted = True
    except BaseException:
        table.close() if table.rows else table.discard()
        raise
    wall = time.perf_counter() - start
    files = table.close()
    files += write_summary(p, tallies, outputs, interrupted, table.rows)
    write_json(outputs["timing.json"], timing(p, cmd.executor, wall, table.rows))
    files.append(outputs["timing.json"])
    if cmd.plot and table.rows and p.scene.mode == "docking":
        from mjscope.dock.campaign_plots import plot_campaign  # matplotlib only when plotting

        files += plot_campaign(list(tallies.values()), p.folder)
    print_summary(con, p, tallies, files, wall, table.rows)
    code = EXIT_INTERRUPTED if interrupted else _exit_code(p, tallies)
    if interrupted:
        con.print(f"interrupted: kept {table.rows} of {p.size} finished runs")
    write_campaign_outputs(cmd, p, list(tallies.values()), files, code, con)
    return code


def _item_of(p: Plan, index: int) -> TrialItem:
    n = len(p.controllers)
    return TrialItem(p.scene.cfg, p.campaign, index // n, p.controllers[index % n], p.duration)


def _exit_code(p: Plan, tallies: dict[str, Tally]) -> int:
    floor = p.campaign.min_success_rate
    for t in tallies.values():
        if t.errors:
            return EXIT_FAIL
        if floor is not None and (t.runs == 0 or t.successes / t.runs < floor):
            return EXIT_FAIL
    return EXIT_OK


def _replay(p: Plan, cmd: CampaignCmdCfg, con: Console) -> int:
    """Run trial ``cmd.trial`` of every controller here; print and write its rows."""
    k = cmd.trial
    assert k is not None
    check_outputs(cmd.json, cmd.html)
    csv_path = check_writable(p.folder / f"trial_{k}.csv")
    rows = [run_trial(TrialItem(p.scene.cfg, p.campaign, k, c, p.duration))
            for c in p.controllers]  # fmt: skip
    write_text(csv_path, ",".join(COLUMNS) + "\n" + "".join(csv_line(r) + "\n" for r in rows))
    table = Table(title=f"{p.scene.name} trial {k} (seed {p.campaign.seed})")
    for key in TRIAL_KEYS:
        table.add_column(key)
    for r in rows:
        table.add_row(*(str(r[key]) if isinstance(r[key], str | bool) else f"{r[key]:.6g}"
                        for key in TRIAL_KEYS))  # fmt: skip
    con.print(table)
    con.print(f"wrote {csv_path}")
    head = {"scene": p.scene.name, "mode": p.scene.mode, "seed": p.campaign.seed, "trial": k}
    write_outputs(con, cmd.json, trial_summary(head, rows, [csv_path]), cmd.html,
                  lambda: trial_page(head, rows))  # fmt: skip
    return EXIT_OK if all(r["success"] for r in rows) else EXIT_FAIL
