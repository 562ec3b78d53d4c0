"""``mjscope rm-emulator``: an emulated RealMan arm controller on 127.0.0.1.

The real teleop path without hardware: run this in one terminal and
``mjscope teleop --real --left-addr 127.0.0.1:PORT`` in another.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``rm-emulator`` subcommand."""
    p = sub.add_parser(
        "rm-emulator",
        help="emulate a RealMan arm controller on 127.0.0.1 (JSON over TCP, UDP push)",
        description="Serve the RealMan JSON protocol on 127.0.0.1: joint moves under the arm's "
        "limits, realtime push datagrams, everything the vendor SDK asks on connect. "
        "Example: mjscope rm-emulator --port 8080",
    )
    p.add_argument("--port", type=int, default=8080, help="TCP port (default 8080; 0 = free)")
    p.add_argument("--arm", choices=("rm75",), default="rm75", help="arm model (default rm75)")
    p.add_argument(
        "--push-port",
        type=int,
        default=None,
        help="push to 127.0.0.1:PORT from the start (default: off until a client sets it)",
    )
    p.add_argument(
        "--joints-deg",
        default=None,
        metavar="A,B,...",
        help="power-on joint angles [deg], one per joint (default: the rig's "
        "initial_joint_pose_deg of --side), e.g. 0,-30,0,-90,0,-60,0",
    )
    p.add_argument("--config", default=None, help="rig YAML (default: dual_arm_rm75.yaml)")
    p.add_argument(
        "--side", choices=("left", "right"), default="left", help="whose initial pose (left)"
    )
    faults = p.add_argument_group("faults (for tests)")
    faults.add_argument(
        "--drop", type=float, default=0.0, metavar="P", help="lose each push datagram with P"
    )
    faults.add_argument(
        "--delay-ms", type=float, default=0.0, metavar="D", help="delay replies and pushes [ms]"
    )
    faults.add_argument(
        "--jitter-ms", type=float, default=0.0, metavar="J", help="further random delay 0..J [ms]"
    )
    faults.add_argument(
        "--disconnect-after",
        type=float,
        default=None,
        metavar="S",
        help="go away after S seconds: close every connection, stop the push, refuse new ones",
    )
    faults.add_argument("--seed", type=int, default=0, help="seed of jitter and drops (0)")
    p.add_argument("--duration", type=float, default=None, help="run time [s] (default: Ctrl-C)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until ``--duration``, SIGTERM or Ctrl-C."""
    from mjscope.cli._common import cfg_from_args, console, split_list
    from mjscope.exceptions import MjscopeError
    from mjscope.teleop.emulator.run import RmEmulatorCmdCfg, run_rm_emulator

    joints = None
    if args.joints_deg is not None:
        try:
            joints = tuple(float(v) for v in split_list(args.joints_deg))
        except ValueError:
            raise MjscopeError(
                f"--joints-deg {args.joints_deg!r} must be numbers [deg], e.g. 0,-30,0,-90,0,-60,0"
            ) from None
    cfg = cfg_from_args(RmEmulatorCmdCfg, args, joints_deg=joints)
    return run_rm_emulator(cfg, console(args))
