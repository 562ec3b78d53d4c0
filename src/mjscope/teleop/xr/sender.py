"""Drive a UDP XR input without a headset: send frames or play a replay file as datagrams.

Each datagram is one PC-service message (``{"value": "<inner JSON>"}``), what
:class:`~mjscope.teleop.xr.udp.UdpXrSource` reads. From a shell::

    python -m mjscope.teleop.xr send --port 9000 --replay demo        # the bundled demo
    python -m mjscope.teleop.xr send --port 9000 --replay session.jsonl --loop --duration 60
"""

from __future__ import annotations

import dataclasses
import socket
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from mjscope.exceptions import MjscopeError
from mjscope.teleop.xr.base import XrFrame
from mjscope.teleop.xr.message import encode_pc_message
from mjscope.teleop.xr.replay import ReplayRow, load_replay, loop_period

Message = XrFrame | bytes | str


def _payload(message: Message) -> bytes:
    if isinstance(message, XrFrame):
        return encode_pc_message(message).encode()
    return message.encode() if isinstance(message, str) else bytes(message)


def send_udp_frames(
    messages: Iterable[Message],
    port: int,
    host: str = "127.0.0.1",
    period_s: float = 0.0,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Send frames (encoded as PC-service messages) or raw payloads, one datagram each.

    Args:
        messages: :class:`XrFrame` objects (world frame), or ready ``bytes``/``str`` payloads.
        port: The receiver's UDP port.
        host: The receiver's address.
        period_s: Pause after each datagram [s].
        sleep: The pause function (tests pass a fake).

    Returns:
        How many datagrams were sent.

    Raises:
        MjscopeError: A datagram could not be sent (bad address, too large, ...).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sent = 0
    with socket.socket(family, socket.SOCK_DGRAM) as sock:
        for message in messages:
            try:
                sock.sendto(_payload(message), (host, port))
            except (OSError, OverflowError) as e:
                raise MjscopeError(f"cannot send an XR datagram to {host}:{port}: {e}") from e
            sent += 1
            if period_s > 0.0:
                sleep(period_s)
    return sent


def timed_frames(
    rows: tuple[ReplayRow, ...],
    speed: float = 1.0,
    loop: bool = False,
    duration_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[XrFrame]:
    """Yield replay rows as frames at their times (stamp = replay time [ns], at least 1).

    Args:
        rows: Rows from :func:`~mjscope.teleop.xr.replay.load_replay`.
        speed: Playback speed factor.
        loop: Start over after the last row (stop only at ``duration_s``).
        duration_s: Stop after this long [s] of the caller's clock; ``None``: no limit.
        clock: Monotonic clock [s].
        sleep: The pause function.
    """
    start = clock()
    period = loop_period(rows)
    offset = 0.0
    while True:
        for row in rows:
            due = start + (offset + row.t) / speed
            if duration_s is not None and due - start > duration_s:
                return
            sleep(max(0.0, due - clock()))
            yield dataclasses.replace(row.frame, stamp_ns=max(1, round((offset + row.t) * 1e9)))
        if not loop:
            return
        offset += period


def stream_replay_udp(
    path: str | Path,
    port: int,
    host: str = "127.0.0.1",
    speed: float = 1.0,
    loop: bool = False,
    duration_s: float | None = None,
) -> int:
    """Play a replay file to a UDP XR input in real time.

    Args:
        path: The replay file.
        port: The receiver's UDP port.
        host: The receiver's address.
        speed: Playback speed factor (> 0).
        loop: Start over after the last row (then give ``duration_s``, or stop with Ctrl-C).
        duration_s: Stop after this long [s].

    Returns:
        How many datagrams were sent.

    Raises:
        ConfigError: A bad replay file.
        MjscopeError: A bad speed, or sending failed.
    """
    if not speed > 0.0:
        raise MjscopeError(f"replay speed must be > 0, got {speed!r}")
    rows = load_replay(path)
    return send_udp_frames(timed_frames(rows, speed, loop, duration_s), port, host)
