"""One arm's real-time worker: its own thread, its own clock at ``control_rate_hz``.

The seed's "two independent single-arm teleop nodes", in one process: each worker reads its
side's newest XR state from the shared :class:`~mjscope.teleop.xr_hub.XrHub` (read-only) and
steps its own :class:`~mjscope.teleop.node.TeleopArm` — adapter, clutch, IK, limits — on a
fixed-phase clock. A blocking reset, a slow controller or an exception stalls or stops only
this worker; the other arm's cycle does not wait for it.

Why threads, not processes (measured, see ``DESIGN.md``): Placo and NumPy hold the GIL, so two
threads computing at once run no faster than one (≈ 1.0× on this machine), but one arm's cycle
costs tens of microseconds — a few per cent of a core at 90 Hz — while what must never hold up
the other arm is *waiting* (a ``movej`` reset of up to seconds, socket timeouts, a stalled
controller), and waiting releases the GIL. Processes would rebuild each Placo model, put the
XR frames, the report counters and the in-process bus (the MuJoCo mirror subscribes to it)
behind pickling IPC, and buy parallel compute this loop does not need.

With ``rt_priority`` the worker thread asks for the ``SCHED_FIFO`` real-time policy at that
priority (:mod:`.realtime`): its wake-ups then no longer queue behind other processes on a busy
machine. It still sleeps to every next deadline (a late cycle skips the lost periods), so it
never spins.

A safe stop is reported once through ``on_stop``; the session applies the fault policy.
:meth:`ArmWorker.finish` ends the run: the arm brakes to rest within ``joint_max_acc``, then
the worker ends.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from mjscope.teleop.cycle import Cycle
from mjscope.teleop.node import TeleopArm
from mjscope.teleop.realtime import set_realtime
from mjscope.teleop.xr_hub import XrHub

log = logging.getLogger(__name__)

Sink = Callable[[str, Cycle], None]
SLOW_WINDOW_S = 1.0  # the achieved rate is checked over windows this long [s]
SLOW_FRACTION = 0.9  # below this fraction of control_rate_hz for a window: a warning


@dataclass
class LoopStats:
    """Timing of one worker's run (or of all of them, summed).

    Attributes:
        ticks: Cycles run.
        missed: Cycles whose deadline passed while the previous one was still at work.
        worst_compute_s: Longest cycle [s].
        over_budget: Cycles whose work took longer than the period.
        duration_s: Run time [s].
        slow_warnings: Windows of :data:`SLOW_WINDOW_S` below :data:`SLOW_FRACTION` of the rate.
        realtime: The worker ran under ``SCHED_FIFO`` (``rt_priority`` given and permitted).
    """

    ticks: int = 0
    missed: int = 0
    worst_compute_s: float = 0.0
    over_budget: int = 0
    duration_s: float = 0.0
    slow_warnings: int = 0
    realtime: bool = False


class ArmWorker:
    """Runs one arm on its own thread.

    Args:
        arm: The arm's chain (started: connected, first feedback in).
        hub: The shared XR input.
        sink: Called with every cycle (the ``--log`` writer; must be thread-safe), or ``None``.
        on_stop: Called once, from this thread, when the arm enters a safe stop: (side, why).
        clock: Monotonic clock [s] (the adapter's feedback is stamped on it).
        rt_priority: ``SCHED_FIFO`` priority (1–99) for the worker thread, or ``None``.
    """

    def __init__(
        self,
        arm: TeleopArm,
        hub: XrHub,
        sink: Sink | None,
        on_stop: Callable[[str, str], None],
        clock: Callable[[], float] = time.monotonic,
        rt_priority: int | None = None,
    ) -> None:
        self.arm, self.hub, self.sink, self.on_stop, self.clock = arm, hub, sink, on_stop, clock
        self.rt_priority = rt_priority
        self.side = arm.side
        self.stats = LoopStats()
        self.done = threading.Event()
        self._finish = threading.Event()
        self._seq = 0
        self._reported = False
        self._slow = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the worker thread."""
        self._thread = threading.Thread(target=self._run, name=f"teleop-{self.side}", daemon=True)
        self._thread.start()

    def finish(self) -> None:
        """End the run: brake to rest, then stop (returns at once; wait on :attr:`done`)."""
        self._finish.set()

    def join(self, timeout_s: float) -> bool:
        """Wait for the worker to end; whether it did within ``timeout_s`` [s]."""
        return self.done.wait(timeout_s)

    def _run(self) -> None:
        st, period = self.stats, self.arm.dt
        if self.rt_priority is not None:
            st.realtime = set_realtime(f"{self.side} arm", self.rt_priority)
        t0 = deadline = self.clock()
        window = (t0, 0)
        try:
            while True:
                now = self.clock()
                state = self._cycle(now)
                if state == "end":
                    break
                work = self.clock() - now
                st.ticks += 1
                st.worst_compute_s = max(st.worst_compute_s, work)
                st.over_budget += work > period
                window = self._watch_rate(now, window, state)
                deadline += period
                late = self.clock() - deadline
                if late > 0.0:  # fell behind: skip the lost cycles, keep the phase
                    skipped = math.ceil(late / period)
                    st.missed += skipped
                    deadline += period * skipped
                time.sleep(max(0.0, deadline - self.clock()))
        finally:
            st.duration_s = self.clock() - t0
            self.done.set()

    def _cycle(self, now: float) -> str:
        """One cycle (or, when finishing, one braking cycle); its state, ``end`` when done."""
        arm = self.arm
        try:
            if self._finish.is_set():
                if arm.at_rest and not arm.stop_pending:
                    return "end"
                c = arm.brake(now)
            else:
                inp = self.hub.latest(self.side)
                ctrl = rx = None
                if inp is not None and inp.seq != self._seq:
                    self._seq, ctrl, rx = inp.seq, inp.ctrl, inp.rx
                c = arm.step(now, ctrl, rx)
        except Exception as e:  # a bug in one arm's chain stops that arm, never the other
            log.exception("%s arm: cycle failed", self.side)
            if arm.stopped:  # failing even while braking: send nothing more, end
                arm.joints.reset(arm.joints.q)
                self._report()
                return "end"
            arm.request_stop(f"internal error: {type(e).__name__}: {e}")
            return "stopped"
        self._report()
        if self.sink is not None:
            self.sink(self.side, c)
        return c.state

    def _report(self) -> None:
        if self.arm.stopped and not self._reported:
            self._reported = True
            self.on_stop(self.side, self.arm.stopped)

    def _watch_rate(self, now: float, window: tuple[float, int], state: str) -> tuple[float, int]:
        """Warn once per episode when the achieved rate stays below 90 % for a window."""
        start, n = window
        if state == "reset":  # a reset blocks by design: start a fresh window after it
            return (self.clock(), 0)
        n += 1
        if now - start < SLOW_WINDOW_S:
            return (start, n)
        rate, want = n / (now - start), self.arm.cfg.control_rate_hz
        slow = rate < SLOW_FRACTION * want
        if slow and not self._slow:
            self.stats.slow_warnings += 1
            log.warning(
                "%s arm: %.0f Hz over the last %.1f s against the configured %.0f Hz (below "
                "%.0f %%); the machine is too busy or a stage is slow (see the report's stages)",
                self.side,
                rate,
                now - start,
                want,
                SLOW_FRACTION * 100,
            )
        self._slow = slow
        return (now, 0)
