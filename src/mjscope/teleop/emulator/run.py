"""One ``mjscope rm-emulator`` run: serve an emulated controller until the duration or a stop."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

from rich.console import Console

from mjscope.exceptions import MjscopeError
from mjscope.paths import write_json
from mjscope.rig import load_rig_cfg
from mjscope.signals import INTERRUPTS, exit_code, stop_on_sigterm
from mjscope.teleop.emulator.config import Faults, RmEmulatorCfg
from mjscope.teleop.emulator.server import TICK_S, RmEmulator

SIDES = ("left", "right")


@dataclass(frozen=True)
class RmEmulatorCmdCfg:
    """What one ``mjscope rm-emulator`` run does.

    Attributes:
        port: TCP port of the JSON protocol on 127.0.0.1 (0 = any free one).
        arm: Arm model (``rm75``).
        push_port: Push target on 127.0.0.1 at power-on (``None``: off until a client sets it).
        joints_deg: Power-on joint angles [deg] (``None``: the rig's ``initial_joint_pose_deg``
            of ``side``).
        config: Rig YAML for the default pose (``None``: the bundled ``dual_arm_rm75.yaml``).
        side: Whose initial pose is the default (``left`` or ``right``).
        duration: Run time [s]; ``None`` until Ctrl-C or SIGTERM.
        drop: Probability of losing each push datagram (0 .. 1).
        delay_ms: Added delay of every reply and push [ms].
        jitter_ms: Further random delay, uniform 0 .. this [ms].
        disconnect_after: Go away (close every connection, stop the push) after this [s].
        seed: Seed of the random draws.
        json: Write the summary as JSON here (``-``: stdout).
    """

    port: int = 8080
    arm: str = "rm75"
    push_port: int | None = None
    joints_deg: tuple[float, ...] | None = None
    config: str | None = None
    side: str = "left"
    duration: float | None = None
    drop: float = 0.0
    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    disconnect_after: float | None = None
    seed: int = 0
    json: str | None = None


def check_cmd_cfg(cfg: RmEmulatorCmdCfg) -> None:
    """Every option within its range.

    Raises:
        MjscopeError: One line naming the option, its value and what is valid.
    """
    for name, v in (("--duration", cfg.duration), ("--disconnect-after", cfg.disconnect_after)):
        if v is not None and not (math.isfinite(v) and v > 0):
            raise MjscopeError(f"{name} {v} must be > 0 seconds")
    for name, port in (("--port", cfg.port), ("--push-port", cfg.push_port)):
        if port is not None and not 0 <= port <= 65535:
            raise MjscopeError(f"{name} {port} must be 0-65535 (0 = any free port)")
    if not (math.isfinite(cfg.drop) and 0.0 <= cfg.drop <= 1.0):
        raise MjscopeError(f"--drop {cfg.drop} must be a probability 0-1 (e.g. 0.1 = 10 % lost)")
    for name, ms in (("--delay-ms", cfg.delay_ms), ("--jitter-ms", cfg.jitter_ms)):
        if not (math.isfinite(ms) and 0.0 <= ms <= 10_000.0):
            raise MjscopeError(f"{name} {ms} must be 0-10000 ms")
    if cfg.side not in SIDES:
        raise MjscopeError(f"--side {cfg.side!r}: use left or right")


def power_on_pose(cfg: RmEmulatorCmdCfg) -> tuple[float, ...]:
    """``--joints-deg``, else the rig's initial pose of ``--side`` [deg]."""
    if cfg.joints_deg is not None:
        return cfg.joints_deg
    rig = load_rig_cfg(cfg.config)
    side = rig.sides.get(cfg.side)
    if side is None:
        raise MjscopeError(f"--side {cfg.side}: the rig has only {', '.join(rig.sides)}")
    return tuple(side.initial_joint_pose_deg)


def faults_of(cfg: RmEmulatorCmdCfg) -> Faults:
    """The injected faults the options ask for."""
    return Faults(
        latency_s=cfg.delay_ms / 1e3,
        jitter_s=cfg.jitter_ms / 1e3,
        drop=cfg.drop,
        disconnect_after_s=cfg.disconnect_after,
        seed=cfg.seed,
    )


def run_rm_emulator(cfg: RmEmulatorCmdCfg, con: Console) -> int:
    """Serve until ``duration``, SIGTERM or Ctrl-C; print (and with ``json`` write) a summary.

    Returns:
        0; 130 when Ctrl-C or SIGTERM cut a run that had a ``duration`` (without one, they are
        its normal end).

    Raises:
        MjscopeError: A bad option, port or pose, an unknown arm, or a port in use.
    """
    check_cmd_cfg(cfg)
    emu_cfg = RmEmulatorCfg(
        port=cfg.port, arm=cfg.arm, push_port=cfg.push_port, initial_joints_deg=power_on_pose(cfg)
    )
    emu = RmEmulator(emu_cfg, faults_of(cfg))
    stop = threading.Event()
    try:
        with emu, stop_on_sigterm(stop):
            _announce(emu, cfg, con)
            _wait(stop, cfg.duration)
    except KeyboardInterrupt:  # the emulator has stopped cleanly (the with block)
        INTERRUPTS.note()
    counts = emu.controller.counts
    con.print(
        f"rm-emulator: served {sum(counts.values())} commands "
        f"({counts['movej_canfd']} movej_canfd), sent {emu.pushes} pushes "
        f"({emu.delivery.dropped} dropped on purpose), {sum(emu.bad_requests.values())} bad "
        "requests",
        soft_wrap=True,
    )
    if cfg.json is not None:
        write_json(cfg.json, summary(emu))
    return exit_code(failed=False, endless=cfg.duration is None)


def summary(emu: RmEmulator) -> dict[str, object]:
    """The ``--json`` summary: commands served by name, pushes sent and lost, bad requests."""
    return {
        "address": emu.address,
        "commands": dict(emu.controller.counts),
        "pushes": emu.pushes,
        "pushes_dropped": emu.delivery.dropped,
        "bad_requests": dict(emu.bad_requests),
        "gone": emu.gone,
    }


def _announce(emu: RmEmulator, cfg: RmEmulatorCmdCfg, con: Console) -> None:
    spec = emu.controller.spec
    con.print(
        f"rm-emulator: {spec.product_version} controller listening on {emu.address}", soft_wrap=True
    )
    con.print(f"rm-emulator: joints at {emu.joints_deg().round(3).tolist()} deg", soft_wrap=True)
    push = emu.controller.push
    where = f"127.0.0.1:{push.port} every {push.cycle * TICK_S * 1000:g} ms"
    con.print(
        f"rm-emulator: realtime push {where if push.enable else 'off until set'}", soft_wrap=True
    )
    faults = [
        f"{label} {v:g}{unit}"
        for label, v, unit in (
            ("drop", cfg.drop, ""),
            ("delay", cfg.delay_ms, " ms"),
            ("jitter", cfg.jitter_ms, " ms"),
            ("disconnect after", cfg.disconnect_after or 0.0, " s"),
        )
        if v
    ]
    if faults:
        con.print(f"rm-emulator: faults: {', '.join(faults)} (seed {cfg.seed})", soft_wrap=True)


def _wait(stop: threading.Event, duration: float | None) -> None:
    end = time.monotonic() + duration if duration is not None else math.inf
    while not stop.is_set() and time.monotonic() < end:
        stop.wait(min(0.1, max(0.0, end - time.monotonic())))
