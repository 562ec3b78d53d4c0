"""The mirror loop's recording: real time whatever the render speed, off the loop's thread."""

from __future__ import annotations

import itertools
import math
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import imageio.v2 as iio2
import imageio_ffmpeg
import mujoco
import numpy as np
import pytest

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.base import Publisher, Subscriber, Transport
from mjscope.cli import main
from mjscope.exceptions import OutputError
from mjscope.mirror.config import RenderCfg, load_rig_cfg
from mjscope.mirror.loop import LoopOptions, run_loop
from mjscope.models import load
from mjscope.sim import recording

FPS = RenderCfg().render_rate_hz


@pytest.fixture(scope="module")
def model() -> mujoco.MjModel:
    return load("dual_rm75")


class FeedBus(Transport):
    """A source that is always there: every ``take`` returns one valid frame per topic."""

    def __init__(self, on_take: Any = None) -> None:
        self.names = {s.state_topic: s.joint_names for s in load_rig_cfg().sides.values()}
        self.takes = 0
        self.on_take = on_take

    def subscriber(self, topic: str, msg_type: type, depth: int = 100) -> Subscriber:
        return FeedSub(self, topic)

    def publisher(self, topic: str, msg_type: type) -> Publisher:
        raise NotImplementedError

    def close(self) -> None:
        pass


class FeedSub(Subscriber):
    def __init__(self, bus: FeedBus, topic: str) -> None:
        self.bus, self.topic = bus, topic

    def take(self) -> list[Any]:
        self.bus.takes += 1
        if self.bus.on_take is not None:
            self.bus.on_take(self.bus.takes)
        q = 0.3 * math.sin(0.1 * self.bus.takes)
        names = list(self.bus.names[self.topic])
        return [JointState(stamp=Stamp.now(), name=names, position=[q] * len(names))]

    def publisher_count(self) -> int:
        return 1

    def close(self) -> None:
        pass


class SlowRenderer:
    """Takes ``delay`` seconds per frame (software GL on a busy machine, exaggerated)."""

    delay = 0.1
    renders = 0
    gate: threading.Event | None = None
    released: ClassVar[list[bool]] = []

    def __init__(self, model: mujoco.MjModel, width: int, height: int, camera: Any = None):
        pass

    def render(self, data: mujoco.MjData, caption: str | None = None) -> np.ndarray:
        if self.gate is not None and not self.released:
            self.released.append(self.gate.wait(timeout=10.0))
        time.sleep(self.delay)
        type(self).renders += 1
        return np.full((48, 64, 3), 20 * (type(self).renders % 12), np.uint8)

    def close(self) -> None:
        pass


@pytest.fixture()
def slow(monkeypatch: pytest.MonkeyPatch) -> type[SlowRenderer]:
    SlowRenderer.renders, SlowRenderer.gate, SlowRenderer.released = 0, None, []
    monkeypatch.setattr(recording, "OffscreenRenderer", SlowRenderer)
    return SlowRenderer


def changes(path: Path) -> int:
    frames = [f.astype(int) for f in iio2.get_reader(path)]
    return sum(np.abs(a - b).mean() > 2.0 for a, b in itertools.pairwise(frames))


def test_a_slow_renderer_still_gives_a_real_time_video(
    model: mujoco.MjModel, slow: type[SlowRenderer], tmp_path: Path
) -> None:
    out = tmp_path / "v.mp4"
    opts = LoopOptions(duration=1.0, record=out)
    mirror, _ = run_loop(model, load_rig_cfg(), RenderCfg(), FeedBus(), opts)
    assert mirror.ready
    n, _ = imageio_ffmpeg.count_frames_and_secs(str(out))
    assert abs(n - 1.0 * FPS) <= 1, n  # 1 s at 60 fps, though only ~10 frames/s were drawn
    assert 2 <= slow.renders <= 12 and changes(out) <= slow.renders


def test_the_loop_keeps_ticking_while_the_renderer_is_stuck(
    model: mujoco.MjModel, slow: type[SlowRenderer], tmp_path: Path
) -> None:
    slow.gate, slow.delay = threading.Event(), 0.0

    def release_after_30_ticks(takes: int) -> None:
        if takes >= 2 * 30:  # two sides: two takes per tick
            slow.gate.set()  # type: ignore[union-attr]

    opts = LoopOptions(duration=1.0, record=tmp_path / "v.mp4")
    run_loop(model, load_rig_cfg(), RenderCfg(), FeedBus(release_after_30_ticks), opts)
    assert slow.released == [True]  # 30 ticks ran while the first frame was being drawn


def test_ctrl_c_keeps_the_recording(
    model: mujoco.MjModel, slow: type[SlowRenderer], tmp_path: Path
) -> None:
    def interrupt(takes: int) -> None:
        if takes == 2 * 20:
            raise KeyboardInterrupt

    slow.delay = 0.0
    out = tmp_path / "v.mp4"
    run_loop(model, load_rig_cfg(), RenderCfg(), FeedBus(interrupt), LoopOptions(record=out))
    n, _ = imageio_ffmpeg.count_frames_and_secs(str(out))
    assert n >= 15  # about 20 ticks at 60 fps


def test_unwritable_outputs_fail_before_the_run(model: mujoco.MjModel, tmp_path: Path) -> None:
    for opts in (
        LoopOptions(snapshot=Path("/proc/x.png")),
        LoopOptions(record=Path("/proc/x.mp4")),
    ):
        bus = FeedBus()
        with pytest.raises(OutputError, match="not writable"):
            run_loop(model, load_rig_cfg(), RenderCfg(), bus, opts)
        assert bus.takes == 0


def test_demo_run_records_its_duration_at_the_render_rate(tmp_path: Path) -> None:
    out = tmp_path / "arms.mp4"
    assert (
        main(["mirror", "--demo", "--duration", "1.5", "--viewer", "none", "--record", str(out)])
        == 0
    )
    n, secs = imageio_ffmpeg.count_frames_and_secs(str(out))
    # The video starts at the first valid pose (a tick or two in) and ends with the run.
    assert 1.5 - 3 / FPS <= n / FPS <= 1.5 + 1 / FPS, (n, secs)
    frames = [f.astype(int) for f in iio2.get_reader(out)]
    assert np.abs(frames[0] - frames[-1]).mean() > 1.0  # the arms moved
