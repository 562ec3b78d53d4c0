"""``mjscope demo`` part for the mirror: two mock arms drive the mirror on a virtual clock.

Deterministic (simulated time, no sleeping): the mock arms publish at 90 Hz on the in-process
bus, the mirror coalesces and renders at 15 frames/s; halfway the left arm gets a ``reset``.
"""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
from rich.console import Console

from mjscope.bridge.transport.base import Publisher
from mjscope.bridge.transport.inproc import InprocTransport
from mjscope.mirror.config import load_render_cfg, load_rig_cfg
from mjscope.mirror.mirror import Mirror
from mjscope.mirror.mock_arm import MockArm
from mjscope.models import compile_spec, load_spec
from mjscope.paths import ensure_dir, write_json
from mjscope.report import Figure, Report, Section, Table, write_html
from mjscope.sim.render import (
    OffscreenRenderer,
    caption_text,
    image_strip,
    save_png,
    write_video,
)

DURATION_S = 3.0  # simulated [s]
FPS = 15.0  # demo frames per second
RESET_AT_S = 2.0  # left arm reset [s]
FRAME_SIZE = (640, 480)  # demo frames [px]


def run_demo(out: Path, con: Console) -> tuple[list[Path], int]:
    """Write ``mirror_demo.gif``, ``mirror_strip.png`` and ``mirror_report.json`` into out/mirror.

    Args:
        out: The demo's output root.
        con: Console for progress (the frames simulated).

    Returns:
        The written files and the exit code (1 if the mirror never became ready).
    """
    rig, render = load_rig_cfg(), load_render_cfg()
    model = compile_spec(load_spec("dual_rm75"), "dual_rm75")
    data = mujoco.MjData(model)
    clock = [0.0]
    with InprocTransport() as bus:
        arms = [MockArm(bus, n, s, "sine") for n, s in rig.sides.items()]
        mirror = Mirror(model, data, rig, render, bus, clock=lambda: clock[0])
        reset = bus.publisher(rig.sides["left"].command_topic, str)
        frames = _simulate(arms, mirror, reset, clock)
    con.print(
        f"mirror: {len(frames)} frames of {DURATION_S:g} s simulated "
        f"(left arm reset at {RESET_AT_S:g} s)"
    )
    out = ensure_dir(Path(out) / "mirror")
    gif = write_video(frames, out / "mirror_demo.gif", fps=FPS)
    picks = np.linspace(0, len(frames) - 1, 4).round().astype(int)
    strip = save_png(image_strip([frames[i] for i in picks]), out / "mirror_strip.png")
    summary = mirror.report(now=clock[0])
    report = write_json(out / "mirror_report.json", summary)
    page = write_html(out / "report.html", _page(summary, strip))
    return [gif, strip, report, page], 0 if mirror.ready else 1


def _page(summary: dict, strip: Path) -> Report:
    """The demo's HTML report: per-topic counts and the strip of frames."""
    rows = [
        {"topic": t, **{k: v for k, v in s.items() if not isinstance(v, dict)}}
        for t, s in summary["topics"].items()
    ]
    return Report(
        title="mjscope mirror · demo",
        verdict="OK" if summary["ready"] else "FAIL",
        summary=f"two mock RM75 arms on the in-process bus, {DURATION_S:g} s simulated, "
        f"left arm reset at {RESET_AT_S:g} s",
        sections=(
            Section("Topics", tables=(Table.from_records(rows),)),
            Section("Frames", figures=(Figure.from_png(strip, "mirrored poses over the run"),)),
        ),
    )


def _simulate(
    arms: list[MockArm], mirror: Mirror, reset: Publisher, clock: list[float]
) -> list[np.ndarray]:
    rate = max(a.cfg.control_rate_hz for a in arms)
    steps = int(DURATION_S * rate)
    frames: list[np.ndarray] = []
    next_frame, did_reset = 0.0, False
    with OffscreenRenderer(mirror.model, *FRAME_SIZE) as r:  # camera fitted to both arms
        for k in range(steps):
            t = k / rate
            clock[0] = t
            if not did_reset and t >= RESET_AT_S:
                reset.publish("reset")
                did_reset = True
            for a in arms:
                a.step(t)
            if t >= next_frame:
                mirror.update(t)
                if mirror.ready:
                    frames.append(r.render(mirror.data, caption_text(mirror.model, t)))
                next_frame += 1.0 / FPS
    return frames
