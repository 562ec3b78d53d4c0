"""One ``mjscope hand`` run: the live bridge, the track test, or one command applied once."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mjscope.bridge.transport import open_transport
from mjscope.bridge.transport.base import Transport
from mjscope.bridge.validation import InvalidFrame
from mjscope.exceptions import ConfigError, MjscopeError, OutputError
from mjscope.hand.bridge import TOPIC_STATE, HandBridge, HandBridgeCfg
from mjscope.hand.live import LiveOptions, run_live, snapshot
from mjscope.hand.model import build_hand_model
from mjscope.hand.oneshot import apply_command, parse_command
from mjscope.hand.profile import load_profile
from mjscope.hand.track import THRESHOLD_RAD, run_track_test
from mjscope.models import LoadOptions
from mjscope.paths import STDOUT, check_writable, write_json
from mjscope.signals import INTERRUPTS, exit_code, sigterm_as_interrupt

DEFAULT_MODEL = "g20_left"
DEFAULT_SLEW_RAD_S = 5.0  # live bridge joint speed limit [rad/s]
ISAAC_PHYSICS_HZ = 120.0  # the Isaac bridge's physics rate (seed 000: set_physics_dt(1/120)) [Hz]


@dataclass(frozen=True)
class HandCmdCfg:
    """What one ``mjscope hand`` run does (the seed's §11 flags).

    Attributes:
        model: Bundled name or URDF/MJCF file.
        profile: Bundled profile name or YAML file.
        load: How to load a model file.
        plan_nominal: Listen for radians by joint name instead of 0–255 slots.
        legacy_sdk: Use the real driver's topics (``/cb_left_hand_*``).
        pd_drive: PD actuators + ``mj_step`` instead of hard-write.
        hand_gravity: Gravity on the hand (PD only).
        no_self_collision: No penetration projection (hard-write), no hand-hand contacts (PD).
        collide_all: ``g20_left``: every link collides.
        slew_rad_s: Max joint speed [rad/s] (``None``: 5 live, 0 for the track test/command).
        penetration_tol: Allowed penetration [m].
        publish_sdk_state: Also publish the 0–255 state.
        track_test: Run the built-in tracking check.
        threshold: Track-test pass threshold on the max tracking error [rad].
        pose: ``open`` | ``fist`` | a YAML/JSON file: apply once and report.
        transport: ``inproc`` | ``dds``.
        domain_id: DDS domain (``None``: ``ROS_DOMAIN_ID`` or 0).
        localhost_only: DDS on loopback only (``None``: ``ROS_LOCALHOST_ONLY=1``).
        viewer: ``none`` | ``native``.
        record: Video ``.mp4``/``.gif`` or ``None``.
        snapshot: Final pose ``.png`` or ``None``.
        duration: Run time [s]; ``None`` until closed.
        report: JSON report or ``None``.
        interactive: Say how to stop (a terminal).
        size: Frame size of ``record`` and ``snapshot`` ``(width, height)`` [px].
    """

    model: str = DEFAULT_MODEL
    profile: str = "g20_left"
    load: LoadOptions = field(default_factory=LoadOptions)
    plan_nominal: bool = False
    legacy_sdk: bool = False
    pd_drive: bool = False
    hand_gravity: bool = False
    no_self_collision: bool = False
    collide_all: bool = False
    slew_rad_s: float | None = None
    penetration_tol: float = 1e-3
    publish_sdk_state: bool = False
    track_test: bool = False
    threshold: float = THRESHOLD_RAD
    pose: str | None = None
    transport: str = "dds"
    domain_id: int | None = None
    localhost_only: bool | None = None
    viewer: str = "none"
    record: str | None = None
    snapshot: str | None = None
    duration: float | None = None
    report: str | None = None
    interactive: bool = False
    size: tuple[int, int] = (640, 480)

    @property
    def mode(self) -> str:
        """``pd`` or ``hard-write``."""
        return "pd" if self.pd_drive else "hard-write"


def run_hand(cfg: HandCmdCfg, con: Console) -> int:
    """Run the bridge, the track test or a single command.

    Returns:
        0, or 1 when the track test fails.

    Raises:
        MjscopeError: A bad option, model, profile or output path (checked before the run).
    """
    check_cfg(cfg)
    if cfg.track_test:
        return _track(cfg, con)
    if cfg.pose is not None:
        return _command(cfg, make_bridge(cfg, slew=0.0), con)
    return _live(cfg, con)


def check_cfg(cfg: HandCmdCfg) -> None:
    """Check the options and the output paths before anything runs.

    Raises:
        MjscopeError: Naming the bad option and the fix.
    """
    if cfg.slew_rad_s is not None and not cfg.slew_rad_s >= 0:
        raise MjscopeError(f"--slew-rad-s {cfg.slew_rad_s} must be >= 0 (0 = instant)")
    if not cfg.penetration_tol > 0:
        raise MjscopeError(f"--penetration-tol {cfg.penetration_tol} must be > 0 metres")
    if cfg.duration is not None and not cfg.duration > 0:
        raise MjscopeError(f"--duration {cfg.duration} must be > 0 seconds")
    if (cfg.track_test or cfg.pose is not None) and (cfg.record or cfg.viewer != "none"):
        raise MjscopeError(
            "--record/--viewer run with the live bridge; with --track-test or --command "
            "use --snapshot FILE.png"
        )
    if cfg.hand_gravity and not cfg.pd_drive:
        raise MjscopeError("--hand-gravity needs --pd-drive (hard-write never steps physics)")
    for flag, value, suffixes in (
        ("--record", cfg.record, (".mp4", ".gif")),
        ("--snapshot", cfg.snapshot, (".png",)),
        ("--report", cfg.report, (".json",)),
    ):
        if value == STDOUT and flag == "--report":
            continue
        if value is not None and Path(value).suffix.lower() not in suffixes:
            raise MjscopeError(f"{flag} {value!r}: use a {' or '.join(suffixes)} file name")
        if value is not None:
            check_writable(value)


def make_bridge(cfg: HandCmdCfg, slew: float, transport: Transport | None = None) -> HandBridge:
    """The bridge ``cfg`` describes (``slew`` [rad/s] unless ``cfg.slew_rad_s`` is set)."""
    profile = load_profile(cfg.profile)
    hand = build_hand_model(
        cfg.model,
        profile,
        pd=cfg.pd_drive,
        gravity=cfg.hand_gravity,
        collide_all=cfg.collide_all,
        self_collision=not cfg.no_self_collision,
        load_options=cfg.load,
    )
    bridge_cfg = HandBridgeCfg(
        pd_drive=cfg.pd_drive,
        self_collision=not cfg.no_self_collision,
        slew_rad_s=slew if cfg.slew_rad_s is None else cfg.slew_rad_s,
        penetration_tol=cfg.penetration_tol,
        plan_nominal=cfg.plan_nominal,
        legacy_sdk=cfg.legacy_sdk,
        publish_sdk_state=cfg.publish_sdk_state,
    )
    return HandBridge(hand, bridge_cfg, transport)


def _track(cfg: HandCmdCfg, con: Console) -> int:
    if not cfg.pd_drive:  # the seed's track test runs hard-write without projection
        cfg = replace(cfg, no_self_collision=True)
    bridge = make_bridge(cfg, slew=0.0)
    res = run_track_test(bridge, threshold=cfg.threshold)
    verdict = "PASS" if res.passed else "FAIL"
    settle = "never" if res.settle_time_s is None else f"in {res.settle_time_s:.3f} s"
    con.print(
        f"track test ({cfg.mode}): error after settling {res.max_error:.2g} rad "
        f"(max; mean {res.mean_error:.2g} rad), threshold {res.threshold:g} rad, "
        f"{res.steps} steps, recoveries {res.recoveries} → {verdict}",
        soft_wrap=True,
    )
    con.print(
        f"  while the targets switch: largest error {res.switching_max_error:.2g} rad; "
        f"within {res.threshold:g} rad {settle} after a switch",
        soft_wrap=True,
    )
    _finish(cfg, bridge, {"track_test": res._asdict(), "mode": cfg.mode})
    return 0 if res.passed else 1


def _command(cfg: HandCmdCfg, bridge: HandBridge, con: Console) -> int:
    assert cfg.pose is not None
    try:
        rep = apply_command(bridge, parse_command(cfg.pose, bridge.profile))
    except InvalidFrame as e:  # e.g. beyond a joint's range: rejected as on the bus
        raise ConfigError(f"--command {cfg.pose}: {e}; fix the pose") from e
    table = Table(title=f"--command {cfg.pose} ({cfg.mode})")
    for col in ("joint", "goal [rad]", "applied [rad]"):
        table.add_column(col, justify="left" if col == "joint" else "right")
    for j, q in rep["applied"].items():
        table.add_row(j, f"{rep['goal'][j]:.4f}", f"{q:.4f}")
    con.print(table)
    con.print(
        f"max penetration {rep['max_penetration_m'] * 1000:.3f} mm, contacts {rep['contacts']}, "
        f"stopped short: {', '.join(rep['limited_chains']) or 'none'}"
    )
    _finish(cfg, bridge, {"command": cfg.pose, "mode": cfg.mode, **rep})
    return 0


def _live(cfg: HandCmdCfg, con: Console) -> int:
    with open_transport(cfg.transport, cfg.domain_id, cfg.localhost_only) as bus:
        bridge = make_bridge(cfg, slew=DEFAULT_SLEW_RAD_S, transport=bus)
        t0 = time.monotonic()
        rec = Path(cfg.record) if cfg.record else None
        errors: list[OutputError] = []
        steps = 0
        try:
            with sigterm_as_interrupt():  # a launch system's stop ends the run like Ctrl-C
                con.print(
                    f"hand bridge ({cfg.mode}): listening on {bridge.command_topic} "
                    f"({cfg.transport}), state on {TOPIC_STATE}"
                    + ("; Ctrl-C to stop" if cfg.interactive and not cfg.duration else "")
                )
                opts = LiveOptions(
                    cfg.duration, cfg.viewer, rec, size=cfg.size, progress=cfg.interactive
                )
                steps = run_live(bridge, opts, errors)
        except KeyboardInterrupt:  # before the loop took over: nothing ran yet
            INTERRUPTS.note()
        wall = time.monotonic() - t0
        err = bridge.tracking_error()
        con.print(
            f"{steps} steps in {wall:.1f} s; rejected frames {bridge.rejects.total}"
            f"{_reasons(bridge.rejects.as_dict())}; recoveries {bridge.recoveries}; "
            f"tracking error max {err[0]:.4f} rad"
        )
        report = {
            "mode": cfg.mode,
            "steps": steps,
            "wall_s": wall,
            "rejected": bridge.rejects.as_dict(),
            "commands_applied": bridge.commands_applied,
            "recoveries": bridge.recoveries,
            "tracking_error_rad": err,
            "applied": bridge.positions(),
        }
        _finish(cfg, bridge, report)
    if errors:  # the report is written; now say what could not be
        raise errors[0]
    return exit_code(failed=False, endless=cfg.duration is None)  # Ctrl-C ends an endless run


def _reasons(counts: dict[str, int]) -> str:
    return " (" + ", ".join(f"{k} {v}" for k, v in counts.items()) + ")" if counts else ""


def _finish(cfg: HandCmdCfg, bridge: HandBridge, report: dict[str, Any]) -> None:
    if cfg.snapshot:
        snapshot(bridge, Path(cfg.snapshot), cfg.size)
    if cfg.report:
        write_json(cfg.report, report, default=float)
