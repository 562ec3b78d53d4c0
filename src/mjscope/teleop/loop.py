"""The arms of a run and their XR input: one real-time worker per arm, or a stepped loop.

:meth:`Teleop.run` is the real run: an XR ingest thread fills the shared
:class:`~mjscope.teleop.xr_hub.XrHub` (newest state per side) and one
:class:`~mjscope.teleop.worker.ArmWorker` per arm cycles on its own clock; this thread only
supervises — the duration, a stop request, Ctrl-C, and the fault policy:

- default (bimanual work): when one arm enters a safe stop (lost feedback, a refused or closed
  connection, a controller error), every other arm is safe-stopped too and the run ends at
  once (the session exits 1, naming the arm and the cause);
- ``isolate_faults`` (the seed's per-node semantics): the healthy arms go on to the end.

Every end of a run (duration, stop, Ctrl-C, a fault) brakes each arm to rest within its
``joint_max_acc`` before the last command. :meth:`Teleop.cycle` steps every arm once on the
caller's clock (deterministic: the demo, tests); a frame stamped 0 carries no XR data.
"""

from __future__ import annotations

import gc
import logging
import math
import queue
import sys
import threading
import time
from collections.abc import Callable, Mapping

from mjscope.teleop.cycle import Cycle
from mjscope.teleop.node import TeleopArm
from mjscope.teleop.worker import ArmWorker, LoopStats, Sink
from mjscope.teleop.xr.base import ControllerState, XrFrame, XrSource
from mjscope.teleop.xr_hub import XrHub

__all__ = ["LoopStats", "Sink", "Teleop"]

log = logging.getLogger(__name__)

SWITCH_INTERVAL_S = 0.0005  # GIL hand-over bound while the workers run [s]
FINISH_MARGIN_S = 0.5  # beyond the longest braking time, how long to wait for the workers [s]


class Teleop:
    """The arms of a run and their XR source.

    Args:
        arms: Side name → its chain.
        xr: The XR source.
        sink: Called with every cycle of every arm (the ``--log`` writer), or ``None``.

    Attributes:
        workers: The per-arm workers of the last :meth:`run`.
        hub: The shared XR input of the last :meth:`run`.
        interrupted: The last run ended by Ctrl-C or a stop request.
        fault: ``(side, cause)`` of the first safe stop of the last run, or ``None``.
    """

    def __init__(
        self, arms: Mapping[str, TeleopArm], xr: XrSource, sink: Sink | None = None
    ) -> None:
        self.arms = dict(arms)
        self.xr = xr
        self.sink = sink
        self.workers: dict[str, ArmWorker] = {}
        self.hub: XrHub | None = None
        self.interrupted = False
        self.fault: tuple[str, str] | None = None
        self._frames = 0  # XR frames received by cycle()
        self._pending: dict[str, ControllerState | None] = dict.fromkeys(self.arms)
        self._due = dict.fromkeys(self.arms, -math.inf)
        self._sink_lock = threading.Lock()
        self._isolate = False
        self.loop = LoopStats()

    @property
    def frames(self) -> int:
        """XR frames with data received."""
        return self._frames + (self.hub.frames if self.hub is not None else 0)

    def start(self, now: float) -> None:
        """Connect every arm and publish its first state frame.

        Raises:
            AdapterError: An arm cannot be reached (the arms already started are closed).
        """
        started = []
        try:
            for arm in self.arms.values():
                arm.start(now)
                started.append(arm)
        except BaseException:
            for arm in started:
                arm.close()
            raise

    # -- stepped on the caller's clock --------------------------------------------------------

    def poll_xr(self, now: float) -> XrFrame | None:
        """The XR source's new frame, or ``None`` (nothing new, or no XR data)."""
        frame = self.xr.poll(now)
        if frame is None or frame.stamp_ns <= 0:
            return None
        self._frames += 1
        for side in self.arms:
            ctrl = frame.side(side)
            if ctrl is not None:
                self._pending[side] = ctrl
        return frame

    def cycle(self, now: float, only_due: bool = False) -> dict[str, Cycle]:
        """Poll XR and step the arms (all, or with ``only_due`` those whose period has come).

        Returns:
            The cycles run, by side.
        """
        self.poll_xr(now)
        out = {}
        due, pending = self._due, self._pending
        for side, arm in self.arms.items():
            if only_due and now < due[side] - 1e-6:
                continue
            d, e = due[side] + arm.dt, now - arm.dt
            due[side] = e if e > d else d  # max(d, e), without the call
            ctrl, pending[side] = pending[side], None
            c = arm.step(now, ctrl, None if ctrl is None else now)
            out[side] = c
            if self.sink is not None:
                self.sink(side, c)
        return out

    # -- the real run: one worker per arm -----------------------------------------------------

    def run(
        self,
        duration: float | None,
        stop: threading.Event | None = None,
        clock: Callable[[], float] = time.monotonic,
        isolate_faults: bool = False,
        rt_priority: int | None = None,
    ) -> LoopStats:
        """Run every arm on its own worker until ``duration`` [s], ``stop``, Ctrl-C or a fault.

        Objects alive at the start are frozen out of the garbage collector's scans, so a full
        collection cannot stall a cycle for milliseconds. ``rt_priority``: each worker thread
        runs under ``SCHED_FIFO`` at that priority where permitted (see :mod:`.worker`).

        Returns:
            The workers' timing, summed (per arm: :attr:`workers`).
        """
        gc.freeze()
        self.interrupted, self.fault, self._isolate = False, None, isolate_faults
        faults: queue.Queue[tuple[str, str]] = queue.Queue()
        period = min(a.dt for a in self.arms.values())

        def faults_put(side: str, why: str) -> None:
            faults.put((side, why))

        self.hub = XrHub(self.xr, self.arms, period, clock, rt_priority)
        self.workers = {
            s: ArmWorker(a, self.hub, self._sink(), faults_put, clock, rt_priority)
            for s, a in self.arms.items()
        }
        switch = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        t0 = clock()
        try:
            self.hub.start()
            for w in self.workers.values():
                w.start()
            self._supervise(faults, t0 + (duration if duration is not None else math.inf), stop)
        except KeyboardInterrupt:
            self.interrupted = True
        finally:
            self._finish()
            sys.setswitchinterval(switch)
        return self._summed(clock() - t0)

    def _sink(self) -> Sink | None:
        sink = self.sink
        if sink is None:
            return None
        lock = self._sink_lock

        def locked(side: str, c: Cycle) -> None:
            with lock:
                sink(side, c)

        return locked

    def _supervise(
        self, faults: queue.Queue[tuple[str, str]], end: float, stop: threading.Event | None
    ) -> None:
        """Wait for the end, a stop or a fault; apply the fault policy."""
        clock = self.hub.clock if self.hub is not None else time.monotonic
        while (left := end - clock()) > 0:
            if stop is not None and stop.is_set():
                self.interrupted = True
                return
            try:
                side, why = faults.get(timeout=min(0.02, left))
            except queue.Empty:
                continue
            if self.fault is None:
                self.fault = (side, why)
            if not self._isolate:
                self._stop_others(side, why)
                return
            if all(a.stopped for a in self.arms.values()):
                return

    def _stop_others(self, side: str, why: str) -> None:
        for other, arm in self.arms.items():
            if other != side and not arm.stopped:
                arm.request_stop(f"the {side} arm safe-stopped ({why})")

    def _finish(self) -> None:
        """Every worker brakes its arm to rest, then ends; the XR ingest stops."""
        for w in self.workers.values():
            w.finish()
        brake_s = max(float((a.joints.vmax / a.joints.amax).max()) for a in self.arms.values())
        deadline = time.monotonic() + brake_s + FINISH_MARGIN_S
        for w in self.workers.values():
            if not w.join(max(0.0, deadline - time.monotonic())):
                log.error("%s arm: its worker did not end (a blocked call); closing anyway", w.side)
        if self.hub is not None:
            self.hub.stop()

    def _summed(self, duration_s: float) -> LoopStats:
        st = LoopStats(duration_s=duration_s)
        for w in self.workers.values():
            st.ticks += w.stats.ticks
            st.missed += w.stats.missed
            st.over_budget += w.stats.over_budget
            st.slow_warnings += w.stats.slow_warnings
            st.worst_compute_s = max(st.worst_compute_s, w.stats.worst_compute_s)
            st.realtime = st.realtime or w.stats.realtime
        self.loop = st
        return st

    @property
    def stopped(self) -> dict[str, str]:
        """Arms in a latched safe stop, with the reason."""
        return {s: a.stopped for s, a in self.arms.items() if a.stopped}

    def close(self) -> None:
        """Close the arms and the XR source (never moves an arm)."""
        for arm in self.arms.values():
            arm.close()
        self.xr.close()
