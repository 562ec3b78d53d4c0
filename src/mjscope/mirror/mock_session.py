"""One ``mjscope mock-arm`` run: publish mock sides until the duration ends, or send a command.

Imports no MuJoCo: a node that only publishes joint states does not need the engine.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from rich.console import Console

from mjscope.bridge.transport import open_transport
from mjscope.bridge.transport.base import Publisher, Transport
from mjscope.exceptions import MjscopeError, UnknownNameError
from mjscope.mirror.config import SideCfg, load_rig_cfg
from mjscope.mirror.mock_arm import MockArm, run_mock_arms
from mjscope.paths import write_json
from mjscope.signals import INTERRUPTS, exit_code, stop_on_sigterm
from mjscope.text import plural

DISCOVERY_WAIT_S = 5.0  # how long --send waits for a listener (DDS discovery) [s]


@dataclass(frozen=True)
class MockArmCmdCfg:
    """What one ``mjscope mock-arm`` run does.

    Attributes:
        side: ``left`` | ``right`` | ``both``.
        motion: ``none`` | ``sine``.
        transport: ``inproc`` | ``dds``.
        domain_id: DDS domain (``None``: ``ROS_DOMAIN_ID`` or 0).
        localhost_only: DDS on loopback only (``None``: ``ROS_LOCALHOST_ONLY=1``).
        config: Rig YAML (``None``: bundled ``dual_arm_rm75.yaml``).
        duration: Run time [s]; ``None`` until Ctrl-C.
        send: Send this command (``reset``) to the sides and exit instead of publishing.
    """

    side: str = "both"
    motion: str = "none"
    transport: str = "dds"
    domain_id: int | None = None
    localhost_only: bool | None = None
    config: str | None = None
    duration: float | None = None
    send: str | None = None
    json: str | None = None


def run_mock_arm(cfg: MockArmCmdCfg, con: Console) -> int:
    """Publish until ``duration`` or Ctrl-C (or send one command).

    Returns:
        The exit code (:func:`mjscope.signals.exit_code`): Ctrl-C ends a run without
        ``duration`` normally (0) and cuts one with it short (130); with ``send``, 1 when no
        mock arm listened on a command topic.

    Raises:
        MjscopeError: A bad duration or side.
    """
    if cfg.duration is not None and not cfg.duration > 0:
        raise MjscopeError(f"--duration {cfg.duration} must be > 0 seconds")
    rig = load_rig_cfg(cfg.config)
    names = list(rig.sides) if cfg.side == "both" else [cfg.side]
    for n in names:
        if n not in rig.sides:
            raise UnknownNameError("side", n, rig.sides, "configure it in --config")
    if cfg.transport == "inproc":
        con.print("note: inproc reaches only this process; use --transport dds for a mirror")
    with open_transport(cfg.transport, cfg.domain_id, cfg.localhost_only) as bus:
        if cfg.send:
            return _send(bus, [rig.sides[n] for n in names], cfg.send, con)
        arms = [MockArm(bus, n, rig.sides[n], cfg.motion) for n in names]
        stop = threading.Event()
        try:
            with stop_on_sigterm(stop):
                for a in arms:
                    con.print(
                        f"mock {a.side}: {a.cfg.state_topic} at {a.cfg.control_rate_hz:g} Hz; "
                        f"'reset' on {a.cfg.command_topic}",
                        soft_wrap=True,
                    )
                run_mock_arms(arms, cfg.duration, stop)
        except KeyboardInterrupt:
            INTERRUPTS.note()
    for a in arms:
        con.print(
            f"mock {a.side}: published {plural(a.published, 'frame')}, {plural(a.resets, 'reset')}"
        )
    if cfg.json is not None:
        write_json(cfg.json, {a.side: {"published": a.published, "resets": a.resets} for a in arms})
    return exit_code(failed=False, endless=cfg.duration is None)


def _send(bus: Transport, sides: list[SideCfg], command: str, con: Console) -> int:
    """Publish ``command`` once per side, after waiting for a listener (DDS discovery)."""
    pubs = [bus.publisher(s.command_topic, str) for s in sides]
    deadline = time.monotonic() + DISCOVERY_WAIT_S
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


def _matched(pub: Publisher) -> bool:
    count = getattr(pub, "subscriber_count", None)
    return True if count is None else count() > 0
