"""The teleop loop: poll the XR source once per tick, step every arm at its control rate.

One XR source feeds both arms (a PICO frame carries both controllers). A side's newest
controller state is handed to its arm when the arm steps; a frame stamped 0 carries no XR data
(the contract of :class:`~mjscope.teleop.xr.base.XrFrame`). The loop keeps a fixed phase (no
drift); a tick whose deadline passed while the previous one was still at work is skipped and
counted as missed.
"""

from __future__ import annotations

import gc
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from mjscope.teleop.node import Cycle, TeleopArm
from mjscope.teleop.xr.base import ControllerState, XrFrame, XrSource

Sink = Callable[[str, Cycle], None]


@dataclass
class LoopStats:
    """Timing of a loop run.

    Attributes:
        ticks: Loop ticks run.
        missed: Ticks that started more than one period after their deadline.
        worst_compute_s: Longest tick (XR poll + arm steps) [s].
        over_budget: Ticks whose work took longer than the period.
        duration_s: Run time [s].
    """

    ticks: int = 0
    missed: int = 0
    worst_compute_s: float = 0.0
    over_budget: int = 0
    duration_s: float = 0.0


class Teleop:
    """The arms of a run and their XR source.

    Args:
        arms: Side name → its chain.
        xr: The XR source.
        sink: Called with every cycle of every arm (the ``--log`` writer), or ``None``.
    """

    def __init__(
        self, arms: Mapping[str, TeleopArm], xr: XrSource, sink: Sink | None = None
    ) -> None:
        self.arms = dict(arms)
        self.xr = xr
        self.sink = sink
        self.frames = 0  # XR frames received
        self._pending: dict[str, ControllerState | None] = dict.fromkeys(self.arms)
        self._due = dict.fromkeys(self.arms, -math.inf)
        self.loop = LoopStats()

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

    def poll_xr(self, now: float) -> XrFrame | None:
        """The XR source's new frame, or ``None`` (nothing new, or no XR data)."""
        frame = self.xr.poll(now)
        if frame is None or frame.stamp_ns <= 0:
            return None
        self.frames += 1
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
        for side, arm in self.arms.items():
            if only_due and now < self._due[side] - 1e-6:
                continue
            self._due[side] = max(self._due[side] + arm.dt, now - arm.dt)
            ctrl, self._pending[side] = self._pending[side], None
            c = arm.step(now, ctrl)
            out[side] = c
            if self.sink is not None:
                self.sink(side, c)
        return out

    def run(
        self,
        duration: float | None,
        stop: threading.Event | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> LoopStats:
        """Run at the arms' highest control rate until ``duration`` [s] or ``stop``.

        Objects alive at the start are frozen out of the garbage collector's scans, so a full
        collection cannot stall a cycle for milliseconds.
        """
        gc.freeze()
        period = min(a.dt for a in self.arms.values())
        st = self.loop
        t0 = clock()
        deadline = t0
        while not (stop is not None and stop.is_set()):
            now = clock()
            if duration is not None and now - t0 >= duration:
                break
            self.cycle(now, only_due=True)
            work = clock() - now
            st.ticks += 1
            st.worst_compute_s = max(st.worst_compute_s, work)
            st.over_budget += work > period
            deadline += period
            late = clock() - deadline
            if late > 0.0:  # fell behind: skip the lost ticks, keep the phase
                skipped = math.ceil(late / period)
                st.missed += skipped
                deadline += period * skipped
            time.sleep(max(0.0, deadline - clock()))
        st.duration_s = clock() - t0
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
