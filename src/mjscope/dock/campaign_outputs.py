"""A campaign's ``--json`` summary and ``--html`` page (:mod:`mjscope.dock.outputs`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from mjscope.dock.campaign_plan import CampaignCmdCfg, Plan
from mjscope.dock.campaign_results import Tally
from mjscope.dock.html_page import campaign_page
from mjscope.dock.outputs import figures_for_page, pngs, write_outputs
from mjscope.dock.summary import campaign_summary


def _draw(p: Plan, tallies: Sequence[Tally], folder: Path) -> list[Path]:
    if p.scene.mode != "docking" or not any(t.runs for t in tallies):
        return []
    from mjscope.dock.campaign_plots import plot_campaign  # matplotlib only when plotting

    return plot_campaign(list(tallies), folder)


def write_campaign_outputs(cmd: CampaignCmdCfg, p: Plan, tallies: Sequence[Tally],
                           files: Sequence[Path], code: int, con: Console) -> None:  # fmt: skip
    """Write the campaign's ``--json`` summary and ``--html`` page (when asked for).

    The summary has per controller successes, trials, rate, Wilson band and failed trials; the
    page's figures are the campaign's plots, drawn into a temporary folder if needed.
    """
    if cmd.json is None and cmd.html is None:
        return
    head: dict[str, Any] = {"scene": p.scene.name, "mode": p.scene.mode,
                            "trials": p.campaign.trials, "seed": p.campaign.seed,
                            "min_success_rate": p.campaign.min_success_rate,
                            "interrupted": code == 130}  # fmt: skip
    summaries = [t.summary() for t in tallies]
    summary = campaign_summary(head, summaries, files, code)
    with figures_for_page(cmd.html is not None, pngs(files),
                          lambda tmp: _draw(p, tallies, tmp)) as figs:  # fmt: skip
        write_outputs(con, cmd.json, summary, cmd.html,
                      lambda: campaign_page(head, summaries, figs, code))  # fmt: skip
