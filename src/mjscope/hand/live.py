"""The live bridge loop: real-time control steps, the native viewer, a recording, a snapshot."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mujoco

from mjscope.hand.bridge import HandBridge
from mjscope.sim.viewer import open_viewer

logger = logging.getLogger(__name__)

RECORD_FPS = 30.0
CAMERA = "compare"


@dataclass(frozen=True)
class LiveOptions:
    """Live-loop sinks and limits.

    Attributes:
        duration: Run time [s]; ``None`` until the viewer closes or Ctrl-C.
        viewer: ``none`` or ``native``.
        record: ``.mp4``/``.gif`` path or ``None``.
        realtime: Pace the loop to the control rate (off: as fast as possible).
    """

    duration: float | None = None
    viewer: str = "none"
    record: Path | None = None
    realtime: bool = True


def run_live(bridge: HandBridge, opts: LiveOptions) -> int:
    """Run control steps until the duration ends, the viewer closes or Ctrl-C.

    Returns:
        Control steps run.
    """
    viewer = (
        open_viewer(bridge.model, bridge.data, show_ui=True) if opts.viewer == "native" else None
    )
    counter = [0]
    try:
        frames = _loop(bridge, opts, viewer, counter)
        if opts.record is not None:
            from mjscope.sim.render import write_video

            write_video(frames, opts.record, RECORD_FPS)
        else:
            for _ in frames:
                pass
    except KeyboardInterrupt:
        logger.info("interrupted after %d steps", counter[0])
    finally:
        if viewer is not None:
            viewer.close()
    return counter[0]


def _loop(bridge: HandBridge, opts: LiveOptions, viewer: Any, counter: list[int]) -> Iterator[Any]:
    from loop_rate_limiters import RateLimiter

    rate = RateLimiter(1.0 / bridge.cfg.control_dt, warn=False) if opts.realtime else None
    renderer = None
    if opts.record is not None:
        from mjscope.sim.render import OffscreenRenderer

        renderer = OffscreenRenderer(bridge.model, 480, 360, _camera(bridge.model))
    next_frame = 0.0
    try:
        while opts.duration is None or bridge.time < opts.duration - 1e-9:
            bridge.step()
            counter[0] += 1
            if viewer is not None:
                if not viewer.is_running():
                    break
                viewer.sync()
            if renderer is not None and bridge.time >= next_frame:
                next_frame += 1.0 / RECORD_FPS
                yield renderer.render(bridge.data)
            if rate is not None:
                rate.sleep()
    finally:
        if renderer is not None:
            renderer.close()


def _camera(model: mujoco.MjModel) -> str | None:
    return CAMERA if mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, CAMERA) >= 0 else None


def snapshot(bridge: HandBridge, path: Path) -> Path:
    """Render the current pose to a PNG."""
    from mjscope.sim.render import render_png

    return render_png(bridge.model, bridge.data, path, 640, 480, _camera(bridge.model))
