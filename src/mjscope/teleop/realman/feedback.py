"""Joint feedback from a RealMan controller: the UDP realtime push, or polling over TCP.

Both keep only the newest report, stamped on the caller's clock when it arrived. Datagrams
from any address but the controller's, and datagrams that do not parse, are counted by reason
and change nothing.
"""

from __future__ import annotations

import socket
import threading
from collections import Counter, deque
from collections.abc import Callable

from mjscope.teleop.feedback import AdapterError, Feedback
from mjscope.teleop.realman.config import RealManCfg
from mjscope.teleop.realman.link import CommandLink
from mjscope.teleop.realman.messages import (
    JointReport,
    command,
    confirmed,
    parse_arm_state,
    parse_push,
    set_realtime_push,
)
from mjscope.teleop.realman.protocol import wire_to_rad

RECV_TIMEOUT_S = 0.05  # the receiver checks for stop this often [s]


class FeedbackSource:
    """The newest joint report of one arm.

    Args:
        n: Joints per report.
        clock: The caller's monotonic clock [s].
        bad: Where to count refused input (shared across reconnections).

    Attributes:
        received: Reports accepted.
        bad: Refused datagrams or replies, by reason.
        status: ``arm_current_status`` of the newest push (``""`` when polling).
    """

    def __init__(self, n: int, clock: Callable[[], float], bad: Counter[str]) -> None:
        self.n = n
        self.clock = clock
        self.received = 0
        self.bad = bad
        self.status = ""
        self._newest: Feedback | None = None
        self._stamps: deque[float] = deque(maxlen=16)  # arrival of the newest reports [s]
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def newest(self) -> Feedback | None:
        """The newest feedback, or ``None`` before the first one."""
        with self._lock:
            return self._newest

    def first_after(self, t: float) -> float | None:
        """Arrival [s] of the first report received after ``t`` (``None``: none yet)."""
        with self._lock:
            later = [s for s in self._stamps if s > t]
        return min(later) if later else None

    def _store(self, report: JointReport) -> None:
        fb = Feedback(q=wire_to_rad(report.joints), stamp=self.clock(), err=report.err)
        with self._lock:
            self._newest = fb
            self._stamps.append(fb.stamp)
            self.received += 1
            self.status = report.status

    def _start(self, target: Callable[[], None], name: str) -> None:
        self._thread = threading.Thread(target=target, name=name, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop receiving."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)


class PushReceiver(FeedbackSource):
    """Receives ``realtime_arm_joint_state`` datagrams on a local UDP port.

    Args:
        n: Joints per report.
        clock: The caller's monotonic clock [s].
        bad: Where to count refused datagrams.
        source_ip: The controller's address; datagrams from elsewhere are refused.
    """

    def __init__(
        self, n: int, clock: Callable[[], float], bad: Counter[str], source_ip: str
    ) -> None:
        super().__init__(n, clock, bad)
        self.source_ip = source_ip
        self.address = ("", 0)
        self._sock: socket.socket | None = None

    def open(self, ip: str, port: int, where: str) -> tuple[str, int]:
        """Bind ``ip:port`` (0 = any free port) and start receiving.

        Returns:
            The bound address.

        Raises:
            AdapterError: The port cannot be bound.
        """
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self._sock.bind((ip, port))
        except OSError as e:
            self._sock.close()
            raise AdapterError(
                f"{where}: cannot listen for the realtime push on UDP {ip}:{port} "
                f"({e.strerror}); pick another push port (0 = any free one)"
            ) from None
        self._sock.settimeout(RECV_TIMEOUT_S)
        self._start(self._loop, "rm-push")
        host, bound = self._sock.getsockname()[:2]
        self.address = (str(host), int(bound))
        return self.address

    def _loop(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                data, addr = self._sock.recvfrom(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            if addr[0] != self.source_ip:
                self.bad["foreign_source"] += 1
                continue
            report = parse_push(data, self.n)
            if isinstance(report, str):
                self.bad[report] += 1
            else:
                self._store(report)

    def close(self) -> None:
        """Stop receiving and release the port."""
        super().close()
        if self._sock is not None:
            self._sock.close()


class StatePoller(FeedbackSource):
    """Polls ``get_current_arm_state`` every ``period_s`` (the configured fallback).

    Args:
        n: Joints per report.
        clock: The caller's monotonic clock [s].
        bad: Where to count unanswered or bad polls.
        link: The command connection.
        period_s: Poll period [s].
        timeout_s: Reply timeout [s]; an unanswered poll is counted and retried.
    """

    def __init__(
        self,
        n: int,
        clock: Callable[[], float],
        bad: Counter[str],
        link: CommandLink,
        period_s: float,
        timeout_s: float,
    ) -> None:
        super().__init__(n, clock, bad)
        self.link = link
        self.period_s = period_s
        self.timeout_s = timeout_s

    def start(self) -> None:
        """Start polling."""
        self._start(self._loop, "rm-poll")

    def poll_once(self) -> bool:
        """One poll; whether it gave a valid report."""
        try:
            reply = self.link.request(
                command("get_current_arm_state"), "current_arm_state", self.timeout_s
            )
        except AdapterError:
            self.bad["unanswered"] += 1
            return False
        report = parse_arm_state(reply, self.n)
        if report is None:
            self.bad["bad_field"] += 1
            return False
        self._store(report)
        return True

    def _loop(self) -> None:
        while not self._stop.is_set() and not self.link.closed_why:
            self.poll_once()
            self._stop.wait(self.period_s)


def start_feedback(
    link: CommandLink, cfg: RealManCfg, n: int, clock: Callable[[], float], bad: Counter[str]
) -> FeedbackSource:
    """Start the configured feedback: bind the push port and point the push at it, or poll.

    Raises:
        AdapterError: The port cannot be bound, or the controller refused or did not answer.
    """
    if cfg.feedback == "poll":
        poller = StatePoller(n, clock, bad, link, max(cfg.cycle_s, 0.01), cfg.reply_timeout_s)
        poller.start()
        return poller
    push = PushReceiver(n, clock, bad, link.peer_ip)
    ip, port = push.open(cfg.push_ip or link.local_ip, cfg.push_port, link.where)
    try:
        msg = set_realtime_push(ip, port, cfg.push_cycle)
        reply = link.request(msg, "set_realtime_push", cfg.reply_timeout_s)
        if not confirmed(reply, "state"):
            raise AdapterError(f"{link.where}: the controller refused set_realtime_push to {ip}")
    except AdapterError:
        push.close()
        raise
    return push
