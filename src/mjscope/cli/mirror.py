"""``mjscope mirror``: show a rig's live joint states in MuJoCo, by joint name.

Follows the two arms' ``joint_states`` topics over DDS (ROS 2 wire format) or the in-process
bus, validates every frame whole, writes ``qpos`` by name and calls ``mj_forward`` (never
``mj_step``); the picture refreshes on its own clock at ``render_rate_hz``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

DEFAULT_MODEL = "dual_rm75"  # = mirror.session.DEFAULT_MODEL (not imported: keeps --help fast)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``mirror`` subcommand."""
    from mjscope.cli._common import (
        add_bus_arguments,
        add_map_prefix_argument,
        add_model_arguments,
        add_size_argument,
        add_viewer_argument,
    )

    p = sub.add_parser(
        "mirror",
        help="mirror a rig's live joint states in MuJoCo (by name)",
        description="Follow each side's sensor_msgs/JointState topic (DDS, ROS 2 wire format, or "
        "in-process), validate every frame whole, write qpos by joint name, mj_forward only. "
        "Example: mjscope mirror --demo --duration 5 --record arms.mp4",
    )
    p.add_argument("--model", default=DEFAULT_MODEL, help="bundled name or URDF/MJCF file")
    add_model_arguments(p)
    p.add_argument("--config", default=None, help="rig YAML (default: dual_arm_rm75.yaml)")
    p.add_argument("--mujoco-config", default=None, help="render YAML (dual_arm_mujoco.yaml)")
    p.add_argument("--sides", default=None, help="comma-separated subset of sides, e.g. left")
    add_map_prefix_argument(p)
    add_bus_arguments(p, default=None)  # None: dds, or inproc with --demo
    add_viewer_argument(
        p, "native: MuJoCo window; none: headless; auto: native when DISPLAY is set"
    )
    p.add_argument("--record", default=None, metavar="FILE", help="offscreen video .mp4/.gif")
    p.add_argument("--snapshot", default=None, metavar="FILE", help="final pose as .png")
    add_size_argument(p)
    p.add_argument(
        "--duration", type=float, default=None, help="run time [s] (default: until closed)"
    )
    p.add_argument("--report", default=None, metavar="FILE", help="same as --json FILE")
    p.add_argument("--demo", action="store_true", help="mock arms in this process (inproc)")
    p.add_argument("--motion", choices=("none", "sine"), default="sine", help="--demo motion")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the mirror; exit 1 when a side never delivered a valid frame in ``--duration``."""
    from mjscope.cli._common import (
        cfg_from_args,
        console,
        is_terminal,
        load_options,
        parse_size,
        split_list,
    )
    from mjscope.mirror.session import MirrorCmdCfg, run_mirror

    cfg = cfg_from_args(
        MirrorCmdCfg,
        args,
        load=load_options(args),
        sides=split_list(args.sides),
        live_status=is_terminal() and not args.quiet and args.json != "-",
        report=args.json or args.report,
        size=parse_size(args.size),
    )
    return run_mirror(cfg, console(args))


def demo(out: Path, con: Console) -> tuple[list[Path], int]:
    """Mock arms + mirror in one process (virtual clock): a GIF, a PNG strip and a report."""
    from mjscope.mirror.demo import run_demo

    return run_demo(out, con)
