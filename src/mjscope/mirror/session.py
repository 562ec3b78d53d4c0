"""One ``mjscope mirror`` run: transport, optional mock arms, the loop, report and summary."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mujoco
from rich.console import Console

from mjscope.bridge.transport import open_transport
from mjscope.exceptions import MjscopeError, OutputError
from mjscope.mirror.config import (
    RenderCfg,
    RigCfg,
    check_rig_cfg,
    load_render_cfg,
    load_rig_cfg,
    map_prefixes,
    select_sides,
)
from mjscope.mirror.loop import LoopOptions, run_loop
from mjscope.mirror.mock_arm import MockArm, run_mock_arms
from mjscope.models import LoadOptions, compile_spec, load_spec
from mjscope.models.scene import add_light, set_offscreen_size
from mjscope.paths import check_json_path, check_writable, write_json
from mjscope.signals import exit_code, stop_on_sigterm
from mjscope.sim.viewer import resolve_viewer

DEFAULT_MODEL = "dual_rm75"


@dataclass(frozen=True)
class MirrorCmdCfg:
    """What one ``mjscope mirror`` run does.

    Attributes:
        model: Bundled name or URDF/MJCF file.
        load: How to load a model file.
        config: Rig YAML (``None``: bundled ``dual_arm_rm75.yaml``).
        mujoco_config: Render YAML (``None``: bundled ``dual_arm_mujoco.yaml``).
        sides: Subset of sides to mirror (empty: all).
        map_prefix: ``OLD=NEW`` renames from message to model joint names.
        transport: ``inproc`` | ``dds``; ``None``: ``inproc`` with ``demo``, else ``dds``.
        domain_id: DDS domain (``None``: ``ROS_DOMAIN_ID`` or 0).
        localhost_only: DDS on loopback only (``None``: ``ROS_LOCALHOST_ONLY=1``).
        viewer: ``auto`` (native when a display exists) | ``none`` | ``native``.
        record: Video ``.mp4``/``.gif`` or ``None``.
        snapshot: Final pose ``.png`` or ``None``.
        report: JSON report or ``None``.
        duration: Run time [s]; ``None`` until closed.
        demo: Run mock arms in this process.
        motion: Mock-arm motion (``none`` | ``sine``).
        live_status: Show a live status line (a terminal).
        size: Frame size of ``record`` and ``snapshot`` ``(width, height)`` [px].
    """

    model: str = DEFAULT_MODEL
    load: LoadOptions = field(default_factory=LoadOptions)
    config: str | None = None
    mujoco_config: str | None = None
    sides: tuple[str, ...] = ()
    map_prefix: tuple[str, ...] = ()
    transport: str | None = None
    domain_id: int | None = None
    localhost_only: bool | None = None
    viewer: str = "auto"
    record: str | None = None
    snapshot: str | None = None
    report: str | None = None
    duration: float | None = None
    demo: bool = False
    motion: str = "sine"
    live_status: bool = False
    size: tuple[int, int] = (640, 480)


def run_mirror(cfg: MirrorCmdCfg, con: Console) -> int:
    """Run the mirror and print a summary.

    Returns:
        The exit code (:func:`mjscope.signals.exit_code`): 1 when a side never delivered a
        valid frame within ``duration``; 130 when Ctrl-C cut a ``duration`` short; 0 else
        (Ctrl-C is the normal end of a run without ``duration``).

    Raises:
        MjscopeError: A bad option, config or output path (checked before the run starts).
    """
    if cfg.duration is not None and not cfg.duration > 0:
        raise MjscopeError(f"--duration {cfg.duration} must be > 0 seconds")
    rig, render = _configs(cfg)
    model = _model(cfg)
    kind = cfg.transport or ("inproc" if cfg.demo else "dds")
    topics = ", ".join(s.state_topic for s in rig.sides.values())
    opts = LoopOptions(
        duration=cfg.duration,
        viewer=resolve_viewer(cfg.viewer),
        record=_out(cfg.record, (".mp4", ".gif")),
        snapshot=_out(cfg.snapshot, (".png",)),
        console=con if cfg.live_status else None,
        size=cfg.size,
        on_start=lambda: con.print(
            f"mirroring {', '.join(rig.sides)} on {kind} ({topics}); Ctrl-C ends", soft_wrap=True
        ),
    )
    report_path = check_json_path(cfg.report)
    if kind == "inproc" and not cfg.demo:
        con.print("note: inproc carries only this process's messages; use dds for a robot or mock")
    with open_transport(kind, cfg.domain_id, cfg.localhost_only) as transport:
        stop = threading.Event()
        mocks = None
        if cfg.demo:
            arms = [MockArm(transport, n, s, cfg.motion) for n, s in rig.sides.items()]
            mocks = threading.Thread(target=run_mock_arms, args=(arms, None, stop), daemon=True)
            mocks.start()
        errors: list[OutputError] = []
        try:
            with stop_on_sigterm(stop):
                mirror, _ = run_loop(model, rig, render, transport, opts, stop, errors)
        finally:
            stop.set()
            if mocks is not None:
                mocks.join(timeout=2.0)
        report = mirror.report()  # while the transport is open: DDS's publisher counts now
    if report_path is not None:
        write_json(report_path, report)
    print_summary(con, report, opts, report_path, failed=len(errors) > 0)
    if errors:  # the report is written; now say what could not be
        raise errors[0]
    # A side that never sent a frame fails a timed run; an endless one ends normally on Ctrl-C
    # (its report names the side it waited for).
    never = not mirror.ready and cfg.duration is not None
    return exit_code(failed=never, endless=cfg.duration is None)


def _configs(cfg: MirrorCmdCfg) -> tuple[RigCfg, RenderCfg]:
    rig = select_sides(load_rig_cfg(cfg.config), cfg.sides)
    if cfg.map_prefix:
        rig = map_prefixes(rig, cfg.map_prefix)
    check_rig_cfg(rig, "--config")
    return rig, load_render_cfg(cfg.mujoco_config)


def _model(cfg: MirrorCmdCfg) -> mujoco.MjModel:
    spec = load_spec(cfg.model, cfg.load)
    if not spec.lights:
        add_light(spec)
    set_offscreen_size(spec, max(1280, cfg.size[0]), max(960, cfg.size[1]))
    return compile_spec(spec, str(cfg.model))


def _out(path: str | None, suffixes: tuple[str, ...]) -> Path | None:
    if path is None:
        return None
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise MjscopeError(f"output {path!r} must end in {' or '.join(suffixes)}")
    return check_writable(p)


def print_summary(
    con: Console,
    report: dict[str, Any],
    opts: LoopOptions,
    report_path: Path | None,
    failed: bool = False,
) -> None:
    """Per topic: frames, rate, valid, rejects by reason, publishers; then the files written."""
    for topic, t in report["topics"].items():
        rej = t["rejected_by_reason"] or "none"
        con.print(
            f"{t['side']:>6} {topic}: {t['received']} frames ({t['received_rate_hz']:.1f} Hz), "
            f"valid {t['valid']}, rejected {rej}, publishers {t['publisher_count']}",
            soft_wrap=True,
        )
    if report["waiting_for"]:
        con.print(f"[red]never received a valid frame from: {', '.join(report['waiting_for'])}[/]")
    elif opts.snapshot is not None and not failed:
        con.print(f"wrote {opts.snapshot}")
    if opts.record is not None and report["ready"] and not failed:
        con.print(f"wrote {opts.record}")
    if report_path is not None:
        con.print(f"wrote {report_path}")
