from __future__ import annotations

from pathlib import Path

import imageio.v3 as iio
import mujoco
import numpy as np
import pytest

from mjscope.exceptions import OutputError
from mjscope.sim.render import OffscreenRenderer, image_strip, render_png, write_video

XML = """<mujoco><worldbody><light pos="0 0 3"/>
<geom type="plane" size="1 1 .1" rgba=".3 .3 .3 1"/>
<body name="arm" pos="0 0 .3"><joint name="j" axis="0 1 0"/>
<geom type="capsule" fromto="0 0 0 .4 0 0" size=".05" rgba="1 .2 .2 1"/></body>
</worldbody></mujoco>"""


@pytest.fixture()
def md() -> tuple[mujoco.MjModel, mujoco.MjData]:
    m = mujoco.MjModel.from_xml_string(XML)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    return m, d


def test_png_written_and_not_blank(md, tmp_path: Path) -> None:
    m, d = md
    p = render_png(m, d, tmp_path / "sub" / "x.png", 320, 240)
    img = iio.imread(p)
    assert img.shape == (240, 320, 3)
    assert img.std() > 5.0


def test_render_changes_when_joint_moves(md) -> None:
    m, d = md
    with OffscreenRenderer(m, 160, 120) as r:
        a = r.render(d)
        d.qpos[0] = 1.2
        mujoco.mj_forward(m, d)
        b = r.render(d)
    assert np.abs(a.astype(int) - b.astype(int)).mean() > 1.0


@pytest.mark.parametrize("suffix", [".mp4", ".gif"])
def test_video_formats(md, tmp_path: Path, suffix: str) -> None:
    m, d = md
    with OffscreenRenderer(m, 160, 120) as r:
        frames = []
        for i in range(6):
            d.qpos[0] = 0.2 * i
            mujoco.mj_forward(m, d)
            frames.append(r.render(d))
    p = write_video(frames, tmp_path / f"v{suffix}", fps=10)
    assert p.stat().st_size > 1000
    assert image_strip(frames[:3]).shape == (120, 480, 3)


def test_bad_video_suffix_and_unwritable_folder(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match=r"\.mp4 or \.gif"):
        write_video([], tmp_path / "v.avi")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="cannot create folder"):
        write_video([], blocker / "v.gif")


def test_unknown_camera_is_a_named_error_before_any_gl(md) -> None:
    from mjscope.exceptions import UnknownNameError

    m, _ = md
    with pytest.raises(UnknownNameError, match=r"unknown camera 'top'.*\(none\)"):
        OffscreenRenderer(m, 64, 48, camera="top")
    with pytest.raises(UnknownNameError, match="camera '3'"):
        OffscreenRenderer(m, 64, 48, camera=3)


def test_add_camera_looks_at_target_and_rejects_zero_direction() -> None:
    from mjscope.models.scene import add_camera

    spec = mujoco.MjSpec.from_string(XML)
    add_camera(spec, "side", pos=(0.0, -2.0, 0.3), target=(0.0, 0.0, 0.3))
    m = spec.compile()
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    forward = -d.cam("side").xmat.reshape(3, 3)[:, 2]  # a camera looks along its -z axis
    np.testing.assert_allclose(forward, [0.0, 1.0, 0.0], atol=1e-9)
    with pytest.raises(ValueError, match="same point"):
        add_camera(spec, "bad", pos=(1.0, 1.0, 1.0), target=(1.0, 1.0, 1.0))


def test_png_replaces_an_earlier_file_only_when_complete(
    md, tmp_path: Path, monkeypatch, capfd
) -> None:
    import errno
    import gc

    m, d = md
    out = tmp_path / "x.png"
    out.write_bytes(b"earlier run")
    real_write = Path.write_bytes

    def disk_full(self, data):
        real_write(self, data[:7])  # a partial file, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", disk_full)
    with pytest.raises(OutputError, match=r"cannot write '.*x\.png': No space left on device"):
        render_png(m, d, out, 64, 48)
    monkeypatch.undo()
    gc.collect()  # no writer object is left to retry (and print a traceback) when collected
    assert capfd.readouterr().err == ""
    assert out.read_bytes() == b"earlier run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.png"]  # no partial file left
    render_png(m, d, out, 64, 48)
    assert iio.imread(out).shape == (48, 64, 3)


def test_unwritable_png_fails_before_any_gl_work(md, monkeypatch) -> None:
    from mjscope.sim import render

    m, d = md

    def no_gl(*a, **kw):
        raise AssertionError("a renderer was made for an unwritable path")

    monkeypatch.setattr(render, "OffscreenRenderer", no_gl)
    with pytest.raises(OutputError, match=r"folder '/proc' is not writable") as e:
        render_png(m, d, "/proc/x.png")
    assert "\n" not in str(e.value)
    with pytest.raises(OutputError, match="not writable"):
        render.save_png(np.zeros((4, 4, 3), np.uint8), "/proc/x.png")


QUIET = """
import logging, warnings
import mujoco
logging.basicConfig(level=logging.WARNING)  # what the CLI does
from mjscope.sim.render import OffscreenRenderer, VideoRecorder
m = mujoco.MjModel.from_xml_string("<mujoco><worldbody><geom size='.1'/></worldbody></mujoco>")
with OffscreenRenderer(m, 32, 24) as r:
    r.render(mujoco.MjData(m))
VideoRecorder("v.gif").close()
for mod in ("imageio.plugins.ffmpeg", "imageio_ffmpeg._io", "OpenGL.GL", "PIL.Image"):
    warnings.warn_explicit("third-party noise", UserWarning, "x.py", 1, module=mod)
    logging.getLogger(mod).warning("third-party noise")
warnings.warn_explicit("our warning", UserWarning, "x.py", 1, module="mjscope.dock.env")
logging.getLogger("mjscope.sim.render").warning("our log line")
"""


def test_third_party_warnings_stay_off_the_terminal(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.utils import REPO

    env = {**os.environ, "MUJOCO_GL": "egl", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", QUIET], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr
    assert "third-party noise" not in done.stderr
    assert "our warning" in done.stderr and "our log line" in done.stderr  # ours still show
