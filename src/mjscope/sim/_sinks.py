"""The encoders behind :class:`~mjscope.sim.video.VideoRecorder`: MP4 (ffmpeg) and GIF.

Each writes a frame into ``n`` slots, finishes the file or aborts it. Its errors are one-line
output errors naming the output path (not the hidden part file).
"""

from __future__ import annotations

import signal
import subprocess
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np

from mjscope.exceptions import MjscopeError, OutputError
from mjscope.paths import output_error

MP4_CRF = 15  # H.264 constant rate factor (0 lossless .. 51 worst)


class Sink(Protocol):
    """What the recorder needs of an encoder."""

    fps: float  # frame rate of the file [frames/s]

    def write(self, frame: np.ndarray, n: int) -> None:
        """Write ``frame`` into the next ``n`` slots."""

    def finish(self) -> None:
        """Complete the part file."""

    def abort(self) -> None:
        """Drop everything (a failed run)."""


class Mp4Sink:
    """H.264 frames into an ffmpeg process started at the first frame (its size known then)."""

    def __init__(self, part: Path, shown: Path, fps: float) -> None:
        self.fps = fps
        self._part, self._shown = part, shown
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._shape: tuple[int, ...] = ()
        self._error: OutputError | None = None  # once ffmpeg failed, every call says why

    def _start(self, shape: tuple[int, ...]) -> subprocess.Popen[bytes]:
        import imageio_ffmpeg

        h, w = shape[:2]
        rate = Fraction(self.fps).limit_denominator(1001)
        cmd = [
            imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error", "-y",
            "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", str(rate),
            "-i", "-", "-an", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2",  # yuv420p: even sizes
            "-c:v", "libx264", "-preset", "veryfast", "-crf", str(MP4_CRF),
            "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4", str(self._part),
        ]  # fmt: skip
        self._log = tempfile.TemporaryFile()
        self._shape = shape
        try:  # its own session: a Ctrl-C in the terminal must not kill it mid-file
            return subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=self._log,
                start_new_session=True,
            )
        except OSError as e:
            raise MjscopeError(f"cannot start ffmpeg ({e}); reinstall imageio-ffmpeg") from e

    def write(self, frame: np.ndarray, n: int) -> None:
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"frames must be (h, w, 3) uint8, got {frame.shape} {frame.dtype}")
        if self._error is not None:
            raise self._error
        if self._proc is None:
            self._proc = self._start(frame.shape)
        elif frame.shape != self._shape:
            raise ValueError(f"frame size {frame.shape} differs from the first {self._shape}")
        buf = np.ascontiguousarray(frame).data  # the pixels, no copy
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            for _ in range(n):
                stdin.write(buf)
        except OSError as e:  # ffmpeg stopped: its own message says why
            raise self._failure(str(e)) from e

    def finish(self) -> None:
        if self._error is not None:
            raise self._error
        if self._proc is None:
            return
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
        except OSError:
            pass  # ffmpeg already gone: its exit status says why
        if self._proc.wait() != 0:
            raise self._failure("ffmpeg failed")

    def abort(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        if self._proc is not None and self._proc.stdin is not None:
            try:
                self._proc.stdin.close()
            except OSError:
                pass

    def _failure(self, fallback: str) -> OutputError:
        assert self._proc is not None
        try:
            rc = self._proc.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            rc = self._proc.wait()
        reason = _ffmpeg_reason(self._log, rc, fallback).replace(str(self._part), "the file")
        self.abort()
        self._error = output_error(self._shown, reason)
        return self._error


def _ffmpeg_reason(log: IO[bytes] | None, rc: int, fallback: str) -> str:
    """The first error line ffmpeg wrote, or the signal that stopped it, or ``fallback``."""
    lines: list[str] = []
    if log is not None:
        log.seek(0)
        lines = [s.strip() for s in log.read().decode(errors="replace").splitlines() if s.strip()]
    errors = [s for s in lines if "rror" in s] or lines
    if errors:
        return "ffmpeg: " + errors[0]
    if rc < 0:
        return f"ffmpeg was stopped by {signal.strsignal(-rc) or f'signal {-rc}'}"
    return fallback


class GifSink:
    """GIF frames held (repeats as a longer delay, not copies) and written at close."""

    def __init__(self, part: Path, shown: Path, fps: float) -> None:
        # Delays are whole centiseconds; players show delays under 2 cs as 10 cs.
        self._cs = max(2, round(100.0 / fps))
        self.fps = 100.0 / self._cs
        self._part, self._shown = part, shown
        self._frames: list[np.ndarray] = []
        self._slots: list[int] = []

    def write(self, frame: np.ndarray, n: int) -> None:
        if self._frames and frame.shape != self._frames[0].shape:
            raise ValueError(f"frame size {frame.shape} differs from the first")
        self._frames.append(frame)
        self._slots.append(n)

    def finish(self) -> None:
        import imageio.v3 as iio

        durations = [10 * self._cs * n for n in self._slots]  # [ms]
        self._part.unlink(missing_ok=True)  # Pillow would append to an existing file
        file = iio.imopen(self._part, "w", extension=".gif")
        options: dict[str, Any] = {"duration": durations, "loop": 0}  # Pillow's GIF options
        try:
            file.write(self._frames, **options)
            file.close()  # Pillow writes here
        except OSError as e:
            # imageio keeps the frames and would retry (and print a traceback) when collected
            getattr(file, "images_to_write", []).clear()
            try:
                file.close()
            except OSError:
                pass
            raise output_error(self._shown, e.strerror or str(e)) from e
        finally:
            self.abort()

    def abort(self) -> None:
        self._frames, self._slots = [], []
