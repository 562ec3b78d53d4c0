"""One ``mjscope rm-emulator`` run: serve an emulated controller until the duration or a stop."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

from rich.console import Console

from mjscope.exceptions import MjscopeError
from mjscope.signals import stop_on_sigterm
from mjscope.teleop.emulator import TICK_S, RmEmulator, RmEmulatorCfg


@dataclass(frozen=True)
class RmEmulatorCmdCfg:
    """What one ``mjscope rm-emulator`` run does.

    Attributes:
        port: TCP port of the JSON protocol on 127.0.0.1 (0 = any free one).
        arm: Arm model (``rm75``).
        push_port: Push target on 127.0.0.1 at power-on (``None``: off until a client sets it).
        joints_deg: Power-on joint angles [deg] (``None``: all zero).
        duration: Run time [s]; ``None`` until Ctrl-C or SIGTERM.
    """

    port: int = 8080
    arm: str = "rm75"
    push_port: int | None = None
    joints_deg: tuple[float, ...] | None = None
    duration: float | None = None


def run_rm_emulator(cfg: RmEmulatorCmdCfg, con: Console) -> int:
    """Serve until ``duration``, SIGTERM (exit 0) or Ctrl-C (raised, after a clean stop).

    Returns:
        0.

    Raises:
        MjscopeError: A bad duration, port or pose, an unknown arm, or a port in use.
    """
    if cfg.duration is not None and not (math.isfinite(cfg.duration) and cfg.duration > 0):
        raise MjscopeError(f"--duration {cfg.duration} must be > 0 seconds")
    for name, port in (("--port", cfg.port), ("--push-port", cfg.push_port)):
        if port is not None and not 0 <= port <= 65535:
            raise MjscopeError(f"{name} {port} must be 0-65535 (0 = any free port)")
    emu_cfg = RmEmulatorCfg(
        port=cfg.port, arm=cfg.arm, push_port=cfg.push_port, initial_joints_deg=cfg.joints_deg
    )
    emu = RmEmulator(emu_cfg)
    stop = threading.Event()
    with emu, stop_on_sigterm(stop):
        spec = emu.controller.spec
        con.print(f"rm-emulator: {spec.product_version} controller listening on {emu.address}")
        con.print(f"rm-emulator: joints at {emu.joints_deg().round(3).tolist()} deg")
        push = emu.controller.push
        where = f"127.0.0.1:{push.port} every {push.cycle * TICK_S * 1000:g} ms"
        con.print(f"rm-emulator: realtime push {where if push.enable else 'off until set'}")
        _wait(stop, cfg.duration)
    counts = emu.controller.counts
    con.print(
        f"rm-emulator: served {sum(counts.values())} commands "
        f"({counts['movej_canfd']} movej_canfd), sent {emu.pushes} pushes, "
        f"{sum(emu.bad_requests.values())} bad requests"
    )
    return 0


def _wait(stop: threading.Event, duration: float | None) -> None:
    end = time.monotonic() + duration if duration is not None else math.inf
    while not stop.is_set() and time.monotonic() < end:
        stop.wait(min(0.1, max(0.0, end - time.monotonic())))
