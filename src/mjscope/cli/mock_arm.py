"""``mjscope mock-arm``: mock arm sources publishing ``joint_states`` and ``joint_target``.

Each side starts at its YAML initial pose (degrees → radians) and publishes at
``control_rate_hz``; ``--motion sine`` moves it for demos. A ``reset`` string on the side's
command topic (``std_msgs/String``) returns it to the initial pose at once; ``--send reset``
publishes that command and exits.
"""

from __future__ import annotations

import argparse
import threading
import time
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``mock-arm`` subcommand."""
    p = sub.add_parser(
        "mock-arm",
        help="publish mock arm joint states (for mirror and tests)",
        description="Publish each side's joint_states and joint_target at control_rate_hz from "
        "the YAML initial pose. Example: mjscope mock-arm --side both --motion sine",
    )
    p.add_argument("--side", choices=("left", "right", "both"), default="both")
    p.add_argument("--motion", choices=("none", "sine"), default="none")
    p.add_argument("--transport", choices=("inproc", "dds"), default="dds")
    p.add_argument("--domain-id", type=int, default=None, help="DDS domain (ROS_DOMAIN_ID)")
    p.add_argument("--config", default=None, help="rig YAML (default: dual_arm_rm75.yaml)")
    p.add_argument("--duration", type=float, default=None, help="run time [s] (default: Ctrl-C)")
    p.add_argument(
        "--send", choices=("reset",), default=None, help="send this command to --side and exit"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Publish until ``--duration`` or Ctrl-C (or send one command)."""
    from mjscope.bridge.config import load_rig_cfg
    from mjscope.bridge.mock_arm import MockArm, run_mock_arms
    from mjscope.bridge.transport import make_transport
    from mjscope.cli._bus import transport_options
    from mjscope.cli._common import console
    from mjscope.cli._mirror_run import stop_on_sigterm
    from mjscope.exceptions import MjscopeError, UnknownNameError

    if args.duration is not None and not args.duration > 0:
        raise MjscopeError(f"--duration {args.duration} must be > 0 seconds")
    rig = load_rig_cfg(args.config)
    names = list(rig.sides) if args.side == "both" else [args.side]
    for n in names:
        if n not in rig.sides:
            raise UnknownNameError("side", n, rig.sides, "configure it in --config")
    con = console()
    if args.transport == "inproc":
        con.print("note: inproc reaches only this process; use --transport dds for a mirror")
    with make_transport(args.transport, **transport_options(args.transport, args.domain_id)) as bus:
        if args.send:
            return _send(bus, [rig.sides[n] for n in names], args.send, con)
        arms = [MockArm(bus, n, rig.sides[n], args.motion) for n in names]
        for a in arms:
            con.print(
                f"mock {a.side}: {a.cfg.state_topic} at {a.cfg.control_rate_hz:g} Hz; "
                f"'reset' on {a.cfg.command_topic}",
                soft_wrap=True,
            )
        stop = threading.Event()
        try:
            with stop_on_sigterm(stop):
                run_mock_arms(arms, args.duration, stop)
        except KeyboardInterrupt:
            pass
    for a in arms:
        con.print(f"mock {a.side}: published {a.published} frames, {a.resets} reset(s)")
    return 0


def _send(bus: Any, sides: list[Any], command: str, con: Any, wait_s: float = 5.0) -> int:
    """Publish ``command`` once per side, after waiting for a listener (DDS discovery)."""
    pubs = [bus.publisher(s.command_topic, str) for s in sides]
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and not all(_matched(p) for p in pubs):
        time.sleep(0.05)
    status = 0
    for s, p in zip(sides, pubs, strict=True):
        if not _matched(p):
            con.print(f"no mock arm listens on {s.command_topic}; sent anyway")
            status = 1
        p.publish(command)
        con.print(f"sent {command!r} on {s.command_topic}")
    time.sleep(0.2)  # let reliable delivery finish before the participant goes away
    return status


def _matched(pub: Any) -> bool:
    count = getattr(pub, "subscriber_count", None)
    return True if count is None else count() > 0
