r"""A believable RealMan arm controller on loopback: JSON over TCP, realtime push over UDP.

One background thread serves every client (buffered, split on ``\r\n``, several messages
per ``recv()``, pretty-printed requests accepted, bounded buffers), moves the simulated arm
under its joint limits every 5 ms, and sends ``realtime_arm_joint_state`` datagrams at the
configured cycle — to loopback addresses only. The vendor SDK accepts it (tested).

Not emulated: Cartesian moves (``movel``/``movec``/``movep*``), force control, grippers and
IO, teach and drag modes, dynamics, collisions, the 4th-generation protocol.

Fault injection for tests (:class:`Faults`, changeable while running): added latency and
jitter of replies and pushes, lost push datagrams, a controller that goes away after a while,
dropped replies, injected error codes, a controller that stops answering (TCP and push), and
malformed replies or datagrams.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import selectors
import socket
import threading
import time
from collections import Counter, deque
from types import TracebackType

import numpy as np

from mjscope.exceptions import MjscopeError, UnknownNameError
from mjscope.teleop.emulator.arm import ARMS
from mjscope.teleop.emulator.config import Faults, RmEmulatorCfg
from mjscope.teleop.emulator.delivery import Delivery
from mjscope.teleop.emulator.replies import LOG_LENGTH, Controller, PushSettings, loopback
from mjscope.teleop.realman.protocol import MAX_REQUEST_BYTES, LineFramer, decode, encode

__all__ = ["Faults", "RmEmulator", "RmEmulatorCfg"]

log = logging.getLogger(__name__)

TICK_S = 0.005  # the controller's cycle: motion step and push unit [s]
MAX_DT_S = 0.05  # a late tick integrates at most this much [s]
CLIENT_SEND_TIMEOUT_S = 0.2  # a client that does not read for this long is dropped [s]
MALFORMED = (b'{"state":"current_arm_state","arm_state":{"joint":[1,2', b"\xff\xfe{}", b"[1,2,3]")


class RmEmulator:
    """The emulated controller; ``with RmEmulator(cfg) as emu: ...`` runs it in a thread.

    Args:
        cfg: What to emulate (default :class:`RmEmulatorCfg` with ``port=0``).
        faults: Injected faults (default none).

    Attributes:
        faults: The live fault settings.
        controller: The controller state (read it under :attr:`lock`).
        lock: Held by the server thread while it changes state.
        bad_requests: Bad request lines by reason.
        pushes: Push datagrams sent.

    Raises:
        UnknownNameError: An unknown arm model.
        MjscopeError: A power-on pose of the wrong size or beyond a joint limit.
    """

    def __init__(self, cfg: RmEmulatorCfg | None = None, faults: Faults | None = None) -> None:
        self.cfg = cfg or RmEmulatorCfg(port=0)
        if self.cfg.arm not in ARMS:
            raise UnknownNameError("arm", self.cfg.arm, ARMS, "use --arm rm75")
        spec = ARMS[self.cfg.arm]()
        q0 = np.asarray(self.cfg.initial_joints_deg or [0.0] * spec.dof, dtype=float)
        push = PushSettings(cycle=self.cfg.push_cycle)
        if self.cfg.push_port is not None:
            push.port, push.enable = self.cfg.push_port, True
        self.faults = faults or Faults()
        self.controller = Controller(spec, q0, push, lambda: self.faults.arm_err)
        self.lock = threading.Lock()
        self.bad_requests: Counter[str] = Counter()
        self.pushes = 0
        self.push_log: deque[tuple[float, list[int]]] = deque(maxlen=LOG_LENGTH)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._listener: socket.socket | None = None
        self._port: int | None = None
        self._clients: dict[socket.socket, LineFramer] = {}
        self._outbox: list[tuple[float, int, socket.socket | None, bytes]] = []  # None: push
        self.delivery = Delivery(self.faults)
        self.gone = False  # the controller went away (Faults.disconnect_after_s) ...
        self.gone_at = float("nan")  # ... at this monotonic time [s]
        self._udp: socket.socket | None = None
        self._seq = itertools.count()
        self._movej_client: socket.socket | None = None
        self._malformed = itertools.cycle(MALFORMED)

    # -- life cycle ---------------------------------------------------------------------------

    def start(self) -> RmEmulator:
        """Listen and start serving in a background thread.

        Raises:
            MjscopeError: The port cannot be bound (in use, or not allowed), or the host is not
                a loopback address.
        """
        if not loopback(self.cfg.host):
            raise MjscopeError(
                f"rm-emulator: host {self.cfg.host!r} is not a loopback address; it serves "
                "127.0.0.1 only"
            )
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.cfg.host, self.cfg.port))
        except OSError as e:
            sock.close()
            raise MjscopeError(
                f"rm-emulator: cannot listen on {self.cfg.host}:{self.cfg.port} ({e.strerror}); "
                "pick a free --port (0 = any free one)"
            ) from None
        sock.listen(self.cfg.max_clients)
        sock.setblocking(False)
        self._listener = sock
        self._port = int(sock.getsockname()[1])
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name="rm-emulator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close every connection and wait for the thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self._thread = None

    def __enter__(self) -> RmEmulator:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The TCP port it listens on."""
        assert self._port is not None, "start() first"
        return self._port

    @property
    def address(self) -> str:
        """``HOST:PORT`` to connect to."""
        return f"{self.cfg.host}:{self.port}"

    @property
    def running(self) -> bool:
        """Whether the server thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def joints_deg(self) -> np.ndarray:
        """``(dof,)`` a copy of the simulated joint angles [deg]."""
        with self.lock:
            return self.controller.arm.q.copy()

    def canfd_log(self) -> list[tuple[float, list[int]]]:
        """Pass-through commands as received: (monotonic time [s], joints [0.001°])."""
        with self.lock:
            return list(self.controller.canfd_log)

    def pushes_sent(self) -> list[tuple[float, list[int]]]:
        """Push datagrams as sent: (monotonic time [s], joints [0.001°])."""
        with self.lock:
            return list(self.push_log)

    # -- the server thread --------------------------------------------------------------------

    def _serve(self) -> None:
        assert self._listener is not None
        sel = selectors.DefaultSelector()
        sel.register(self._listener, selectors.EVENT_READ)
        self._udp = udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        started = last = next_tick = time.monotonic()
        ticks = 0
        try:
            while not self._stop.is_set():
                if not self.gone and self.delivery.gone(time.monotonic() - started):
                    self._go_away(sel)
                due = min([next_tick, *(o[0] for o in self._outbox[:1])])
                for key, _ in sel.select(max(0.0, due - time.monotonic())):
                    if key.fileobj is self._listener:
                        self._accept(sel)
                    else:
                        self._read(sel, key.fileobj)  # type: ignore[arg-type]
                now = time.monotonic()
                if now >= next_tick:
                    self._tick(min(now - last, MAX_DT_S), now, ticks)
                    last, ticks = now, ticks + 1
                    next_tick = max(next_tick + TICK_S, now)
                self._flush(sel, now)
        finally:
            for c in list(self._clients):
                self._drop(sel, c)
            sel.close()
            udp.close()
            if not self.gone:
                self._listener.close()

    def _go_away(self, sel: selectors.BaseSelector) -> None:
        """The controller is switched off: close everything, push nothing, accept nobody."""
        assert self._listener is not None
        log.info("rm-emulator: going away (disconnect_after_s)")
        self.gone, self.gone_at = True, time.monotonic()
        sel.unregister(self._listener)
        self._listener.close()  # first: nobody reconnects between the closes
        for c in list(self._clients):
            self._drop(sel, c)
        self._outbox.clear()

    def _accept(self, sel: selectors.BaseSelector) -> None:
        assert self._listener is not None
        try:
            conn, _ = self._listener.accept()
        except OSError:
            return
        if len(self._clients) >= self.cfg.max_clients:
            self.bad_requests["too_many_clients"] += 1
            conn.close()
            return
        conn.settimeout(CLIENT_SEND_TIMEOUT_S)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._clients[conn] = LineFramer(MAX_REQUEST_BYTES)
        sel.register(conn, selectors.EVENT_READ)

    def _read(self, sel: selectors.BaseSelector, conn: socket.socket) -> None:
        try:
            data = conn.recv(65536)
        except OSError:
            data = b""
        if not data:
            self._drop(sel, conn)
            return
        framer = self._clients[conn]
        before = framer.oversized
        lines = framer.feed(data)
        if framer.oversized > before:
            self.bad_requests["oversized"] += framer.oversized - before
        now = time.monotonic()
        for line in lines:
            msg, why = decode(line)
            if msg is None:
                self.bad_requests[why] += 1
                continue
            try:
                with self.lock:
                    replies = self.controller.handle(msg, now)
            except Exception as e:  # a bug must not end the server: count it and go on
                log.warning("rm-emulator: %r while handling %.80s", e, line)
                self.bad_requests["handler_error"] += 1
                continue
            if msg.get("command") == "movej":
                self._movej_client = conn
            for r in replies:
                self._reply(conn, encode(r), now)

    def _reply(self, conn: socket.socket, data: bytes, now: float) -> None:
        f = self.faults
        if f.silent or f.drop_replies:
            return
        if f.malformed_replies:
            data = next(self._malformed) + b"\r\n"
        at = self.delivery.reply_at(id(conn), now)
        heapq.heappush(self._outbox, (at, next(self._seq), conn, data))

    def _flush(self, sel: selectors.BaseSelector, now: float) -> None:
        while self._outbox and self._outbox[0][0] <= now:
            _, _, conn, data = heapq.heappop(self._outbox)
            if conn is None:
                self._send_push(data)
                continue
            if conn not in self._clients:
                continue
            try:
                conn.sendall(data)
            except OSError:
                self._drop(sel, conn)

    def _tick(self, dt: float, now: float, ticks: int) -> None:
        with self.lock:
            arrived = self.controller.arm.step(dt)
            push = self.controller.push
            datagram = None
            live = not (self.faults.silent or self.gone)
            if push.enable and ticks % push.cycle == 0 and live:
                msg = self.controller.push_datagram()
                self.push_log.append((now, msg["joint_status"]["joint_position"]))
                datagram = encode(msg)
        if arrived and self._movej_client is not None:
            self._reply(self._movej_client, encode(self.controller.arrival()), now)
        if datagram is not None:
            if self.faults.malformed_push:
                datagram = next(self._malformed)
            at = self.delivery.push_at(now)
            if at is not None and at <= now:
                self._send_push(datagram)
            elif at is not None:
                heapq.heappush(self._outbox, (at, next(self._seq), None, datagram))

    def _send_push(self, datagram: bytes) -> None:
        push = self.controller.push
        assert self._udp is not None
        try:
            self._udp.sendto(datagram, (push.ip, push.port))
            self.pushes += 1
        except OSError:
            self.bad_requests["push_failed"] += 1

    def _drop(self, sel: selectors.BaseSelector, conn: socket.socket) -> None:
        if conn in self._clients:
            sel.unregister(conn)
            del self._clients[conn]
        if conn is self._movej_client:
            self._movej_client = None
        self.delivery.forget(id(conn))
        conn.close()
