"""LiveRecorder: the loop never waits for GL, the video keeps the stamps' clock."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar

import imageio.v2 as iio2
import imageio_ffmpeg
import mujoco
import numpy as np
import pytest

from mjscope.exceptions import MjscopeError, OutputError
from mjscope.sim import recording
from mjscope.sim.recording import LiveRecorder

XML = """<mujoco><worldbody><light pos="0 0 3"/>
<geom type="plane" size="1 1 .1" rgba=".3 .3 .3 1"/>
<body name="arm" pos="0 0 .3"><joint name="j" axis="0 1 0"/>
<geom type="capsule" fromto="0 0 0 .4 0 0" size=".05" rgba="1 .2 .2 1"/></body>
<body name="ball" mocap="true" pos="0 .5 .3"><geom size=".05" rgba=".2 .2 1 1"/></body>
</worldbody></mujoco>"""


@pytest.fixture(scope="module")
def model() -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(XML)


class GatedRenderer:
    """Draws ``qpos[0]`` as a gray level; its first render waits for ``gate``."""

    gate = threading.Event()
    entered = threading.Event()
    released: ClassVar[list[bool]] = []
    size = (32, 24)

    def __init__(self, model: mujoco.MjModel, width: int, height: int, camera=None) -> None:
        pass

    def render(self, data: mujoco.MjData, caption: str | None = None) -> np.ndarray:
        if not self.released:
            self.entered.set()
            self.released.append(self.gate.wait(timeout=30.0))
        w, h = self.size
        return np.full((h, w, 3), int(data.qpos[0]), np.uint8)

    def close(self) -> None:
        pass


@pytest.fixture()
def gated(monkeypatch: pytest.MonkeyPatch) -> type[GatedRenderer]:
    GatedRenderer.gate, GatedRenderer.entered = threading.Event(), threading.Event()
    GatedRenderer.released = []
    monkeypatch.setattr(recording, "OffscreenRenderer", GatedRenderer)
    return GatedRenderer


def levels(path: Path) -> list[int]:
    return [round(float(f.mean())) for f in iio2.get_reader(path)]


def test_a_stuck_renderer_never_holds_the_loop_and_the_video_keeps_time(
    model: mujoco.MjModel, gated: type[GatedRenderer], tmp_path: Path
) -> None:
    data = mujoco.MjData(model)
    rec = LiveRecorder(model, tmp_path / "v.mp4", fps=30.0)
    offered = []
    for k in range(100):  # one second of a 100 Hz loop, as fast as it goes
        data.qpos[0] = 2 * k
        offered.append(rec.offer(data, 0.01 * k))
        if k == 0:
            assert gated.entered.wait(10.0)  # the thread holds the first copy
    gated.gate.set()  # only now may the renderer finish its first frame
    rec.close(end=1.0)
    assert gated.released == [True]  # the whole loop ran while the first render was stuck
    assert sum(offered) == 30  # a copy per frame time, not per tick
    assert rec.rendered == 2  # the first copy and the newest one; the rest were replaced
    # 30 frames for 1 s at 30 fps: the first frame repeats up to the newest copy (t = 0.97 s).
    assert levels(tmp_path / "v.mp4") == [0] * 29 + [194]


def test_render_errors_surface_at_close_as_one_line(
    model: mujoco.MjModel, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    class Lost(GatedRenderer):
        def render(self, data: mujoco.MjData, caption: str | None = None) -> np.ndarray:
            raise RuntimeError("GL context lost")

    monkeypatch.setattr(recording, "OffscreenRenderer", Lost)
    out = tmp_path / "v.mp4"
    out.write_bytes(b"earlier run")
    rec = LiveRecorder(model, out, fps=30.0)
    rec.offer(mujoco.MjData(model), 0.0)
    with pytest.raises(MjscopeError, match=r"rendering the recording .*v\.mp4 failed: GL context"):
        rec.close()
    assert out.read_bytes() == b"earlier run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.mp4"]


def test_start_failures_are_raised_before_the_loop(
    model: mujoco.MjModel, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def no_gl(*a: object, **kw: object) -> None:
        raise MjscopeError("offscreen rendering failed with MUJOCO_GL='egl'")

    with pytest.raises(OutputError, match="not writable"):
        LiveRecorder(model, "/proc/v.mp4", fps=30.0)
    with pytest.raises(MjscopeError, match="unknown camera 'top'"):
        LiveRecorder(model, tmp_path / "v.mp4", fps=30.0, camera="top")
    monkeypatch.setattr(recording, "OffscreenRenderer", no_gl)
    with pytest.raises(MjscopeError, match="offscreen rendering failed"):
        LiveRecorder(model, tmp_path / "v.mp4", fps=30.0)
    assert list(tmp_path.iterdir()) == []


def test_real_renderer_draws_the_offered_states(model: mujoco.MjModel, tmp_path: Path) -> None:
    data = mujoco.MjData(model)
    rec = LiveRecorder(model, tmp_path / "v.mp4", fps=10.0, width=160, height=120)
    for k in range(10):
        data.qpos[0] = 0.15 * k
        data.mocap_pos[0] = [0.0, 0.5 - 0.1 * k, 0.3]  # mocap bodies move too
        rec.offer(data, 0.1 * k)
    rec.close(end=1.0)
    out = str(tmp_path / "v.mp4")
    assert imageio_ffmpeg.count_frames_and_secs(out) == (10, 1.0)
    frames = [f.astype(int) for f in iio2.get_reader(out)]
    assert np.abs(frames[0] - frames[-1]).mean() > 1.0  # the arm and the ball moved
