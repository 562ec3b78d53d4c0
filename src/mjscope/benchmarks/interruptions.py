"""How often this machine takes the CPU away from a running thread, and for how long.

A tight loop reads the clock; a gap between two readings longer than :data:`GAP` is time the
thread did not run (a timer tick, an interrupt, the hypervisor running another guest). On a
shared virtual machine these come every few milliseconds and cost tens of µs each, and a
short cycle's p99 is then set by them: a cycle of ``d`` seconds is hit in about
``d × rate`` of the cycles, so once that share passes 1 % the p99 is the cycle plus one gap,
whatever the cycle's own code does. The benchmarks print this beside their tails.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

GAP = 5e-6  # [s] a clock-reading loop turns in ≈ 0.1 µs: a longer gap is an interruption


class Interruptions(NamedTuple):
    """What :func:`measure` found.

    Attributes:
        rate_hz: Interruptions per second.
        median_us: Their median length [µs].
        p90_us: Their 90th percentile [µs].
    """

    rate_hz: float
    median_us: float
    p90_us: float

    def hit_share(self, cycle_s: float) -> float:
        """Share of cycles of ``cycle_s`` seconds that an interruption falls into [-]."""
        return min(1.0, cycle_s * self.rate_hz)


def measure(seconds: float = 0.5, clock: Callable[[], float] = time.perf_counter) -> Interruptions:
    """Read ``clock`` in a tight loop for ``seconds`` and collect the gaps over :data:`GAP`."""
    gaps = []
    prev = start = clock()
    end = start + seconds
    while prev < end:
        t = clock()
        if t - prev > GAP:
            gaps.append(t - prev)
        prev = t
    if not gaps:
        return Interruptions(0.0, 0.0, 0.0)
    median, p90 = np.percentile(np.asarray(gaps) * 1e6, [50, 90]).tolist()
    return Interruptions(len(gaps) / (prev - start), median, p90)
