"""``mjscope demo`` part for the hand: open → fist → open on the bundled G20."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rich.console import Console

from mjscope.hand.bridge import HandBridge, HandBridgeCfg
from mjscope.hand.model import build_hand_model
from mjscope.hand.profile import load_profile
from mjscope.report import Figure, Report, Section, Table, write_html
from mjscope.sim.render import (
    OffscreenRenderer,
    caption_text,
    image_strip,
    save_png,
    write_video,
)

DEMO_MODEL = "g20_left"
SLEW_RAD_S = 3.0  # demo joint speed [rad/s]
STEPS_PER_POSE = 60  # control steps per command
FRAME_EVERY = 3  # control steps per GIF frame
FRAME_SIZE = (640, 480)  # demo frames [px]


def run_demo(out: Path, con: Console) -> tuple[list[Path], int]:
    """Write ``open_fist_open.gif`` and ``open_fist_open.png`` into ``out/hand``.

    Returns:
        The written files and the exit code (0).
    """
    profile = load_profile()
    bridge = HandBridge(build_hand_model(DEMO_MODEL, profile), HandBridgeCfg(slew_rad_s=SLEW_RAD_S))
    frames: list[np.ndarray] = []
    keys: list[np.ndarray] = []
    with OffscreenRenderer(bridge.model, *FRAME_SIZE) as r:  # camera fitted to the hand
        for cmd in (profile.open_command, profile.fist_command, profile.open_command):
            bridge.command_sdk(cmd)
            for i in range(STEPS_PER_POSE):
                bridge.step()
                if i % FRAME_EVERY == 0:
                    frames.append(r.render(bridge.data, caption_text(bridge.model, bridge.time)))
            keys.append(frames[-1])
    con.print(f"hand: open → fist → open, {len(frames)} frames, slew {SLEW_RAD_S:g} rad/s")
    folder = Path(out) / "hand"
    gif = write_video(frames, folder / "open_fist_open.gif", fps=15)
    strip = save_png(image_strip(keys), folder / "open_fist_open.png")
    page = write_html(
        folder / "report.html",
        Report(
            title="mjscope hand · demo",
            verdict="OK",
            summary=f"{DEMO_MODEL}: open → fist → open, slew {SLEW_RAD_S:g} rad/s, "
            f"{len(frames)} frames",
            sections=(
                Section("Poses", figures=(Figure.from_png(strip, "open, fist, open"),)),
                Section(
                    "Applied joints at the end [rad]",
                    tables=(Table.from_mapping(bridge.positions()),),
                ),
            ),
        ),
    )
    return [gif, strip, page], 0
