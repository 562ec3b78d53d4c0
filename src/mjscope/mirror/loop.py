"""The mirror loop: update the mirror and refresh the picture on the render clock.

Sinks: the native passive viewer, a streaming MP4/GIF recording, a final PNG snapshot, a rich
status line on a terminal. Nothing is ever sent to a robot; closing the viewer ends the loop.

The recording renders on a thread of its own (:class:`~mjscope.sim.recording.LiveRecorder`):
each tick offers the pose with its wall-clock time since the start, so the video plays in real
time however slow the renderer. It starts at the first valid pose (the mirror never shows the
model's zero pose) and ends with the run.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mujoco
from rich.console import Console

from mjscope.bridge.transport.base import Transport
from mjscope.exceptions import OutputError
from mjscope.mirror.config import RenderCfg, RigCfg
from mjscope.mirror.mirror import Mirror
from mjscope.mirror.sides import SideStatus
from mjscope.paths import check_writable
from mjscope.signals import INTERRUPTS
from mjscope.sim.recording import LiveRecorder
from mjscope.sim.viewer import check_display, open_viewer

STATUS_PERIOD_S = 0.25  # status line refresh [s]


@dataclass(frozen=True)
class LoopOptions:
    """What one mirror run does.

    Attributes:
        duration: Run time [s]; ``None`` runs until the viewer closes or Ctrl-C.
        viewer: ``none`` or ``native``.
        record: Output ``.mp4``/``.gif`` or ``None``.
        snapshot: Output ``.png`` of the final pose or ``None``.
        console: Where the rich status line goes (a terminal); ``None`` shows none.
        size: Frame size of the recording and the snapshot ``(width, height)`` [px].
        on_start: Called once the run is under way (Ctrl-C from then on ends it cleanly): the
            place for the "mirroring …; Ctrl-C ends" line.
    """

    duration: float | None = None
    viewer: str = "none"
    record: Path | None = None
    snapshot: Path | None = None
    console: Console | None = None
    on_start: Callable[[], None] | None = None
    size: tuple[int, int] = (640, 480)


def camera_of(model: mujoco.MjModel) -> str | None:
    """The model's ``mirror`` camera if it has one, else ``None`` (free camera)."""
    return "mirror" if mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, "mirror") >= 0 else None


def status_text(statuses: list[SideStatus], mirror: Mirror) -> str:
    """One status line: per side Hz, rejects, age of the pose (header stamp), publishers."""
    parts = []
    for s in statuses:
        age = "—" if math.isinf(s.stamp_age_s) else f"{s.stamp_age_s * 1000:.1f} ms"
        flag = " [red]STALE[/]" if s.stale else ""
        pubs = f" [yellow]{s.publishers} pubs[/]" if s.publishers > 1 else ""
        parts.append(f"[bold]{s.side}[/] {s.hz:5.1f} Hz rej {s.rejected} age {age}{flag}{pubs}")
    head = "" if mirror.ready else f"[yellow]waiting for {', '.join(mirror.missing_sides())}[/] | "
    return head + " | ".join(parts)


def run_loop(
    model: mujoco.MjModel,
    rig: RigCfg,
    render: RenderCfg,
    transport: Transport,
    opts: LoopOptions,
    stop: threading.Event | None = None,
    sink_errors: list[OutputError] | None = None,
) -> tuple[Mirror, mujoco.MjData]:
    """Run the mirror until ``duration``, viewer close, ``stop`` or Ctrl-C.

    Args:
        model: Compiled model with every side's joints.
        rig: Sides to mirror.
        render: Render rate and reporting intervals.
        transport: Bus the state topics arrive on.
        opts: Duration and sinks.
        stop: Optional event ending the loop.
        sink_errors: When given, a recording or snapshot that fails at the end of a run is
            appended here instead of raised, so the caller can still write its report.

    Returns:
        The mirror (for its report) and its data (final pose).

    Raises:
        OutputError: A record or snapshot path cannot be written (checked before the run), or
            the recording failed (an earlier file of that name is left in place).
        MjscopeError: No display for the native viewer, or no offscreen GL backend.
    """
    if opts.viewer == "native":
        check_display()
    if opts.snapshot is not None:
        check_writable(opts.snapshot)
    data = mujoco.MjData(model)
    mirror = Mirror(model, data, rig, render, transport)  # subscribed while GL starts
    recorder = None
    viewer: list[Any] = []  # opened once the mirror is ready: never show the zero pose
    completed, end = False, 0.0
    try:
        if opts.record is not None:
            # camera None: fitted to both arms at the first frame (not placed per model)
            recorder = LiveRecorder(model, opts.record, render.render_rate_hz, *opts.size)
        if opts.on_start is not None:
            opts.on_start()
        end = _loop(mirror, render, opts, viewer, recorder, stop)
        completed = True
    except KeyboardInterrupt:  # while starting: the run ends here, its report still follows
        INTERRUPTS.note()
        completed = True
    finally:
        if completed:
            mirror.update()  # count what arrived during the last tick
            mirror.stopped_at = time.monotonic()
        for v in viewer:
            v.close()
        if recorder is not None:
            _sink(
                lambda: recorder.close(keep=completed, end=end), sink_errors if completed else None
            )
    if opts.snapshot is not None and mirror.ready:
        from mjscope.sim.render import caption_text, render_png

        snap = opts.snapshot
        caption = caption_text(model, (mirror.stopped_at or mirror.started) - mirror.started)
        _sink(lambda: render_png(model, data, snap, *opts.size, caption=caption), sink_errors)
    return mirror, data


def _sink(write: Callable[[], object], errors: list[OutputError] | None) -> None:
    """Run an output writer; collect its ``OutputError`` in ``errors`` when a list is given."""
    try:
        write()
    except OutputError as e:
        if errors is None:
            raise
        errors.append(e)


def _loop(
    mirror: Mirror,
    render: RenderCfg,
    opts: LoopOptions,
    viewer: list[Any],
    recorder: LiveRecorder | None,
    stop: threading.Event | None,
) -> float:
    """Tick at ``render_rate_hz`` until the end; returns the run's length [s]."""
    period = 1.0 / render.render_rate_hz
    live = _live(opts.console)
    t0 = time.monotonic()
    next_tick, next_status = t0, t0
    try:
        while not (stop is not None and stop.is_set()):
            now = time.monotonic()
            if opts.duration is not None and now - t0 >= opts.duration:
                return opts.duration
            if viewer and not viewer[0].is_running():
                break
            mirror.update(now)
            if mirror.ready:
                if opts.viewer == "native" and not viewer:
                    viewer.append(open_viewer(mirror.model, mirror.data))
                if viewer:
                    with viewer[0].lock():
                        viewer[0].sync()
                if recorder is not None:
                    recorder.offer(mirror.data, now - t0)
            if live is not None and now >= next_status:
                live.update(status_text(mirror.status(now), mirror))
                next_status = now + STATUS_PERIOD_S
            next_tick += period
            if next_tick < time.monotonic():  # fell behind: skip ticks, keep the phase
                next_tick += period * math.ceil((time.monotonic() - next_tick) / period)
            time.sleep(max(0.0, next_tick - time.monotonic()))
    except KeyboardInterrupt:  # Ctrl-C ends the mirror like closing the viewer; report follows
        INTERRUPTS.note()
    finally:
        if live is not None:
            live.stop()
    return time.monotonic() - t0


def _live(console: Console | None) -> Any:
    if console is None:
        return None
    from rich.live import Live

    live = Live("starting…", console=console, refresh_per_second=4, transient=True)
    live.start()
    return live
