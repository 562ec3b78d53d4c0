"""The XR input shared by the arm workers: the newest controller state per side, time-stamped.

One ingest thread polls the XR source (a UDP source wakes on a datagram; the others are polled
at the fastest arm's rate, at most once per millisecond) and stores, per side, the newest
controller state with a sequence number and the time it was received. Workers only read:
:meth:`XrHub.latest` returns one immutable :class:`SideInput`, so no worker waits on another.
A frame stamped 0 carries no XR data (the SDK without its service) and changes nothing.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import NamedTuple

from mjscope.teleop.realtime import set_realtime
from mjscope.teleop.xr.base import ControllerState, XrSource

log = logging.getLogger(__name__)

MIN_POLL_S = 0.001  # the ingest thread polls at most this often [s]


class SideInput(NamedTuple):
    """One side's newest controller state.

    Attributes:
        seq: Increases with every new state of the side (a worker acts on each once).
        ctrl: The controller state (world frame).
        rx: When it was received, on the hub's monotonic clock [s].
    """

    seq: int
    ctrl: ControllerState
    rx: float


class XrHub:
    """The newest XR state per side, filled by one ingest thread.

    Args:
        xr: The XR source (polled only by the hub).
        sides: The sides the arms need.
        period_s: Poll period of sources that cannot wake on data [s].
        clock: Monotonic clock [s].
        rt_priority: ``SCHED_FIFO`` priority of the ingest thread (:mod:`.realtime`), or
            ``None``. With real-time workers the ingest must be one too: else it may be
            preempted while it holds the GIL, and the workers wait for it.

    Attributes:
        frames: XR frames with data received.
        polls: Polls of the source.
        worst_poll_s: Longest single poll [s].
        error: Why the ingest thread ended early (``""`` while healthy).
    """

    def __init__(
        self,
        xr: XrSource,
        sides: Iterable[str],
        period_s: float,
        clock: Callable[[], float] = time.monotonic,
        rt_priority: int | None = None,
    ) -> None:
        self.xr = xr
        self.rt_priority = rt_priority
        self.sides = tuple(sides)
        self.period_s = max(MIN_POLL_S, period_s)
        self.clock = clock
        self.frames = 0
        self.polls = 0
        self.worst_poll_s = 0.0
        self.error = ""
        self._latest: dict[str, SideInput] = {}
        self._seq = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def latest(self, side: str) -> SideInput | None:
        """The side's newest state, or ``None`` before the first one."""
        return self._latest.get(side)

    def poll_once(self, now: float) -> bool:
        """Poll the source once; whether it gave a frame with XR data."""
        t0 = time.perf_counter()
        frame = self.xr.poll(now)
        self.polls += 1
        self.worst_poll_s = max(self.worst_poll_s, time.perf_counter() - t0)
        if frame is None or frame.stamp_ns <= 0:
            return False
        self.frames += 1
        for side in self.sides:
            ctrl = frame.side(side)
            if ctrl is not None:
                self._seq += 1
                self._latest[side] = SideInput(self._seq, ctrl, now)  # one atomic store
        return True

    def start(self) -> None:
        """Start the ingest thread."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="teleop-xr", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        if self.rt_priority is not None:
            set_realtime("XR ingest", self.rt_priority)
        try:
            while not self._stop.is_set():
                self.poll_once(self.clock())
                self._stop.wait(MIN_POLL_S)
                self.xr.wait(self.period_s)
        except Exception as e:  # a broken source must not take the arms with it: they time out
            self.error = f"{type(e).__name__}: {e}"
            log.error("XR input stopped: %s (the arms hold after xr_timeout_s)", self.error)

    def stop(self) -> None:
        """Stop the ingest thread (the source stays open)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
