"""XR frames from UDP datagrams, one XRoboToolkit PC-service message per datagram.

The socket is bound to 127.0.0.1 unless told otherwise (binding another address lets anyone
on that network move the robot). Each :meth:`UdpXrSource.poll` drains the non-blocking socket
without parsing what it drains (at most ``max_per_poll`` datagrams and ``max_poll_s``), keeps
the newest few, and parses from the newest back only until it has both sides: one datagram
when the newest is valid and carries both controllers. The rest are superseded — counted in
``dropped``, never parsed — so a flood costs a receive per datagram, not a parse. A malformed
datagram that is parsed is dropped and counted in ``rejects`` by reason (see
:mod:`mjscope.teleop.xr.message`). Feed it without a headset with
:func:`mjscope.teleop.xr.sender.send_udp_frames`.
"""

from __future__ import annotations

import logging
import select
import socket
import time
from collections import deque

from mjscope.exceptions import MjscopeError
from mjscope.teleop.xr.base import XrFrame, XrSource
from mjscope.teleop.xr.fields import XrMessageError
from mjscope.teleop.xr.message import parse_pc_message

log = logging.getLogger(__name__)

#: Largest accepted datagram [bytes]; a bigger one is rejected as ``too_large``.
MAX_DATAGRAM_BYTES = 65536
MAX_POLL_S = 0.001  # one poll drains for at most this long [s]
KEEP = 4  # newest datagrams a poll keeps for parsing (the rest are superseded)
_LOOPBACK = ("127.0.0.1", "::1", "localhost")


def open_udp_socket(host: str, port: int) -> socket.socket:
    """A non-blocking UDP socket bound to ``host:port`` (port 0: any free port).

    Raises:
        MjscopeError: The address cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_DGRAM)
    try:
        sock.bind((host, port))
    except (OSError, OverflowError) as e:
        sock.close()
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise MjscopeError(
            f"cannot bind the XR UDP input to {host}:{port}: {why}; "
            "choose another port (0 picks a free one) or host"
        ) from e
    sock.setblocking(False)
    return sock


class UdpXrSource(XrSource):
    """XR frames from PC-service JSON datagrams.

    Args:
        port: UDP port to listen on; 0 picks a free one (read it back from :attr:`port`).
        host: Address to bind; ``127.0.0.1`` unless the sender is on another machine.
        max_bytes: Largest accepted datagram [bytes].
        max_per_poll: Most datagrams read in one poll (the rest wait for the next).
        max_poll_s: Longest one poll drains the socket [s].

    Attributes:
        port: The bound port.
        host: The bound address.
        dropped: Datagrams superseded by a newer one in the same poll (never parsed).
    """

    def __init__(
        self,
        port: int = 0,
        host: str = "127.0.0.1",
        max_bytes: int = MAX_DATAGRAM_BYTES,
        max_per_poll: int = 1024,
        max_poll_s: float = MAX_POLL_S,
    ) -> None:
        super().__init__()
        if max_bytes < 1 or max_per_poll < 1:
            raise MjscopeError(
                f"UDP XR source: max_bytes ({max_bytes}) and max_per_poll ({max_per_poll}) "
                "must be at least 1"
            )
        self._sock: socket.socket | None = open_udp_socket(host, port)
        self.host, self.port = self._sock.getsockname()[:2]
        self.max_bytes = max_bytes
        self.max_per_poll = max_per_poll
        self.max_poll_s = max_poll_s
        self.dropped = 0
        self._parsed = 0
        if host not in _LOOPBACK:
            log.warning("XR UDP input listens on %s:%d, not only on loopback", host, self.port)

    def accept(self, data: bytes, now: float) -> XrFrame | None:
        """Parse one datagram, counting it as received or rejected.

        Args:
            data: The datagram.
            now: The caller's clock [s]; stamps a message that has no ``timeStampNs``.

        Returns:
            The frame, or ``None`` when it was rejected.
        """
        if len(data) > self.max_bytes:
            self.rejects["too_large"] += 1
            return None
        try:
            frame = parse_pc_message(data, now_ns=int(now * 1e9))
        except XrMessageError as e:
            self.rejects[e.reason] += 1
            return None
        self.received += 1
        return frame

    def poll(self, now: float) -> XrFrame | None:
        """The newest valid frame among the datagrams waiting (sides merged), or ``None``.

        Args:
            now: The caller's clock [s].
        """
        if self._sock is None:
            return None
        kept: deque[bytes] = deque(maxlen=KEEP)
        n = self._drain(self._sock, kept)
        frame = self._newest(kept, now)
        self.dropped += n - self._parsed
        return frame

    def _drain(self, sock: socket.socket, kept: deque[bytes]) -> int:
        """Receive what waits (bounded in count and time); keep the newest; return the count."""
        end = time.perf_counter() + self.max_poll_s
        n = 0
        for i in range(self.max_per_poll):
            if i & 15 == 15 and time.perf_counter() > end:
                break
            try:
                data = sock.recv(self.max_bytes + 1)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as e:  # e.g. an ICMP error queued on the socket: skip it
                self.rejects["socket_error"] += 1
                log.debug("XR UDP receive error: %s", e)
                continue
            if len(data) > self.max_bytes:
                self.rejects["too_large"] += 1
                continue
            kept.append(data)
            n += 1
        return n

    def _newest(self, kept: deque[bytes], now: float) -> XrFrame | None:
        """Parse from the newest back until both sides are known; the newest frame, merged."""
        self._parsed = 0
        newest = left = right = None
        while kept and (left is None or right is None):
            frame = self.accept(kept.pop(), now)
            self._parsed += 1
            if frame is None:
                continue
            newest = newest or frame
            left, right = left or frame.left, right or frame.right
        if newest is None or (newest.left is left and newest.right is right):
            return newest
        return XrFrame(newest.stamp_ns, left, right, newest.head)

    def wait(self, timeout_s: float) -> None:
        """Return when a datagram waits, or after ``timeout_s`` [s]."""
        if self._sock is None:
            time.sleep(timeout_s)
            return
        try:
            select.select([self._sock], [], [], timeout_s)
        except (OSError, ValueError):  # closed meanwhile
            time.sleep(timeout_s)

    def close(self) -> None:
        """Close the socket (a later poll returns ``None``)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
