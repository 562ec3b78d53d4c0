"""Record XR frames from any source as a replay file (JSONL), to replay them later.

``RecordingXrSource(make_xr_source("udp", port=9000), XrRecorder("session.jsonl"))`` behaves
like the UDP source and writes every frame it returns; ``t`` counts from the first frame.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

import numpy as np

from mjscope.exceptions import ConfigError, OutputError
from mjscope.paths import check_writable
from mjscope.teleop.xr.base import ControllerState, XrFrame, XrSource
from mjscope.teleop.xr.fields import world_pose_to_xr
from mjscope.teleop.xr.replay import FRAMES, JSONL_SUFFIXES


def _pose(pose: np.ndarray, frame: str) -> list[float]:
    p = world_pose_to_xr(pose) if frame == "xr" else np.asarray(pose, dtype=float)
    return [float(v) for v in p]


def _side(c: ControllerState, frame: str) -> dict[str, Any]:
    return {
        "pose": _pose(c.pose, frame),
        "grip": float(c.grip),
        "trigger": float(c.trigger),
        "primary": bool(c.primary),
        "secondary": bool(c.secondary),
        "menu": bool(c.menu),
        "axis": [float(c.axis[0]), float(c.axis[1])],
        "axis_click": bool(c.axis_click),
    }


def row_dict(t: float, frame: XrFrame, pose_frame: str = "xr") -> dict[str, Any]:
    """A replay row for a frame.

    Args:
        t: Time from the start [s].
        frame: The frame (world frame).
        pose_frame: ``xr`` or ``world``: the frame the row's poses are written in.
    """
    row: dict[str, Any] = {"t": round(float(t), 9)}
    for name in ("left", "right"):
        side = frame.side(name)
        if side is not None:
            row[name] = _side(side, pose_frame)
    if frame.head is not None:
        row["head"] = _pose(frame.head, pose_frame)
    return row


class XrRecorder:
    """Writes frames to a JSONL replay file, header first.

    Args:
        path: A ``.jsonl`` (or ``.ndjson``) file; replaced if it exists.
        frame: ``xr`` (default; the PC service's own frame) or ``world``.

    Attributes:
        rows: Rows written so far.
    """

    def __init__(self, path: str | Path, frame: str = "xr") -> None:
        p = Path(path)
        if p.suffix.lower() not in JSONL_SUFFIXES or frame not in FRAMES:
            raise ConfigError(
                f"XR recording {str(p)!r} (frame {frame!r}): write a "
                f"{' or '.join(JSONL_SUFFIXES)} file in frame {' or '.join(FRAMES)}"
            )
        check_writable(p)
        self.path, self.frame, self.rows = p, frame, 0
        try:
            self._file: IO[str] | None = p.open("w", encoding="utf-8")
        except OSError as e:
            raise OutputError(f"cannot write {str(p)!r}: {e.strerror}; choose another") from e
        self._file.write(json.dumps({"frame": frame}) + "\n")

    def write(self, t: float, frame: XrFrame) -> None:
        """Append one frame at time ``t`` [s] from the start."""
        if self._file is None:
            raise OutputError(f"XR recording {str(self.path)!r} is closed")
        self._file.write(json.dumps(row_dict(t, frame, self.frame)) + "\n")
        self._file.flush()
        self.rows += 1

    def close(self) -> None:
        """Close the file."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> XrRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RecordingXrSource(XrSource):
    """Wraps a source and records every frame it returns.

    Args:
        source: The source to record.
        recorder: Where to write; closed with this source.
    """

    def __init__(self, source: XrSource, recorder: XrRecorder) -> None:
        super().__init__()
        self.source, self.recorder = source, recorder
        self.rejects = source.rejects  # the same counter
        self._t0: float | None = None

    def poll(self, now: float) -> XrFrame | None:
        """The wrapped source's frame, recorded.

        Args:
            now: The caller's clock [s].
        """
        frame = self.source.poll(now)
        self.received = self.source.received
        if frame is not None:
            if self._t0 is None:
                self._t0 = now
            self.recorder.write(now - self._t0, frame)
        return frame

    def close(self) -> None:
        """Close the source and the recording."""
        self.source.close()
        self.recorder.close()
