"""XR frames from a replay file: timed controller states for demos and tests.

Format (``.yaml``/``.yml``, or ``.jsonl``/``.ndjson`` with one JSON object per line)::

    frame: xr            # optional: xr (default) or world
    rows:
      - t: 0.0           # time from the start of the replay [s], non-decreasing
        left:            # optional; a side that is absent is None in that frame
          pose: [0.2, 1.0, -0.3, 0.0, 0.0, 0.0, 1.0]
          grip: 1.0      # 0..1 (default 0)
          trigger: 0.0   # 0..1 (default 0)
          primary: false # X (left) / A (right); also secondary (Y/B), menu, axis_click
          axis: [0.0, 0.0]
        right: {pose: "-0.2,1.0,-0.3,0,0,0,1", grip: 1.0}
        head: [0.0, 1.6, 0.0, 0.0, 0.0, 0.0, 1.0]   # optional

``frame: xr`` poses are headset-frame ``x, y, z, qx, qy, qz, qw`` (a list, or the PC service's
comma string), exactly as a UDP capture holds them; ``frame: world`` poses are robot-world
``x, y, z, w, x, y, z``. A JSONL file has the same rows one per line; its first line may be a
header object ``{"frame": "world"}`` (no ``t``). An unknown key is an error naming it.

Playback runs against the caller's clock from the first :meth:`ReplayXrSource.poll` (or an
explicit ``start``): each poll returns the latest row with ``t ≤ elapsed`` once, ``None`` when
no new row is due. With ``loop``, one cycle lasts the last ``t`` plus the last row interval.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
from pathlib import Path
from typing import Any, NamedTuple

from mjscope.config import package_data_path, read_yaml_any
from mjscope.exceptions import ConfigError
from mjscope.teleop.xr.base import XrFrame, XrSource
from mjscope.teleop.xr.fields import XrMessageError, controller, number, pose_world, pose_xr

FRAMES = ("xr", "world")
HEADER_KEYS = ("frame", "rows")
ROW_KEYS = ("t", "left", "right", "head")
SIDE_KEYS = ("pose", "grip", "trigger", "primary", "secondary", "menu", "axis", "axis_click")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
YAML_SUFFIXES = (".yaml", ".yml")
MAX_T_S = 1e7


class ReplayRow(NamedTuple):
    """One row: its time [s] from the start, and the frame (world frame, stamp unset)."""

    t: float
    frame: XrFrame


def demo_replay_path() -> Path:
    """The bundled demo session (``mjscope/data/xr/demo.yaml``).

    Both grips engage, the left controller moves ~10 cm, the right one rotates, X is pressed
    once mid-session with the grip held and A once after release.
    """
    return package_data_path("xr", "demo.yaml")


def _unknown(obj: dict[str, Any], valid: tuple[str, ...], where: str) -> None:
    bad = sorted(str(k) for k in obj if k not in valid)
    if bad:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(map(repr, bad))}; valid keys: {', '.join(valid)}"
        )


def _side(obj: Any, frame: str, where: str) -> Any:
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise ConfigError(f"{where}: expected a mapping of {', '.join(SIDE_KEYS)}")
    _unknown(obj, SIDE_KEYS, where)
    if "pose" not in obj:
        raise ConfigError(f"{where}: missing key 'pose'")
    pose = (pose_xr if frame == "xr" else pose_world)(obj["pose"], f"{where}.pose")
    if pose is None:
        return None
    return controller(pose, {k: v for k, v in obj.items() if k != "pose"}, where)


def parse_row(obj: Any, frame: str, where: str) -> ReplayRow:
    """One replay row from its mapping.

    Args:
        obj: The row.
        frame: ``xr`` or ``world``: the frame of the row's poses.
        where: File and row, for messages.

    Raises:
        ConfigError: Unknown key, missing ``t`` or a bad value.
    """
    if not isinstance(obj, dict):
        raise ConfigError(f"{where}: a row is a mapping of {', '.join(ROW_KEYS)}")
    _unknown(obj, ROW_KEYS, where)
    if "t" not in obj:
        raise ConfigError(f"{where}: missing key 't' (time [s])")
    try:
        t = number(obj["t"], "t", 0.0, MAX_T_S)
        left = _side(obj.get("left"), frame, f"{where}.left")
        right = _side(obj.get("right"), frame, f"{where}.right")
        head_pose = obj.get("head")
        conv = pose_xr if frame == "xr" else pose_world
        head = None if head_pose is None else conv(head_pose, f"{where}.head")
    except XrMessageError as e:
        raise ConfigError(f"{where}: {e}") from e
    return ReplayRow(t, XrFrame(stamp_ns=0, left=left, right=right, head=head))


def _check_frame(value: Any, where: str) -> str:
    if value not in FRAMES:
        raise ConfigError(f"{where}: frame must be one of {', '.join(FRAMES)}, got {value!r}")
    return str(value)


def _read_jsonl(path: Path) -> tuple[str, list[tuple[str, Any]]]:
    frame, rows = "xr", list[tuple[str, Any]]()
    lines = path.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as e:
            raise ConfigError(f"{path}:{n}: not a JSON object: fix the line") from e
        if not rows and isinstance(obj, dict) and "frame" in obj and "t" not in obj:
            _unknown(obj, ("frame",), f"{path}:{n} (header)")
            frame = _check_frame(obj.get("frame", "xr"), f"{path}:{n}")
            continue
        rows.append((f"{path}:{n}", obj))
    return frame, rows


def _read_yaml(path: Path) -> tuple[str, list[tuple[str, Any]]]:
    data = read_yaml_any(path)  # mjscope's one YAML loader: size and depth capped
    if isinstance(data, list):
        data = {"rows": data}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a replay file is a mapping with 'rows' (and 'frame')")
    _unknown(data, HEADER_KEYS, str(path))
    frame = _check_frame(data.get("frame", "xr"), str(path))
    rows = data.get("rows")
    if not isinstance(rows, list):
        raise ConfigError(f"{path}: 'rows' must be a list of rows")
    return frame, [(f"{path}: rows[{i}]", r) for i, r in enumerate(rows)]


def load_replay(path: str | Path) -> tuple[ReplayRow, ...]:
    """Read and check a replay file.

    Args:
        path: A ``.yaml``/``.yml`` or ``.jsonl``/``.ndjson`` file.

    Returns:
        The rows, in time order.

    Raises:
        ConfigError: Missing or unreadable file, unknown suffix or key, bad value, no rows,
            or ``t`` going backwards.
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"replay file {str(p)!r} not found; pass an existing file")
    if p.suffix.lower() not in JSONL_SUFFIXES + YAML_SUFFIXES:
        raise ConfigError(
            f"replay file {str(p)!r}: unknown suffix; use one of "
            f"{', '.join(YAML_SUFFIXES + JSONL_SUFFIXES)}"
        )
    try:
        reader = _read_jsonl if p.suffix.lower() in JSONL_SUFFIXES else _read_yaml
        frame, raw = reader(p)
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) else "not UTF-8 text"
        raise ConfigError(f"cannot read replay file {str(p)!r}: {why}; pass a text file") from e
    rows = tuple(parse_row(obj, frame, where) for where, obj in raw)
    if not rows:
        raise ConfigError(f"replay file {str(p)!r} has no rows; add at least one")
    for i in range(1, len(rows)):
        if rows[i].t < rows[i - 1].t:
            raise ConfigError(
                f"{raw[i][0]}: t = {rows[i].t} goes back from {rows[i - 1].t}; sort the rows by t"
            )
    return rows


def loop_period(rows: tuple[ReplayRow, ...]) -> float:
    """One loop cycle [s]: the last ``t`` plus the last row interval (1 s if that is 0)."""
    gap = rows[-1].t - rows[-2].t if len(rows) > 1 else 0.0
    return rows[-1].t + (gap if gap > 0.0 else 1.0)


class ReplayXrSource(XrSource):
    """Plays a replay file against the caller's clock.

    Args:
        path: The replay file (see the module docstring for the format).
        loop: Start over after the last row.
        speed: Playback speed factor (2 = twice as fast).
        start: The caller's clock [s] at which the replay starts; default: the first poll.

    Attributes:
        rows: The checked rows.
        finished: Whether the last row has been delivered (never, when looping).
    """

    def __init__(
        self,
        path: str | Path,
        loop: bool = False,
        speed: float = 1.0,
        start: float | None = None,
    ) -> None:
        super().__init__()
        if not speed > 0.0:
            raise ConfigError(f"replay speed must be > 0, got {speed!r}")
        self.rows = load_replay(path)
        self.loop = bool(loop)
        self.speed = float(speed)
        self._t0 = start
        self._times = [r.t for r in self.rows]
        self.period = loop_period(self.rows)
        self._last: tuple[int, int] | None = None
        self.finished = False

    def _due(self, elapsed: float) -> tuple[int, int, float]:
        cycle = int(elapsed // self.period) if self.loop else 0
        local = elapsed - cycle * self.period
        return cycle, bisect.bisect_right(self._times, local) - 1, cycle * self.period

    def poll(self, now: float) -> XrFrame | None:
        """The row due now if it was not returned yet, else ``None``.

        Args:
            now: The caller's clock [s].
        """
        if self._t0 is None:
            self._t0 = now
        elapsed = (now - self._t0) * self.speed
        if elapsed < 0.0:
            return None
        cycle, i, offset = self._due(elapsed)
        if i < 0 or (cycle, i) == self._last:
            return None
        self._last = (cycle, i)
        self.finished = not self.loop and i == len(self.rows) - 1
        self.received += 1
        row = self.rows[i]
        stamp = max(1, round((offset + row.t) * 1e9))
        return dataclasses.replace(row.frame, stamp_ns=stamp)
