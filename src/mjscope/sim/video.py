"""Video files that play in real time: frames placed by their time stamps, MP4 or GIF.

A frame stamped ``t`` [s] fills frame slot ``floor(t · fps)``; slots that no frame reached
(the renderer was late) repeat the frame before them, and :meth:`VideoRecorder.close` pads the
end up to the run's end time. So a run of ``T`` seconds gives ``T · fps`` frames whatever the
render speed. The video starts at its first frame's slot.

MP4 (H.264) streams through an ffmpeg process of our own (imageio-ffmpeg's binary): its output
is captured, its exit status checked, and its first error line becomes one
:class:`~mjscope.exceptions.OutputError`. GIF goes through imageio (Pillow) at close; GIF frame
delays are whole centiseconds, so its frame rate is the nearest ``100 / n`` frames/s, n ≥ 2.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from mjscope.exceptions import MjscopeError, OutputError
from mjscope.paths import check_writable, move_into_place, part_path
from mjscope.sim._output import quiet_third_party
from mjscope.sim._sinks import GifSink, Mp4Sink, Sink

SUFFIXES = (".mp4", ".gif")
_EPS = 1e-6  # [frames]: a stamp a hair before a slot boundary still counts as on it


class VideoRecorder:
    """Streams time-stamped frames into an ``.mp4`` (H.264) or ``.gif`` file.

    Frames go to a hidden file beside ``path`` that replaces ``path`` only when :meth:`close`
    keeps it, so a run that fails or records nothing leaves an earlier file in place. MP4
    memory stays flat however long the recording; a GIF holds its distinct frames until close.

    Args:
        path: Output file; the suffix picks the format.
        fps: Frames per second (a GIF uses the nearest whole-centisecond rate, see
            :attr:`fps`).

    Raises:
        OutputError: Unknown suffix, or the path cannot be written (checked here, by creating
            and removing a probe file beside it).
    """

    def __init__(self, path: str | Path, fps: float = 30.0) -> None:
        p = Path(path)
        if p.suffix.lower() not in SUFFIXES:
            raise OutputError(f"cannot record to {str(p)!r}: use a .mp4 or .gif file name")
        if not (math.isfinite(fps) and fps > 0):
            raise MjscopeError(f"video frame rate {fps} must be > 0 frames/s")
        quiet_third_party()
        self.path = check_writable(p)
        self._part = part_path(p)
        kind = GifSink if p.suffix.lower() == ".gif" else Mp4Sink
        self._sink: Sink = kind(self._part, p, fps)
        #: Frame rate of the file [frames/s] (a GIF's differs from the one asked for).
        self.fps = self._sink.fps
        self._held: np.ndarray | None = None  # newest frame, not yet written
        self._held_slot = 0
        self._written = 0
        self._closed = False

    @property
    def frames(self) -> int:
        """Frames in the video so far (written, plus the newest one held back)."""
        return self._written + (self._held is not None)

    def slot(self, t: float) -> int:
        """The frame slot of time stamp ``t`` [s]."""
        return math.floor(t * self.fps + _EPS)

    def add(self, frame: np.ndarray, t: float | None = None) -> None:
        """Add one ``(h, w, 3)`` uint8 frame.

        The recorder keeps a reference to ``frame`` until it is written: do not modify it.

        Args:
            frame: The picture.
            t: Its time stamp [s] on any clock that all stamps share; ``None`` puts it in the
                slot after the previous frame. Slots skipped since the previous frame repeat
                that frame; a second frame in the same slot (or an earlier one) is dropped.

        Raises:
            OutputError: The file cannot be written (full disk, folder removed, ...).
        """
        if self._held is None:
            self._held, self._held_slot = frame, 0 if t is None else self.slot(t)
            return
        s = self._held_slot + 1 if t is None else self.slot(t)
        if s <= self._held_slot:
            return
        self._emit(s - self._held_slot)
        self._held, self._held_slot = frame, s

    def _emit(self, n: int) -> None:
        """Write the held frame into ``n`` slots."""
        assert self._held is not None
        self._sink.write(self._held, n)
        self._written += n

    def close(self, keep: bool = True, end: float | None = None) -> Path:
        """Finish the file; it replaces ``path`` when ``keep`` and at least one frame was added.

        Args:
            keep: Keep the file (``False``: a failed run; the earlier file stays).
            end: End of the run [s] on the stamps' clock: the last frame is repeated up to it
                (slots ``< ceil(end · fps)``; a last frame at or after ``end`` is dropped
                unless it is the only one). ``None``: the last frame fills one slot.

        Returns:
            The output path.

        Raises:
            OutputError: The file cannot be finished or moved into place.
        """
        if self._closed:
            return self.path
        self._closed = True
        try:
            if keep and self._held is not None:
                n = 1 if end is None else math.ceil(end * self.fps - _EPS) - self._held_slot
                if n > 0 or self._written == 0:
                    self._emit(max(1, n))
            self._held = None
            if keep and self._written:
                self._sink.finish()
                move_into_place(self._part, self.path)
            else:
                self._sink.abort()
        except BaseException:
            self._sink.abort()
            raise
        finally:
            self._part.unlink(missing_ok=True)
        return self.path


def write_video(frames: Iterable[np.ndarray], path: str | Path, fps: float = 30.0) -> Path:
    """Write frames, one per slot, to ``.mp4`` (H.264) or ``.gif``.

    Args:
        frames: RGB uint8 frames of equal size.
        path: Output file; the suffix picks the format.
        fps: Frames per second.

    Returns:
        The written path.

    Raises:
        OutputError: Unknown suffix or unwritable path (before the first frame is taken), or
            the file cannot be written; an earlier file of that name is then left in place.
    """
    rec = VideoRecorder(path, fps)
    ok = False
    try:
        for f in frames:
            rec.add(f)
        ok = True
    finally:
        rec.close(keep=ok)
    return rec.path
