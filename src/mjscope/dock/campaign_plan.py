"""A campaign's plan: the command's options resolved against the scene's ``campaign:`` section.

:func:`plan` reads the scene, canonicalises the controller names, applies ``--trials``,
``--seed`` and ``--perturb`` over the scene's defaults and checks them; :meth:`Plan.items` lists
the work items (trial-major, controllers in the order given). :func:`replay_command` is the
command line that re-runs one trial alone.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mjscope.dock.config import CampaignCfg, SceneCfg
from mjscope.dock.perturb import check_campaign, parse_perturb
from mjscope.dock.run_docking import quick_duration, resolve_controller
from mjscope.dock.scene import Scene, load_scene
from mjscope.exceptions import ConfigError
from mjscope.runner import ExecutorCfg


@dataclass(frozen=True)
class CampaignCmdCfg:
    """Options of ``mjscope dock --trials N`` / ``--trial K``.

    Attributes:
        scene: Bundled scene name or scene YAML file.
        controllers: Controllers compared on the same trials.
        trials: Trials per controller (``None``: the scene's ``campaign.trials``).
        seed: Campaign seed (``None``: the scene's ``campaign.seed``).
        trial: Run only this trial (a replay) instead of the campaign.
        perturb: ``--perturb`` overrides of the scene's ``campaign.perturb`` (``key=value,...``).
        quick: Shorter trials (the time budget + 0.5 s).
        plot: Write the distribution figures.
        out: Output root; files go into ``out/campaign/<scene>/``.
        executor: Where the trials run (``--jobs``, ``--ray``).
        json: Write the summary as JSON here (``-``: stdout; :mod:`mjscope.dock.summary`).
        html: Write the one-page HTML report here (:mod:`mjscope.dock.html_page`).
    """

    scene: str = "iiwa14_docking"
    controllers: tuple[str, ...] = ("cic",)
    trials: int | None = None
    seed: int | None = None
    trial: int | None = None
    perturb: str = ""
    quick: bool = False
    plot: bool = True
    out: Path = Path("mjscope-out")
    executor: ExecutorCfg = field(default_factory=ExecutorCfg)
    json: str | None = None
    html: str | None = None


@dataclass(frozen=True)
class TrialItem:
    """One work item: everything a worker needs to run trial ``trial`` of ``controller``.

    Attributes:
        scene: The scene configuration as written (validated).
        campaign: Trials, seed and perturbation ranges.
        trial: Trial index ``k`` (0-based).
        controller: Controller name.
        duration: Simulated time per trial [s] (``None``: the scene's).
    """

    scene: SceneCfg
    campaign: CampaignCfg
    trial: int
    controller: str
    duration: float | None


@dataclass(frozen=True)
class Plan:
    """A resolved campaign: scene, controllers, ranges, duration, output folder."""

    cmd: CampaignCmdCfg
    scene: Scene
    controllers: tuple[str, ...]
    campaign: CampaignCfg
    duration: float | None
    folder: Path

    def items(self) -> Iterator[TrialItem]:
        """Items in table order: trial-major, controllers in the order given."""
        for k in range(self.campaign.trials):
            for c in self.controllers:
                yield TrialItem(self.scene.cfg, self.campaign, k, c, self.duration)

    @property
    def size(self) -> int:
        """Number of items."""
        return self.campaign.trials * len(self.controllers)


def plan(cmd: CampaignCmdCfg) -> Plan:
    """Resolve the options against the scene's ``campaign:`` section.

    Raises:
        UnknownNameError: Unknown scene or controller.
        ConfigError: Bad trial count, seed, trial index or perturbation.
    """
    scene = load_scene(cmd.scene)
    if not cmd.controllers:
        raise ConfigError("--controller: give at least one controller, e.g. cic,se3_lie")
    controllers = tuple(dict.fromkeys(resolve_controller(c) for c in cmd.controllers))
    base = scene.cfg.campaign
    perturb = parse_perturb(cmd.perturb, base.perturb) if cmd.perturb else base.perturb
    campaign = dataclasses.replace(
        base,
        trials=base.trials if cmd.trials is None else cmd.trials,
        seed=base.seed if cmd.seed is None else cmd.seed,
        perturb=perturb,
    )
    check_campaign(campaign, f"scene {scene.name!r} campaign")
    if cmd.trial is not None and cmd.trial < 0:
        raise ConfigError(f"--trial {cmd.trial}: give a trial index >= 0")
    duration = quick_duration(scene) if cmd.quick else None
    folder = Path(cmd.out) / "campaign" / scene.name
    return Plan(cmd, scene, controllers, campaign, duration, folder)


def replay_command(p: Plan, controller: str, trial: int) -> str:
    """The command that re-runs one trial alone."""
    words = ["mjscope", "dock", "--scene", p.cmd.scene, "--controller", controller,
             "--seed", str(p.campaign.seed), "--trial", str(trial)]  # fmt: skip
    if p.cmd.perturb:
        words += ["--perturb", p.cmd.perturb]
    if p.cmd.quick:
        words.append("--quick")
    return shlex.join(words)


def perturb_text(c: CampaignCfg) -> str:
    """The non-zero perturbations, for the summary."""
    p, parts = c.perturb, []
    if p.q0:
        parts.append(f"q0 ±{p.q0:g} rad")
    if any(p.dock_pos):
        parts.append("dock_pos ±" + "/".join(f"{1e3 * x:g}" for x in p.dock_pos) + " mm")
    if any(p.dock_rpy_deg):
        parts.append("dock_rpy ±" + "/".join(f"{x:g}" for x in p.dock_rpy_deg) + " deg")
    if p.friction:
        parts.append(f"friction {p.friction[0]:g}..{p.friction[1]:g}")
    if p.tool_mass:
        parts.append(f"tool_mass {p.tool_mass[0]:g}..{p.tool_mass[1]:g} kg")
    if any(p.ft_noise):
        parts.append(f"F/T noise σ {p.ft_noise[0]:g} N / {p.ft_noise[1]:g} N·m")
    return ", ".join(parts)
