"""Per-stage time stamps of every control cycle, kept in a preallocated ring per arm.

Stages of one cycle (all [s]): ``xr`` — from the XR frame's receipt to the cycle that acts on
it; ``target`` — clutch and Cartesian limits; ``ik`` — the Placo QP step; ``limits`` — the
joint position/speed/acceleration limiter; ``send`` — the adapter's send and the publish of
``joint_states``/``joint_target``; ``ack`` — from a command's send until the arm's next
feedback report arrives (only for adapters whose feedback comes on its own, i.e. the real
arm; a mock's feedback is the command itself). A stage that did not happen in a cycle is NaN.
"""

from __future__ import annotations

import math
import struct

import numpy as np

STAGES = ("xr", "target", "ik", "limits", "send", "ack")
XR, TARGET, IK, LIMITS, SEND, ACK = range(len(STAGES))
_EMPTY = (math.nan,) * len(STAGES)
_PACK_ROW = struct.Struct(f"{len(STAGES)}d").pack_into  # one row into the ring, no NumPy call
CAPACITY = 1 << 17  # cycles kept per arm (≈ 2 min at 1 kHz, 24 min at 90 Hz)


class StageLog:
    """The newest :data:`CAPACITY` cycles' stage times of one arm.

    Attributes:
        row: The current cycle's stage times [s] (one per stage, NaN until set; a plain list,
            written into the preallocated ring when the next cycle starts, so no per-cycle
            object outlives its cycle: nothing for the garbage collector to chase mid-run).
        cycles: Cycles recorded.
    """

    __slots__ = ("_bytes", "_data", "_row_size", "cycles", "row")

    def __init__(self, capacity: int = CAPACITY) -> None:
        self._data = np.full((capacity, len(STAGES)), math.nan)
        self._bytes = self._data.data.cast("B")  # the ring's memory, written row by row
        self._row_size = self._data.itemsize * len(STAGES)
        self.cycles = 0
        self.row: list[float] = list(_EMPTY)

    def next(self) -> list[float]:
        """Start a cycle: a new row (all NaN) becomes :attr:`row`."""
        if self.cycles:
            i = (self.cycles - 1) % len(self._data)
            _PACK_ROW(self._bytes, i * self._row_size, *self.row)
        self.row = row = list(_EMPTY)
        self.cycles += 1
        return row

    def last(self) -> tuple[float, ...]:
        """The current cycle's stage times [s]."""
        return tuple(self.row)

    def summary(self) -> dict[str, dict[str, float | int | None]]:
        """Per stage: ``p50_us``, ``p99_us``, ``max_us`` and ``n`` (cycles where it happened)."""
        if self.cycles:
            self._data[(self.cycles - 1) % len(self._data)] = self.row
        data = self._data[: min(self.cycles, len(self._data))]
        out: dict[str, dict[str, float | int | None]] = {}
        for i, name in enumerate(STAGES):
            col = data[:, i]
            col = col[np.isfinite(col)]
            if col.size == 0:
                out[name] = {"p50_us": None, "p99_us": None, "max_us": None, "n": 0}
                continue
            p50, p99 = np.percentile(col, [50, 99]) * 1e6
            out[name] = {
                "p50_us": round(float(p50), 2),
                "p99_us": round(float(p99), 2),
                "max_us": round(float(col.max()) * 1e6, 2),
                "n": int(col.size),
            }
        return out
