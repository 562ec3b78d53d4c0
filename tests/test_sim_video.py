"""VideoRecorder: frames placed by time stamp, GIF delays, failures that keep an earlier file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import imageio.v2 as iio2
import imageio_ffmpeg
import numpy as np
import pytest
from PIL import Image

from mjscope.exceptions import MjscopeError, OutputError
from mjscope.sim.video import VideoRecorder, write_video
from tests.utils import REPO

LEVELS = (30, 130, 230)  # gray levels far apart enough to survive H.264


def solid(level: int, size: int = 32) -> np.ndarray:
    return np.full((size, size, 3), level, np.uint8)


def mp4_levels(path: Path) -> list[int]:
    """Each decoded frame's mean gray level, rounded to the nearest of LEVELS."""
    means = [float(f.mean()) for f in iio2.get_reader(path)]
    return [min(LEVELS, key=lambda v: abs(v - m)) for m in means]


def gif_delays(path: Path) -> list[int]:
    """Each GIF frame's delay [ms]."""
    im, delays = Image.open(path), []
    for i in range(getattr(im, "n_frames", 1)):
        im.seek(i)
        delays.append(int(im.info["duration"]))
    return delays


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_slots_a_late_frame_missed_repeat_the_frame_before(tmp_path: Path) -> None:
    rec = VideoRecorder(tmp_path / "v.mp4", fps=10.0)
    rec.add(solid(30), t=0.0)
    rec.add(solid(130), t=0.35)  # slots 1-2 had no frame: they repeat the first
    rec.add(solid(230), t=0.39)  # same slot as the previous one: dropped
    rec.add(solid(230), t=0.5)
    assert rec.frames == 6  # five written, the newest held back
    rec.close(end=1.0)  # the last frame fills the slots up to the end
    assert mp4_levels(tmp_path / "v.mp4") == [30] * 3 + [130] * 2 + [230] * 5
    assert imageio_ffmpeg.count_frames_and_secs(str(tmp_path / "v.mp4")) == (10, 1.0)


def test_video_starts_at_its_first_frame_and_end_drops_a_frame_at_the_end(tmp_path: Path) -> None:
    rec = VideoRecorder(tmp_path / "v.mp4", fps=10.0)
    rec.add(solid(30), t=0.2)  # the video starts here
    rec.add(solid(130), t=0.4)
    rec.add(solid(230), t=0.6)  # at the end: slots cover [0.2 s, 0.6 s)
    rec.close(end=0.6)
    assert mp4_levels(tmp_path / "v.mp4") == [30, 30, 130, 130]


def test_without_stamps_one_frame_per_slot(tmp_path: Path) -> None:
    path = write_video([solid(v) for v in LEVELS], tmp_path / "v.mp4", fps=5.0)
    assert mp4_levels(path) == list(LEVELS)


def test_gif_delays_are_whole_centiseconds_and_sum_to_the_run(tmp_path: Path) -> None:
    rec = VideoRecorder(tmp_path / "v.gif", fps=60.0)
    assert rec.fps == 50.0  # 1/60 s is not a whole number of centiseconds; players need >= 2
    assert VideoRecorder(tmp_path / "w.gif", fps=30.0).fps == pytest.approx(100 / 3)
    rec.add(solid(30), t=0.0)
    rec.add(solid(230), t=0.5)
    rec.close(end=2.0)
    assert gif_delays(tmp_path / "v.gif") == [500, 1500]  # repeats as delays, not copies


def test_unwritable_paths_fail_at_construction_in_one_line(tmp_path: Path) -> None:
    for name in ("/proc/x.mp4", "/proc/x.gif"):
        with pytest.raises(OutputError, match=r"folder '/proc' is not writable") as e:
            VideoRecorder(name)
        assert "\n" not in str(e.value)
    with pytest.raises(OutputError, match=r"use a \.mp4 or \.gif"):
        VideoRecorder(tmp_path / "v.avi")
    with pytest.raises(MjscopeError, match="must be > 0"):
        VideoRecorder(tmp_path / "v.mp4", fps=0.0)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".mp4", ".gif"])
def test_failed_or_empty_runs_keep_the_earlier_file(tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"v{suffix}"
    out.write_bytes(b"earlier run")
    VideoRecorder(out).close()  # nothing recorded
    with pytest.raises(RuntimeError):
        write_video((solid(v) if v < 200 else _boom() for v in LEVELS), out)
    assert out.read_bytes() == b"earlier run" and leftovers(tmp_path) == []


def _boom() -> np.ndarray:
    raise RuntimeError("the run failed")


def test_folder_removed_during_the_run_is_one_line_and_ffmpeg_stays_quiet(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "sub"
    rec = VideoRecorder(folder / "v.mp4", fps=10.0)
    folder.rmdir()  # ffmpeg cannot open its output now
    with pytest.raises(OutputError) as e:
        for i in range(200):
            rec.add(solid(LEVELS[i % 3], 64))
        rec.close()
    msg = str(e.value)
    assert "\n" not in msg and str(folder / "v.mp4") in msg and "choose another" in msg
    assert "ffmpeg: " in msg  # ffmpeg's reason, in our line
    rec.close(keep=False)  # closing again after the failure is harmless
    assert capfd.readouterr().err == ""  # ffmpeg's own output never reaches the terminal


DISK_FULL = """
import resource, sys
import numpy as np
from mjscope.exceptions import OutputError
from mjscope.sim.render import VideoRecorder, save_png
path, limit = sys.argv[1], int(sys.argv[2])
noise = np.random.default_rng(0).integers(0, 256, (30, 128, 128, 3), dtype=np.uint8)
rec = None if path.endswith(".png") else VideoRecorder(path, fps=10.0)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    if rec is None:
        save_png(noise[0], path)
    else:
        for f in noise:
            rec.add(f)
        rec.close()
except OutputError as e:
    print(e)
    sys.exit(3)
"""


@pytest.mark.parametrize("suffix", [".mp4", ".gif", ".png"])
def test_a_full_disk_keeps_the_earlier_file(tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"v{suffix}"
    out.write_bytes(b"earlier run")
    env = {**os.environ, "MUJOCO_GL": "egl"}
    args = [sys.executable, "-c", DISK_FULL, str(out), "20000"]  # files above 20 kB: EFBIG
    done = subprocess.run(args, capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert done.returncode == 3, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cannot write {str(out)!r}: "), lines
    assert done.stderr == ""
    assert out.read_bytes() == b"earlier run" and leftovers(tmp_path) == []


CTRL_C = """
import os, signal, sys
import numpy as np
from mjscope.sim.video import VideoRecorder
rec = VideoRecorder(sys.argv[1], fps=10.0)
try:
    for i in range(1000):
        rec.add(np.full((32, 32, 3), 8 * (i % 30), np.uint8))
        if i == 10:
            os.killpg(0, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole group
except KeyboardInterrupt:
    pass
rec.close()
print(rec.frames)
"""


def test_ctrl_c_in_the_terminal_does_not_kill_ffmpeg_mid_file(tmp_path: Path) -> None:
    out = tmp_path / "v.mp4"
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C, str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        start_new_session=True,  # its own process group: the signal stays away from pytest
    )
    assert done.returncode == 0, done.stdout + done.stderr
    frames = int(done.stdout.strip())
    assert 11 <= frames < 1000
    assert imageio_ffmpeg.count_frames_and_secs(str(out))[0] == frames
