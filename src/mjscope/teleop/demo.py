"""``mjscope demo`` part for teleop: a scripted XR session drives both mock arms, with the mirror.

Deterministic (a virtual clock, no sleeping): the bundled XR replay (``data/xr/demo.yaml``:
both grips pressed at 1.2 s, the left controller moves 10 cm, the left X button resets the
left arm with its grip held at 5 s — teleop re-anchors and goes on — grips released at 7.6 s,
the right A button resets the right arm at 8.5 s) runs through the whole teleop chain at
90 Hz on the in-process bus, for the replay's 10 s or the ``duration`` asked for (a longer
one loops the replay). A progress line shows on a terminal. The picture comes from the caller
(the CLI passes the MuJoCo mirror, subscribed to the same bus; this package does not import
the mirror).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from rich.console import Console

from mjscope.bridge.transport.base import Transport
from mjscope.bridge.transport.inproc import InprocTransport
from mjscope.exceptions import MjscopeError
from mjscope.paths import check_writable, ensure_dir, write_json
from mjscope.progress import RunProgress
from mjscope.report import write_html
from mjscope.rig import RigCfg, load_rig_cfg
from mjscope.teleop.build import build_arm, make_adapter
from mjscope.teleop.html_page import teleop_page
from mjscope.teleop.loop import Teleop
from mjscope.teleop.report import arm_report
from mjscope.teleop.urdf import read_urdf
from mjscope.text import plural

DURATION_S = 10.0  # simulated [s] (the replay's length)
REPLAY_PERIOD_S = 10.04  # one pass of the looped replay: last t 10.0 + its row interval [s]
FPS = 12.0  # video frames per second (software GL: a 640×480 frame costs ≈ 40 ms)


class Picture(Protocol):
    """Renders the rig as the transport last showed it (the mirror)."""

    def frame(self, t: float) -> np.ndarray | None:
        """The picture at time ``t`` [s] (``None`` until every side has been seen)."""

    def report(self, t: float) -> dict[str, Any]:
        """The picture source's report."""

    def close(self) -> None:
        """Release the renderer."""


PictureFactory = Callable[[Transport, RigCfg], Picture]


def run_demo(
    out: Path,
    con: Console,
    picture: PictureFactory,
    duration: float | None = None,
    html: str | None = None,
) -> tuple[list[Path], int, dict[str, Any]]:
    """Run the scripted session; write its video, strip, JSON and HTML report to out/teleop.

    The files: ``teleop_demo.mp4``, ``teleop_strip.png``, ``teleop_report.json``,
    ``report.html`` (the page ``mjscope demo``'s index links).

    Args:
        out: The demo's output root.
        con: Console for the summary.
        picture: Builds the picture source on the demo's bus.
        duration: Simulated time [s] (``None``: the replay's 10 s; longer loops the replay).
        html: Also write the HTML page here (``--demo --html PATH``), or ``None``.

    Returns:
        The written files, the exit code (1 if the session did not do what it scripts) and the
        demo's summary (what ``--demo --json`` writes).

    Raises:
        MjscopeError: A duration that is not a positive number, or an ``html`` path that is
            not a writable ``.html`` file (checked before the run).
    """
    from mjscope.sim.render import write_video

    seconds = DURATION_S if duration is None else duration
    if not (math.isfinite(seconds) and 0 < seconds <= 3600):
        raise MjscopeError(f"--duration {seconds} must be > 0 and at most 3600 s for the demo")
    if html is not None and Path(html).suffix.lower() != ".html":
        raise MjscopeError(f"--html {html!r} must end in .html")
    html_path = check_writable(html) if html is not None else None
    sides, mirror, frames = _session(picture, seconds)
    code = 0 if frames and _as_scripted(sides, seconds) else 1
    con.print(_summary(sides, len(frames), seconds))
    out = ensure_dir(Path(out) / "teleop")
    video = write_video(frames, out / "teleop_demo.mp4", fps=FPS) if frames else None
    strip = _strip(frames, out / "teleop_strip.png")
    report = {"sides": sides, "mujoco": mirror}
    json_path = write_json(out / "teleop_report.json", report)
    title = f"mjscope teleop · demo ({seconds:g} s scripted XR session)"
    page = teleop_page(report, [strip] if strip else [], code, title)
    written = [p for p in (video, strip, json_path) if p is not None]
    written.append(write_html(out / "report.html", page))
    if html_path is not None:
        written.append(write_html(html_path, page))
    summary = {
        "exit_code": code,
        "duration_s": seconds,
        "frames": len(frames),
        "files": [str(p) for p in written],
        **report,
    }
    return written, code, summary


def _session(
    picture: PictureFactory, seconds: float
) -> tuple[dict[str, dict[str, Any]], dict[str, Any], list[np.ndarray]]:
    """Run the scripted session: each side's report, the picture's report, the frames."""
    from mjscope.teleop.xr import make_xr_source

    rig, root = load_rig_cfg(), read_urdf()
    with InprocTransport() as bus:
        arms = {
            n: build_arm(root, n, s, make_adapter("mock", n, s), bus) for n, s in rig.sides.items()
        }
        teleop = Teleop(arms, make_xr_source("demo", start=0.0, loop=seconds > DURATION_S))
        pic = picture(bus, rig)
        try:
            frames = _simulate(teleop, pic, seconds)
            mirror = pic.report(seconds)
        finally:
            pic.close()
            teleop.close()
    return {n: arm_report(a) for n, a in arms.items()}, mirror, frames


def _strip(frames: list[np.ndarray], path: Path) -> Path | None:
    """Four full-size frames over the run, side by side (``None`` without frames)."""
    from mjscope.sim.render import image_strip, save_png

    if not frames:
        return None
    picks = np.linspace(0, len(frames) - 1, 4).round().astype(int)
    return save_png(image_strip([frames[i] for i in picks]), path)


def _simulate(teleop: Teleop, pic: Picture, seconds: float) -> list[np.ndarray]:
    rate = max(a.cfg.control_rate_hz for a in teleop.arms.values())
    n = round(seconds * rate)
    teleop.start(0.0)
    frames: list[np.ndarray] = []
    next_frame = 0.0
    with RunProgress("teleop demo", total=n, unit="cycles", dt=1.0 / rate) as bar:
        for k in range(n):
            t = k / rate
            teleop.cycle(t)
            if t >= next_frame:
                img = pic.frame(t)
                if img is not None:
                    frames.append(img)
                next_frame += 1.0 / FPS
            if k % 32 == 0:
                bar.update(k + 1)
        bar.update(n)
    return frames


#: When the bundled replay does what (one pass) [s]: grips pressed, resets by side.
GRIPS_AT_S = 1.2
RESET_AT_S = {"left": 5.0, "right": 8.5}


def expected_resets(side: str, seconds: float) -> int:
    """Resets the replay makes on ``side`` within ``seconds`` (looped every 10 s)."""
    at = RESET_AT_S[side]
    return 0 if seconds <= at else 1 + int((seconds - at) // REPLAY_PERIOD_S)


def _as_scripted(sides: dict[str, dict[str, Any]], seconds: float) -> bool:
    """Arms engaged and moved (once the grips were pressed), the replay's resets, no failure."""
    engaged = seconds > GRIPS_AT_S + 0.5
    return all(
        (not engaged or (r["clutch_engagements"] >= 1 and r["max_joint_speed"]["max"] > 0.0))
        and r["resets"] == expected_resets(n, seconds)
        and r["qp_failures"] == 0
        and not r["safe_stop"]
        for n, r in sides.items()
    )


def _summary(sides: dict[str, dict[str, Any]], n_frames: int, seconds: float) -> str:
    parts = [
        f"{n}: {plural(r['clutch_engagements'], 'engagement')}, {plural(r['resets'], 'reset')}, "
        f"peak joint speed {r['max_joint_speed']['max']:.2f} rad/s"
        for n, r in sides.items()
    ]
    return f"teleop: {plural(n_frames, 'frame')} of {seconds:g} s simulated; " + "; ".join(parts)
