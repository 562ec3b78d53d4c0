"""``mjscope mock-arm``: mock arm sources publishing ``joint_states`` and ``joint_target``.

Each side starts at its YAML initial pose (degrees → radians) and publishes at
``control_rate_hz``; ``--motion sine`` moves it for demos. A ``reset`` string on the side's
command topic (``std_msgs/String``) returns it to the initial pose at once; ``--send reset``
publishes that command and exits.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``mock-arm`` subcommand."""
    from mjscope.cli._common import add_bus_arguments

    p = sub.add_parser(
        "mock-arm",
        help="publish mock arm joint states (for mirror and tests)",
        description="Publish each side's joint_states and joint_target at control_rate_hz from "
        "the YAML initial pose. Example: mjscope mock-arm --side both --motion sine",
    )
    p.add_argument("--side", choices=("left", "right", "both"), default="both")
    p.add_argument("--motion", choices=("none", "sine"), default="none")
    add_bus_arguments(p)
    p.add_argument("--config", default=None, help="rig YAML (default: dual_arm_rm75.yaml)")
    p.add_argument("--duration", type=float, default=None, help="run time [s] (default: Ctrl-C)")
    p.add_argument(
        "--send", choices=("reset",), default=None, help="send this command to --side and exit"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Publish until ``--duration`` or Ctrl-C (or send one command)."""
    from mjscope.cli._common import cfg_from_args, console
    from mjscope.mirror.mock_session import MockArmCmdCfg, run_mock_arm

    cfg = cfg_from_args(MockArmCmdCfg, args)
    return run_mock_arm(cfg, console(args))
