"""XR frames from UDP datagrams, one XRoboToolkit PC-service message per datagram.

The socket is bound to 127.0.0.1 unless told otherwise (binding another address lets anyone
on that network move the robot). Each :meth:`UdpXrSource.poll` drains the non-blocking socket
(at most ``max_per_poll`` datagrams) and returns the newest valid frame; a malformed datagram is
dropped and counted in ``rejects`` by reason (see :mod:`mjscope.teleop.xr.message`). Feed it
without a headset with :func:`mjscope.teleop.xr.sender.send_udp_frames`.
"""

from __future__ import annotations

import logging
import socket

from mjscope.exceptions import MjscopeError
from mjscope.teleop.xr.base import XrFrame, XrSource
from mjscope.teleop.xr.fields import XrMessageError
from mjscope.teleop.xr.message import parse_pc_message

log = logging.getLogger(__name__)

#: Largest accepted datagram [bytes]; a bigger one is rejected as ``too_large``.
MAX_DATAGRAM_BYTES = 65536
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

    Attributes:
        port: The bound port.
        host: The bound address.
    """

    def __init__(
        self,
        port: int = 0,
        host: str = "127.0.0.1",
        max_bytes: int = MAX_DATAGRAM_BYTES,
        max_per_poll: int = 1024,
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
        """The newest valid frame among the datagrams waiting, or ``None``.

        Args:
            now: The caller's clock [s].
        """
        if self._sock is None:
            return None
        newest = None
        for _ in range(self.max_per_poll):
            try:
                data = self._sock.recv(self.max_bytes + 1)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as e:  # e.g. an ICMP error queued on the socket: skip it
                self.rejects["socket_error"] += 1
                log.debug("XR UDP receive error: %s", e)
                continue
            newest = self.accept(data, now) or newest
        return newest

    def close(self) -> None:
        """Close the socket (a later poll returns ``None``)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
