"""``mjscope hand``: the LinkerHand G20 bridge in MuJoCo (seed 000, §11 flags).

Default: listen for legacy 0–255 commands on ``/g20/cb_left_hand_control_cmd``, hard-write with
penetration projection, slew 5 rad/s, publish ``/sim/mujoco/g20/left/joint_state`` at 50 Hz.
``--track-test`` runs the built-in tracking check (exit 0 PASS, 1 FAIL; the Isaac script used
2); ``--command`` applies one pose and reports it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

DEFAULT_MODEL = "g20_left"  # mjscope.hand.session.DEFAULT_MODEL (not imported: keeps --help fast)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``hand`` subcommand."""
    from mjscope.cli._common import add_bus_arguments, add_model_arguments, add_size_argument

    p = sub.add_parser("hand", help="dexterous-hand bridge: SDK/radian commands → MuJoCo hand")
    p.add_argument("--model", default=DEFAULT_MODEL, help="bundled name or URDF/MJCF file")
    p.add_argument("--profile", default="g20_left", help="bundled profile name or YAML file")
    add_model_arguments(p)
    p.add_argument("--plan-nominal", action="store_true", help="listen for radians by joint name")
    p.add_argument("--legacy-sdk", action="store_true", help="real driver topics /cb_left_hand_*")
    p.add_argument("--pd-drive", action="store_true", help="PD actuators + mj_step")
    p.add_argument("--hand-gravity", action="store_true", help="gravity on the hand (PD only)")
    p.add_argument(
        "--no-self-collision",
        action="store_true",
        help="off: penetration projection (hard-write), hand-hand contacts (PD)",
    )
    p.add_argument("--collide-all", action="store_true", help="g20_left: every link collides")
    p.add_argument(
        "--slew-rad-s",
        type=float,
        default=None,
        help="max joint speed [rad/s] (default 5, 0 = instant; track test 0)",
    )
    p.add_argument("--slew-rad", type=float, default=None, help=argparse.SUPPRESS)  # Isaac's flag
    p.add_argument(
        "--penetration-tol",
        type=float,
        default=1e-3,
        help="allowed penetration [m] (default 0.001)",
    )
    p.add_argument("--publish-sdk-state", action="store_true", help="also publish 0–255 state")
    p.add_argument("--track-test", action="store_true", help="built-in tracking check")
    p.add_argument(
        "--command",
        dest="pose",
        default=None,
        help="open | fist | FILE (YAML/JSON: sdk: [20 values] or joint: rad): apply once, report",
    )
    add_bus_arguments(p)
    p.add_argument("--viewer", choices=("none", "native"), default="none")
    p.add_argument("--record", default=None, metavar="FILE", help="video .mp4/.gif")
    p.add_argument("--snapshot", default=None, metavar="FILE", help="final pose .png")
    add_size_argument(p)
    p.add_argument("--duration", type=float, default=None, help="run time [s] (default: forever)")
    p.add_argument("--report", default=None, metavar="FILE", help="same as --json FILE")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the bridge, the track test or a single command."""
    from mjscope.cli._common import cfg_from_args, console, is_terminal, load_options, parse_size
    from mjscope.hand.session import ISAAC_PHYSICS_HZ, HandCmdCfg, run_hand

    if args.slew_rad is not None:
        from mjscope.exceptions import MjscopeError

        raise MjscopeError(
            f"--slew-rad {args.slew_rad:g} is the Isaac bridge's limit in rad per physics step; "
            f"mjscope takes --slew-rad-s in rad/s: at Isaac's {ISAAC_PHYSICS_HZ:g} Hz physics "
            f"that is --slew-rad-s {args.slew_rad * ISAAC_PHYSICS_HZ:g}"
        )

    cfg = cfg_from_args(
        HandCmdCfg,
        args,
        load=load_options(args),
        interactive=is_terminal() and not args.quiet,
        report=args.json or args.report,
        size=parse_size(args.size),
    )
    return run_hand(cfg, console(args))


def demo(out: Path, con: Console) -> tuple[list[Path], int]:
    """Open → fist → open on the bundled hand: a GIF and a PNG strip into ``out/hand/``."""
    from mjscope.hand.demo import run_demo

    return run_demo(out, con)
