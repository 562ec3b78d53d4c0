"""Docking envelope: success rate vs the magnitude of one initial error, per controller.

``mjscope dock --scene S --controller a,b --envelope lateral=0:3e-3:7`` runs, for each of the 7
magnitudes ``m`` from 0 to 3 mm and each controller, ``--trials`` trials in which only that
error varies (the scene is otherwise nominal):

- ``lateral=`` [m]: the dock moves by ``m`` in a random horizontal direction;
- ``yaw=`` [deg]: the dock turns by ``±m`` about its axis;
- ``tilt=`` [deg]: the dock tilts by ``m`` about a random horizontal axis.

As in a campaign the controller aims at the nominal dock, so the offset is an error it must
absorb. Trial ``k`` at level ``i`` draws its direction from ``(seed, i, k)`` only, so every
controller meets the same trials. The items run on the campaign executor (this process, local
processes or Ray). Each level gets a success rate with its Wilson 95 % interval; the files are
``OUT/envelope/<scene>/envelope.csv``, ``envelope.md`` and ``envelope.png`` (success curves with
their bands): "how far off can it start", the way docking results are published.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mjscope.dock.campaign import run_drawn
from mjscope.dock.campaign_plan import CampaignCmdCfg
from mjscope.dock.campaign_results import cell, wilson
from mjscope.dock.config import SceneCfg
from mjscope.dock.html_page import envelope_page
from mjscope.dock.outputs import check_outputs, write_outputs
from mjscope.dock.perturb import Draw
from mjscope.dock.run_docking import quick_duration, resolve_controller
from mjscope.dock.scene import load_scene
from mjscope.dock.summary import envelope_summary
from mjscope.exceptions import ConfigError
from mjscope.paths import check_writable, write_text
from mjscope.runner import run_items

KINDS = {"lateral": "m", "yaw": "deg", "tilt": "deg"}
MAX_LEVELS = 100
COLUMNS = ("controller", "magnitude", "trials", "successes", "rate", "wilson95_low",
           "wilson95_high", "failed_trials")  # fmt: skip


@dataclass(frozen=True)
class Envelope:
    """The swept error: ``kind`` (``lateral`` [m], ``yaw``/``tilt`` [deg]) and its magnitudes."""

    kind: str
    magnitudes: tuple[float, ...]

    @property
    def unit(self) -> str:
        """Unit of the magnitudes."""
        return KINDS[self.kind]


def parse_envelope(text: str) -> Envelope:
    """``KIND=LO:HI:N`` (N magnitudes from LO to HI) or ``KIND=a,b,c`` (explicit ones).

    Raises:
        ConfigError: Unknown kind, bad numbers, negative magnitudes or a bad count.
    """
    kind, sep, spec = text.partition("=")
    kind = kind.strip()
    fix = "give e.g. --envelope lateral=0:3e-3:7, yaw=0:10:6 or tilt=0,1,2"
    if not sep or kind not in KINDS:
        raise ConfigError(f"--envelope {text!r}: kind must be one of {', '.join(KINDS)}; {fix}")
    try:
        if ":" in spec:
            lo, hi, n = spec.split(":")
            count = int(n)
            if not 1 <= count <= MAX_LEVELS:
                raise ConfigError(f"--envelope {text!r}: N must be 1..{MAX_LEVELS}; {fix}")
            values = np.linspace(float(lo), float(hi), count)
        else:
            values = np.array([float(x) for x in spec.split(",")])
    except ValueError:
        raise ConfigError(f"--envelope {text!r}: cannot read the magnitudes; {fix}") from None
    if values.size == 0 or not np.all(np.isfinite(values)) or values.min() < 0:
        raise ConfigError(f"--envelope {text!r}: magnitudes must be finite and >= 0; {fix}")
    return Envelope(kind, tuple(float(x) for x in values))


@dataclass(frozen=True)
class EnvelopeItem:
    """One trial: level ``level`` (magnitude ``magnitude``), trial ``trial``, ``controller``."""

    scene: SceneCfg
    kind: str
    level: int
    magnitude: float
    trial: int
    controller: str
    seed: int
    duration: float | None


def envelope_draw(item: EnvelopeItem, nq: int) -> Draw:
    """The trial's dock offset: magnitude ``item.magnitude``, direction from (seed, level, k)."""
    rng = np.random.default_rng([item.seed, item.level, item.trial])
    phi = float(rng.uniform(0.0, 2 * math.pi))
    m = item.magnitude
    dpos, drpy = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    if item.kind == "lateral":
        dpos = (m * math.cos(phi), m * math.sin(phi), 0.0)
    elif item.kind == "yaw":
        drpy = (0.0, 0.0, m if phi < math.pi else -m)
    else:  # tilt: about the horizontal axis (cos φ, sin φ, 0), small-angle roll/pitch
        drpy = (m * math.cos(phi), m * math.sin(phi), 0.0)
    return Draw(
        (0.0,) * nq, dpos, drpy, None, None, (0.0, 0.0), (item.seed, item.level, item.trial)
    )


def run_envelope_trial(item: EnvelopeItem) -> dict[str, Any]:
    """Run one envelope trial; ``{success, status, failed_checks}`` (deterministic)."""
    from mjscope.dock.scene import Scene

    nq = Scene(item.scene).build_mjmodel().nq
    _, gate, status = run_drawn(item.scene, envelope_draw(item, nq), item.controller,
                                item.duration)  # fmt: skip
    failed = ";".join(c.name for c in gate.checks if not c.passed)
    return {"success": bool(gate.passed) and status == "ok", "status": status, "failed": failed}


@dataclass
class Level:
    """Results of one controller at one magnitude."""

    magnitude: float
    trials: int = 0
    successes: int = 0
    failed: list[int] | None = None

    def row(self, controller: str) -> dict[str, Any]:
        """The table row (see :data:`COLUMNS`)."""
        lo, hi = wilson(self.successes, self.trials) if self.trials else (math.nan, math.nan)
        rate = self.successes / self.trials if self.trials else math.nan
        failed = " ".join(str(k) for k in self.failed or [])
        return {"controller": controller, "magnitude": self.magnitude, "trials": self.trials,
                "successes": self.successes, "rate": rate, "wilson95_low": lo,
                "wilson95_high": hi, "failed_trials": failed}  # fmt: skip


def items(cfg: SceneCfg, env: Envelope, controllers: tuple[str, ...], trials: int, seed: int,
          duration: float | None) -> Iterator[EnvelopeItem]:  # fmt: skip
    """Level-major, then trial, then controller."""
    for i, m in enumerate(env.magnitudes):
        for k in range(trials):
            for c in controllers:
                yield EnvelopeItem(cfg, env.kind, i, m, k, c, seed, duration)


def run_envelope(cmd: CampaignCmdCfg, text: str, con: Console) -> int:
    """Run the envelope study of ``cmd`` for ``--envelope text``; print and write the results.

    Returns:
        0 when it ran (a study, not a check), 130 when interrupted (nothing written).

    Raises:
        MjscopeError: A user error (scene, controller, envelope, output folder, Ray).
    """
    env = parse_envelope(text)
    scene = load_scene(cmd.scene)
    if scene.cfg.dock is None:
        raise ConfigError(f"--envelope needs a docking scene; {scene.name!r} has no dock")
    controllers = tuple(dict.fromkeys(resolve_controller(c) for c in cmd.controllers))
    trials = cmd.trials if cmd.trials is not None else 10
    if trials < 1:
        raise ConfigError(f"--trials {trials}: give at least 1 trial per magnitude")
    seed = scene.cfg.campaign.seed if cmd.seed is None else cmd.seed
    folder = Path(cmd.out) / "envelope" / scene.name
    paths = {n: check_writable(folder / n) for n in ("envelope.csv", "envelope.md", "envelope.png")}
    check_outputs(cmd.json, cmd.html)
    duration = quick_duration(scene) if cmd.quick else None
    levels = {c: [Level(m, failed=[]) for m in env.magnitudes] for c in controllers}
    all_items = list(items(scene.cfg, env, controllers, trials, seed, duration))
    results = run_items(run_envelope_trial, all_items, cmd.executor, label="envelope trials")
    try:
        with contextlib.closing(results):
            for r in results:
                it = all_items[r.index]
                lv = levels[it.controller][it.level]
                lv.trials += 1
                ok = bool(r.ok and r.value["success"])
                lv.successes += ok
                if not ok and lv.failed is not None:
                    lv.failed.append(it.trial)
    except KeyboardInterrupt:
        con.print("interrupted: the envelope files were not written")
        return 130
    rows = [lv.row(c) for c in controllers for lv in levels[c]]
    files = _write(rows, env, scene.name, trials, seed, paths)
    _print(con, rows, env, scene.name, trials)
    for f in files:
        con.print(f"wrote {f}")
    head = {"scene": scene.name, "swept": env.kind, "unit": env.unit, "trials": trials,
            "seed": seed, "controllers": list(controllers)}  # fmt: skip
    write_outputs(con, cmd.json, envelope_summary(head, rows, files), cmd.html,
                  lambda: envelope_page(head, rows, paths["envelope.png"]))  # fmt: skip
    return 0


def _write(rows: list[dict[str, Any]], env: Envelope, name: str, trials: int, seed: int,
           paths: dict[str, Path]) -> list[Path]:  # fmt: skip
    csv = (
        ",".join(COLUMNS)
        + "\n"
        + "".join(",".join(cell(r[k]) for k in COLUMNS) + "\n" for r in rows)
    )
    title = (f"# {name}: docking envelope over {env.kind} [{env.unit}], {trials} trials per "
             f"magnitude, seed {seed}\n\n")  # fmt: skip
    md = [title, "| controller | " + f"{env.kind} [{env.unit}]" + " | successes | rate | "
          "Wilson 95 % | failed trials |\n", "|---|---|---|---|---|---|\n"]  # fmt: skip
    for r in rows:
        md.append(f"| {r['controller']} | {r['magnitude']:.4g} | {r['successes']}/{r['trials']} | "
                  f"{r['rate']:.2f} | [{r['wilson95_low']:.2f}, {r['wilson95_high']:.2f}] | "
                  f"{r['failed_trials'] or '-'} |\n")  # fmt: skip
    files = [write_text(paths["envelope.csv"], csv), write_text(paths["envelope.md"], "".join(md))]
    from mjscope.dock.envelope_plot import plot_envelope  # matplotlib only here

    files.append(plot_envelope(rows, env.kind, name, paths["envelope.png"]))
    return files


def _print(con: Console, rows: list[dict[str, Any]], env: Envelope, name: str, trials: int) -> None:
    unit = escape(f"[{env.unit}]")  # (rich would read "[m]" as markup)
    table = Table(title=f"{name}: success vs {env.kind} {unit} ({trials} trials each)")
    for col in ("controller", f"{env.kind} {unit}", "successes", "rate", "Wilson 95 %"):
        table.add_column(col)
    for r in rows:
        ci = escape(f"[{r['wilson95_low']:.2f}, {r['wilson95_high']:.2f}]")
        table.add_row(r["controller"], f"{r['magnitude']:.4g}",
                      f"{r['successes']}/{r['trials']}", f"{r['rate']:.2f}", ci)  # fmt: skip
    con.print(table)
