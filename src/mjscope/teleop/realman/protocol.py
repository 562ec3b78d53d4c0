r"""Wire basics of the RealMan JSON protocol: ``\r\n`` framing, compact JSON, units.

Every message ends with ``\r\n``. Requests may be pretty-printed (they contain ``\n`` and tabs),
so a receiver buffers the stream and splits on ``\r\n`` only; several messages can arrive in one
``recv()``. Joint angles travel as integers in 0.001°, positions in 0.001 mm, Euler angles in
0.001 rad; joint speed limits in 0.001 RPM and acceleration limits in 0.001 RPM/s.

Bytes from the network are hostile: a line longer than the bound is dropped (its bytes up to
the next ``\r\n`` are discarded), and :func:`decode` never raises — it returns the reason.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any, TypeGuard

import numpy as np
import numpy.typing as npt

TERMINATOR = b"\r\n"
MAX_REPLY_BYTES = 4096  # a controller reply (the ROS driver gives up past 500 bytes) [B]
MAX_REQUEST_BYTES = 16384  # a request to the emulator, pretty-printed ones included [B]
MAX_DATAGRAM_BYTES = 1800  # the ROS driver's UDP buffer; a 7-DoF push is ~600 B [B]

MILLIDEG_PER_RAD = 180_000.0 / math.pi  # wire joint unit: 0.001°
DEG_S_PER_RPM = 6.0  # 1 RPM = 360°/60 s
INT_MIN, INT_MAX = -(2**31), 2**31 - 1  # the controller's integers are 32-bit


class LineFramer:
    r"""Splits a byte stream into ``\r\n``-terminated lines, with a bounded buffer.

    Args:
        max_line: Longest line kept [B]; a longer one is dropped and counted.

    Attributes:
        oversized: Lines dropped for exceeding ``max_line``.
    """

    def __init__(self, max_line: int) -> None:
        self.max_line = max_line
        self.oversized = 0
        self._buf = bytearray()
        self._skipping = False  # inside an oversized line: drop until the next terminator

    def feed(self, data: bytes) -> list[bytes]:
        r"""Add received bytes; return the complete lines (without ``\r\n``), oldest first."""
        self._buf += data
        lines: list[bytes] = []
        while (end := self._buf.find(TERMINATOR)) >= 0:
            line = bytes(self._buf[:end])
            del self._buf[: end + len(TERMINATOR)]
            if self._skipping:
                self._skipping = False
            elif len(line) > self.max_line:
                self.oversized += 1
            else:
                lines.append(line)
        if len(self._buf) > self.max_line:
            if not self._skipping:
                self.oversized += 1
            self._skipping = True
            keep = self._buf.endswith(b"\r")  # a terminator may be split across two reads
            self._buf = bytearray(b"\r" if keep else b"")
        return lines


def encode(msg: dict[str, Any]) -> bytes:
    r"""One message as compact JSON + ``\r\n``."""
    return json.dumps(msg, separators=(",", ":")).encode() + TERMINATOR


def decode(line: bytes) -> tuple[dict[str, Any] | None, str]:
    """Parse one line.

    Returns:
        ``(message, "")``, or ``(None, reason)`` with reason ``not_utf8``, ``not_json``,
        ``too_deep`` or ``not_object``.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not_utf8"
    try:
        msg = json.loads(text)
    except RecursionError:
        return None, "too_deep"
    except ValueError:
        return None, "not_json"
    if not isinstance(msg, dict):
        return None, "not_object"
    return msg, ""


def message_key(msg: dict[str, Any]) -> str:
    """What a message answers: its ``command`` (replies) or its ``state`` (reports)."""
    key = msg.get("command", msg.get("state", ""))
    return key if isinstance(key, str) else ""


def rad_to_wire(q: npt.ArrayLike) -> list[int]:
    """Joint angles [rad] → wire integers [0.001°] (rounded to nearest)."""
    return [round(v) for v in np.asarray(q, dtype=float) * MILLIDEG_PER_RAD]


def wire_to_rad(joints: Sequence[int]) -> np.ndarray:
    """Wire integers [0.001°] → ``(n,)`` joint angles [rad]."""
    return np.asarray(joints, dtype=float) / MILLIDEG_PER_RAD


def wire_int(value: Any) -> TypeGuard[int]:
    """Whether ``value`` is a wire integer: an ``int`` (not a bool) within 32 bits."""
    return isinstance(value, int) and not isinstance(value, bool) and INT_MIN <= value <= INT_MAX


def int_list(value: Any, n: int | None = None) -> list[int] | None:
    """``value`` as a list of ``n`` wire integers (any length when ``n`` is None), else ``None``.

    Booleans, floats and integers beyond 32 bits are refused: the wire carries 32-bit integers.
    """
    if not isinstance(value, list) or (n is not None and len(value) != n) or len(value) > 64:
        return None
    if not all(wire_int(v) for v in value):
        return None
    return value


def first_error(value: Any) -> int | None:
    """The first non-zero code of an ``err`` list (or an int code); ``None`` when malformed."""
    if wire_int(value):
        return int(value)
    codes = int_list(value)
    if codes is None:
        return None
    return next((c for c in codes if c), 0)


def deg_s_to_wire_speed(deg_s: float) -> int:
    """Joint speed limit [°/s] → wire [0.001 RPM], truncated as the vendor SDK does.

    A value a rounding error below an integer (a rad → ° round trip) counts as that integer.
    """
    return int(deg_s / DEG_S_PER_RPM * 1000.0 + 1e-6)


def wire_speed_to_deg_s(value: int) -> float:
    """Wire joint speed or acceleration [0.001 RPM(/s)] → [°/s(²)]."""
    return value / 1000.0 * DEG_S_PER_RPM
