"""The live hand loop: recording off the control path, real-time video, drift-free pacing."""

from __future__ import annotations

import json
import math
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import imageio_ffmpeg
import mujoco
import numpy as np
import pytest

from mjscope.cli import main
from mjscope.exceptions import OutputError
from mjscope.hand import live
from mjscope.hand.bridge import HandBridge, HandBridgeCfg
from mjscope.hand.live import RECORD_FPS, LiveOptions, run_live
from mjscope.hand.model import build_hand_model
from mjscope.hand.profile import load_profile
from mjscope.sim import recording


@pytest.fixture(scope="module")
def hand() -> Any:
    return build_hand_model("g20_left", load_profile())


@pytest.fixture()
def bridge(hand: Any) -> HandBridge:
    return HandBridge(hand, HandBridgeCfg())


class FakeRenderer:
    """Draws nothing real; ``delay`` seconds per frame; the first frame may wait for ``gate``."""

    delay = 0.0
    gate: threading.Event | None = None
    released: ClassVar[list[bool]] = []

    def __init__(self, model: mujoco.MjModel, width: int, height: int, camera: Any = None):
        self.shape = (height, width, 3)

    def render(self, data: mujoco.MjData, caption: str | None = None) -> np.ndarray:
        if self.gate is not None and not self.released:
            self.released.append(self.gate.wait(timeout=10.0))
        time.sleep(self.delay)
        return np.zeros(self.shape, np.uint8)

    def close(self) -> None:
        pass


@pytest.fixture()
def fake(monkeypatch: pytest.MonkeyPatch) -> type[FakeRenderer]:
    FakeRenderer.delay, FakeRenderer.gate, FakeRenderer.released = 0.0, None, []
    monkeypatch.setattr(recording, "OffscreenRenderer", FakeRenderer)
    return FakeRenderer


def hook_steps(bridge: HandBridge, at: int, action: Any) -> None:
    """Run ``action()`` before control step number ``at`` (1-based)."""
    step, count = bridge.step, [0]

    def wrapped() -> None:
        count[0] += 1
        if count[0] == at:
            action()
        step()

    bridge.step = wrapped  # type: ignore[method-assign]


def frames_of(path: Path) -> int:
    return imageio_ffmpeg.count_frames_and_secs(str(path))[0]


def test_control_steps_go_on_while_the_renderer_is_stuck(
    bridge: HandBridge, fake: type[FakeRenderer], tmp_path: Path
) -> None:
    fake.gate = threading.Event()
    hook_steps(bridge, 30, fake.gate.set)  # the first frame may finish at the last step only
    out = tmp_path / "v.mp4"
    assert run_live(bridge, LiveOptions(duration=0.3, record=out)) == 30
    assert fake.released == [True]
    assert abs(frames_of(out) - 0.3 * RECORD_FPS) <= 1


def test_a_slow_renderer_still_gives_a_video_of_the_run(
    bridge: HandBridge, fake: type[FakeRenderer], tmp_path: Path
) -> None:
    fake.delay = 0.1  # ~10 frames/s drawn for a 30 frames/s video
    out = tmp_path / "v.mp4"
    assert run_live(bridge, LiveOptions(duration=1.0, record=out)) == 100
    assert abs(frames_of(out) - 1.0 * RECORD_FPS) <= 1


def test_ctrl_c_keeps_the_recording_up_to_the_interrupt(
    bridge: HandBridge, fake: type[FakeRenderer], tmp_path: Path
) -> None:
    def interrupt() -> None:
        raise KeyboardInterrupt

    hook_steps(bridge, 21, interrupt)
    out = tmp_path / "v.mp4"
    assert run_live(bridge, LiveOptions(record=out)) == 20
    assert frames_of(out) == math.ceil(bridge.time * RECORD_FPS - 1e-6)  # 0.2 s: 6 frames


def test_a_failed_run_keeps_the_earlier_file(
    bridge: HandBridge, fake: type[FakeRenderer], tmp_path: Path
) -> None:
    def fail() -> None:
        raise RuntimeError("bridge failed")

    hook_steps(bridge, 5, fail)
    out = tmp_path / "v.mp4"
    out.write_bytes(b"earlier run")
    with pytest.raises(RuntimeError, match="bridge failed"):
        run_live(bridge, LiveOptions(duration=1.0, record=out))
    assert out.read_bytes() == b"earlier run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.mp4"]


def test_unwritable_recording_fails_before_the_first_step(bridge: HandBridge) -> None:
    with pytest.raises(OutputError, match="not writable"):
        run_live(bridge, LiveOptions(duration=1.0, record=Path("/proc/x.mp4")))
    assert bridge.time == 0.0


class FakeClock:
    """``time`` stand-in: each sleep overshoots by ``late`` [s]; each step costs ``work`` [s]."""

    def __init__(self, late: float = 5e-4) -> None:
        self.now, self.late = 100.0, late

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s + self.late


def test_pacing_does_not_drift_and_a_stall_causes_no_burst(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(
        live, "time", SimpleNamespace(perf_counter=clock.perf_counter, sleep=clock.sleep)
    )
    pace = live._Pacer(0.01)
    for _ in range(400):
        clock.now += 0.002  # the step's own work
        pace.sleep()
    # 400 steps in 4 s: late wake-ups are made up (a limiter restarting from "now" gains 0.2 s)
    assert clock.now - 100.0 == pytest.approx(4.0, abs=1e-3)
    clock.now += 0.5  # a stall of half a second
    pace.sleep()
    assert pace.restarts == 1
    before = clock.now
    pace.sleep()  # the next step waits a period again instead of running 50 steps back to back
    assert clock.now - before == pytest.approx(0.01, abs=1e-3)


def test_cli_live_run_records_its_duration(tmp_path: Path) -> None:
    out, report = tmp_path / "x.mp4", tmp_path / "r.json"
    argv = ["hand", "--transport", "inproc", "--duration", "1", "--record", str(out)]
    assert main([*argv, "--report", str(report)]) == 0
    assert json.loads(report.read_text())["steps"] == 100
    n, secs = imageio_ffmpeg.count_frames_and_secs(str(out))
    assert abs(n - 1.0 * RECORD_FPS) <= 1, (n, secs)
