"""The live bridge loop: real-time control steps, the native viewer, a recording, a snapshot.

Steps are paced on an absolute clock (step ``k`` is due at ``k · control_dt`` after the start;
a late step is made up at once), so the bridge's time keeps up with the wall clock. The
recording never slows the loop: each step offers the state with the bridge's time to a
:class:`~mjscope.sim.recording.LiveRecorder`, which renders on its own thread at whatever pace
GL manages and repeats frames where it was late, so the video covers the run in real time.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mjscope.exceptions import OutputError
from mjscope.hand.bridge import HandBridge
from mjscope.progress import RunProgress
from mjscope.signals import INTERRUPTS
from mjscope.sim.viewer import open_viewer

if TYPE_CHECKING:
    from mjscope.sim.recording import LiveRecorder

logger = logging.getLogger(__name__)

RECORD_FPS = 30.0
PROGRESS_EVERY = 50  # control steps between two progress updates
MAX_LAG_S = 0.1  # further behind the clock than this, the loop restarts its clock [s]


@dataclass(frozen=True)
class LiveOptions:
    """Live-loop sinks and limits.

    Attributes:
        duration: Run time [s]; ``None`` until the viewer closes or Ctrl-C.
        viewer: ``none`` or ``native``.
        record: ``.mp4``/``.gif`` path or ``None``.
        realtime: Pace the loop to the control rate (off: as fast as possible).
        size: Recording frame size ``(width, height)`` [px].
        progress: Show the live progress line (a terminal, not ``--quiet``).
    """

    duration: float | None = None
    viewer: str = "none"
    record: Path | None = None
    realtime: bool = True
    size: tuple[int, int] = (640, 480)
    progress: bool = False


def run_live(
    bridge: HandBridge, opts: LiveOptions, sink_errors: list[OutputError] | None = None
) -> int:
    """Run control steps until the duration ends, the viewer closes or Ctrl-C.

    A recording covers the run (Ctrl-C included) at :data:`RECORD_FPS` frames per second of
    the bridge's time; a run that fails keeps an earlier file of that name.

    Args:
        bridge: The bridge to run.
        opts: Duration and sinks.
        sink_errors: When given, a recording that fails at the end of a completed run is
            appended here instead of raised, so the caller can still write its report.

    Returns:
        Control steps run.

    Raises:
        OutputError: The recording path cannot be written (before the first step), or the
            recording failed.
        MjscopeError: No offscreen GL backend, or no display for the native viewer.
    """
    recorder: LiveRecorder | None = None
    if opts.record is not None:
        from mjscope.sim.recording import LiveRecorder

        # camera None: fitted to the hand at the first frame (not placed per model)
        recorder = LiveRecorder(bridge.model, opts.record, RECORD_FPS, *opts.size)
    viewer = None
    counter = [0]
    completed = False
    try:
        if opts.viewer == "native":
            viewer = open_viewer(bridge.model, bridge.data, show_ui=True)
        _loop(bridge, opts, viewer, recorder, counter)
        completed = True
    except KeyboardInterrupt:
        INTERRUPTS.note()
        logger.info("interrupted after %d steps", counter[0])
        completed = True  # Ctrl-C is how a run without --duration ends: keep its recording
    finally:
        if viewer is not None:
            viewer.close()
        if recorder is not None:
            try:
                recorder.close(keep=completed, end=bridge.time)
            except OutputError as e:
                if sink_errors is None or not completed:
                    raise
                sink_errors.append(e)
    return counter[0]


def _loop(
    bridge: HandBridge,
    opts: LiveOptions,
    viewer: Any,
    recorder: LiveRecorder | None,
    counter: list[int],
) -> None:
    dt = bridge.cfg.control_dt
    pace = _Pacer(dt) if opts.realtime else None
    total = None if opts.duration is None else round(opts.duration / dt)
    show = None if opts.progress else False  # None: when stderr is a terminal
    with RunProgress("hand bridge", total, "steps", dt, show=show) as bar:
        while opts.duration is None or bridge.time < opts.duration - 1e-9:
            _tick(bridge, viewer, recorder, counter)
            if viewer is not None and not viewer.is_running():
                break
            if counter[0] % PROGRESS_EVERY == 0:
                bar.update(counter[0], f"{bridge.rejects.total} rejected")
            if pace is not None:
                pace.sleep()


def _tick(
    bridge: HandBridge, viewer: Any, recorder: LiveRecorder | None, counter: list[int]
) -> None:
    """One control step and its sinks."""
    bridge.step()
    counter[0] += 1
    if viewer is not None and viewer.is_running():
        viewer.sync()
    if recorder is not None:
        recorder.offer(bridge.data, bridge.time)


class _Pacer:
    """Sleeps until the next step is due on an absolute clock (no drift from late wake-ups).

    Args:
        period: Step period [s].
    """

    def __init__(self, period: float) -> None:
        self.period = period
        self.due = time.perf_counter() + period  # when the next step is due [s]
        self.restarts = 0

    def sleep(self) -> None:
        """Wait for the next step; a late one runs at once, a far-behind clock restarts."""
        now = time.perf_counter()
        if self.due > now:
            time.sleep(self.due - now)
        elif now - self.due > MAX_LAG_S:  # no burst of catch-up steps after a long stall
            self.restarts += 1
            logger.debug("control loop %.0f ms behind: clock restarted", 1e3 * (now - self.due))
            self.due = now
        self.due += self.period


def snapshot(bridge: HandBridge, path: Path, size: tuple[int, int] = (640, 480)) -> Path:
    """Render the current pose to a PNG.

    Raises:
        OutputError: The path cannot be written; an earlier file stays in place.
    """
    from mjscope.sim.render import caption_text, render_png

    caption = caption_text(bridge.model, bridge.time)
    return render_png(bridge.model, bridge.data, path, *size, caption=caption)
