r"""The command connection to a RealMan controller: JSON over TCP, replies matched by key.

A reader thread drains the socket all the time (pass-through commands get no reply, but some
firmware sends ``joint_state`` reports anyway; they must never pile up), splits the stream on
``\r\n`` with a bounded buffer, counts bad lines by reason, and hands each message to the
first waiter registered for its key (``command`` of a reply, ``state`` of a report).
"""

from __future__ import annotations

import logging
import socket
import threading
from collections import Counter
from typing import Any

from mjscope.teleop.feedback import AdapterError
from mjscope.teleop.realman.protocol import (
    MAX_REPLY_BYTES,
    LineFramer,
    decode,
    encode,
    message_key,
)

log = logging.getLogger(__name__)

SOCKET_TIMEOUT_S = 0.5  # a send that blocks this long means the controller stopped reading [s]
MAX_UNSOLICITED_KEYS = 16  # distinct keys counted by name; the rest count as "other"


class Waiter:
    """A pending reply: set by the reader thread when a message with ``key`` arrives."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.msg: dict[str, Any] | None = None
        self.event = threading.Event()


class CommandLink:
    """One TCP connection to the controller.

    Args:
        where: ``"left arm at HOST:PORT"``, the start of every error message.
        bad: Where to count bad lines (shared across reconnections); a new one by default.
        unsolicited: Where to count messages nobody waited for; a new one by default.

    Attributes:
        bad: Bad reply lines by reason (``not_json``, ``oversized`` …).
        unsolicited: Valid messages nobody waited for, by key.
        closed_why: Why the connection ended (``""`` while open).
    """

    def __init__(
        self,
        where: str,
        bad: Counter[str] | None = None,
        unsolicited: Counter[str] | None = None,
    ) -> None:
        self.where = where
        self.bad: Counter[str] = Counter() if bad is None else bad
        self.unsolicited: Counter[str] = Counter() if unsolicited is None else unsolicited
        self.closed_why = ""
        self._sock: socket.socket | None = None
        self._waiters: list[Waiter] = []
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._reader: threading.Thread | None = None

    def open(self, host: str, port: int, timeout_s: float, fix: str) -> None:
        """Connect and start the reader thread.

        Raises:
            AdapterError: The controller cannot be reached within ``timeout_s``.
        """
        try:
            self._sock = socket.create_connection((host, port), timeout=timeout_s)
        except OSError as e:
            why = "timed out" if isinstance(e, TimeoutError) else (e.strerror or str(e))
            raise AdapterError(f"{self.where}: cannot connect ({why}); {fix}") from None
        self._sock.settimeout(SOCKET_TIMEOUT_S)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._reader = threading.Thread(target=self._read_loop, name="rm-link", daemon=True)
        self._reader.start()

    @property
    def local_ip(self) -> str:
        """This end's address of the connection (the push target by default)."""
        assert self._sock is not None
        return str(self._sock.getsockname()[0])

    @property
    def peer_ip(self) -> str:
        """The controller's address (push datagrams must come from it)."""
        assert self._sock is not None
        return str(self._sock.getpeername()[0])

    def send(self, msg: dict[str, Any]) -> None:
        """Send one message.

        Raises:
            AdapterError: The connection is closed or the send failed.
        """
        if self.closed_why or self._sock is None:
            raise AdapterError(f"{self.where}: {self.closed_why or 'not connected'}; reconnect")
        try:
            with self._send_lock:
                self._sock.sendall(encode(msg))
        except OSError as e:
            self._mark_closed(f"send failed ({e.strerror or 'timed out'})")
            raise AdapterError(
                f"{self.where}: {self.closed_why}; check the network and the controller"
            ) from None

    def expect(self, key: str) -> Waiter:
        """Register for the next message with ``key`` (before sending what it answers)."""
        w = Waiter(key)
        with self._lock:
            self._waiters.append(w)
        return w

    def wait(self, w: Waiter, timeout_s: float, what: str) -> dict[str, Any]:
        """The message ``w`` waited for.

        Raises:
            AdapterError: Nothing arrived within ``timeout_s``, or the connection closed.
        """
        w.event.wait(timeout_s)
        self.forget(w)
        if w.msg is not None:
            return w.msg
        if self.closed_why:
            raise AdapterError(f"{self.where}: {self.closed_why} while waiting for {what}")
        raise AdapterError(
            f"{self.where}: no {what} within {timeout_s:g} s; the controller stopped answering "
            "(check it is a RealMan controller on its JSON port, and the network)"
        )

    def request(self, msg: dict[str, Any], key: str, timeout_s: float) -> dict[str, Any]:
        """Send ``msg`` and return the reply with ``key`` (see :meth:`wait`)."""
        w = self.expect(key)
        try:
            self.send(msg)
        except AdapterError:
            self.forget(w)
            raise
        return self.wait(w, timeout_s, f"reply to {msg['command']}")

    def forget(self, w: Waiter) -> None:
        """Stop waiting for ``w``."""
        with self._lock:
            if w in self._waiters:
                self._waiters.remove(w)

    def close(self) -> None:
        """Close the connection (sends nothing) and stop the reader."""
        self._mark_closed("connection closed")
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=2.0)

    def _read_loop(self) -> None:
        framer = LineFramer(MAX_REPLY_BYTES)
        assert self._sock is not None
        while not self.closed_why:
            try:
                data = self._sock.recv(65536)
            except TimeoutError:
                continue
            except ConnectionResetError:  # the controller went away without a clean close
                self._mark_closed("the controller closed the connection (reset)")
                return
            except OSError as e:
                self._mark_closed(f"connection lost ({e.strerror or e})")
                return
            if not data:
                self._mark_closed("the controller closed the connection")
                return
            before = framer.oversized
            for line in framer.feed(data):
                self._dispatch(line)
            if framer.oversized > before:
                self.bad["oversized"] += framer.oversized - before

    def _dispatch(self, line: bytes) -> None:
        msg, why = decode(line)
        if msg is None:
            self.bad[why] += 1
            return
        key = message_key(msg)
        with self._lock:
            w = next((w for w in self._waiters if w.key == key), None)
            if w is not None:
                self._waiters.remove(w)
        if w is None:
            k = key[:40]
            known = k in self.unsolicited or len(self.unsolicited) < MAX_UNSOLICITED_KEYS
            self.unsolicited[k if known else "other"] += 1
            return
        w.msg = msg
        w.event.set()

    def _mark_closed(self, why: str) -> None:
        with self._lock:
            if not self.closed_why:
                self.closed_why = why
                log.debug("%s: %s", self.where, why)
            waiters, self._waiters = self._waiters, []
        for w in waiters:
            w.event.set()
