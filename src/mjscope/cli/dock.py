"""``mjscope dock``: run a docking or tracking scene, print metrics and the PASS/FAIL gate.

This module only builds the parser and turns the arguments into a
:class:`~mjscope.dock.config.DockCmdCfg`; :func:`mjscope.dock.session.run_dock` does the rest.
Exit codes: 0 gate PASS, 1 gate FAIL (or the run stopped early), 2 a user error. With several
controllers (``--controller cic,se3_lie``): 0 only when every controller's gate passes.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from mjscope.dock.config import DockCmdCfg


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``dock`` subcommand."""
    p = sub.add_parser(
        "dock",
        help="docking/tracking control experiment: metrics and a PASS/FAIL gate",
        description="Run a scene (bundled name or YAML file) with a controller at 1 kHz, "
        "print the metrics and the gate; exit 1 on FAIL.",
    )
    p.add_argument("--scene", default="iiwa14_docking", help="bundled scene name or YAML file")
    p.add_argument(
        "--controller",
        default="cic",
        help="controller, or a comma-separated list run side by side on the same scene "
        "(cic,se3_lie: one comparison table + overlay figures; exit 1 unless every gate passes)",
    )
    p.add_argument("--quick", action="store_true", help="shorter run (time budget + 0.5 s)")
    p.add_argument("--plot", action="store_true", help="write figures into OUT/figure/<scene>/")
    p.add_argument("--record", action="store_true", help="write OUT/video/<scene>_<ctrl>.mp4")
    fc = p.add_mutually_exclusive_group()
    fc.add_argument("--friction-comp", dest="friction_comp", action="store_true", default=None,
                    help="force friction/damping feed-forward on")  # fmt: skip
    fc.add_argument("--no-friction-comp", dest="friction_comp", action="store_false",
                    help="force friction/damping feed-forward off")  # fmt: skip
    p.add_argument("--lang", choices=("en", "zh"), default="en",
                   help="figure labels: en, or zh (needs a CJK font: fonts-noto-cjk)")  # fmt: skip
    p.add_argument("--out", default="mjscope-out", help="output folder (default ./mjscope-out)")
    p.add_argument("--html", default=None, metavar="FILE",
                   help="one-page HTML report of the run: verdict, gate, metrics, figures "
                   "(every mode: single, --controller a,b, --trials, --envelope)")  # fmt: skip
    p.add_argument("--list", action="store_true", help="list the bundled scenes and exit")
    p.add_argument("--calibrate", action="store_true",
                   help="identify the tool's mass, centre of mass and the F/T bias from "
                   "a short free-space excitation (least squares); compare with the "
                   "scene's")  # fmt: skip
    from mjscope.cli._campaign import add_campaign_arguments

    add_campaign_arguments(p)  # --trials/--seed/--trial/--perturb/--jobs/--ray
    p.set_defaults(func=run)


def to_cfg(args: argparse.Namespace) -> DockCmdCfg:
    """The parsed arguments as the feature's command configuration."""
    from mjscope.cli._common import cfg_from_args
    from mjscope.dock.config import DockCmdCfg

    return cfg_from_args(DockCmdCfg, args, out=Path(args.out), list_scenes=args.list)


def run(args: argparse.Namespace) -> int:
    """Run the scene (or list the scenes) and print the report; returns the exit code."""
    from mjscope.cli._campaign import campaign_cfg, is_campaign, is_envelope
    from mjscope.cli._common import console

    if is_envelope(args):  # --envelope KIND=LO:HI:N: success vs magnitude per controller
        from mjscope.dock.envelope import run_envelope

        return run_envelope(campaign_cfg(args), args.envelope, console(args))

    if is_campaign(args):  # --trials N or --trial K: a Monte-Carlo campaign (or one trial)
        from mjscope.dock.campaign import run_campaign

        return run_campaign(campaign_cfg(args), console(args))
    from mjscope.dock.session import run_dock

    return run_dock(to_cfg(args), console(args))


def demo(out: Path, con: Console) -> tuple[list[Path], int]:
    """Quick iiwa14 docking run with plots into ``out/dock/`` (files written, exit code)."""
    from mjscope.dock.demo import run_demo

    return run_demo(out, con)
