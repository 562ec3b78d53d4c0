"""Per-arm counters of a teleop run: cycles, clutch, resets, IK failures, clamps, timeouts."""

from __future__ import annotations

import struct
from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

_BATCH = 1024  # commands queued before they are folded into the peaks (rarely: p99 stays)

#: Every limit a cycle can clamp at, in report order.
CLAMPS = (
    "workspace",
    "cylinder",
    "low_cylinder",
    "linear_speed",
    "orientation_speed",
    "joint_position",
    "joint_speed",
    "joint_acc",
)


@dataclass(slots=True)
class ArmStats:
    """What happened to one arm.

    Attributes:
        cycles: Control cycles run.
        first_cycle: Time of the first cycle [s] (``None`` before it).
        last_cycle: Time of the last cycle [s].
        engaged_cycles: Cycles with the clutch engaged.
        resets: A/X resets done.
        ik_rejects: IK steps not accepted, by reason (``qp_failure``, ``non_finite``,
            ``not_converged``).
        clamps: Cycles in which each limit was binding (:data:`CLAMPS`).
        xr_timeouts: Times the XR input went quiet for longer than ``xr_timeout_s``.
        feedback_timeouts: Times the arm's feedback went quiet for longer than
            ``feedback_timeout_s`` (a latched safe stop).
        engage_refused: Grip presses refused because the end effector was outside the workspace.
        max_speed: ``(n,)`` largest commanded joint speed [rad/s].
        max_acc: ``(n,)`` largest commanded joint acceleration [rad/s²].
    """

    cycles: int = 0
    first_cycle: float | None = None
    last_cycle: float = 0.0
    engaged_cycles: int = 0
    resets: int = 0
    ik_rejects: Counter[str] = field(default_factory=Counter)
    clamps: Counter[str] = field(default_factory=Counter)
    xr_timeouts: int = 0
    feedback_timeouts: int = 0
    engage_refused: int = 0
    _peak_v: list[float] = field(default_factory=list, repr=False)
    _peak_a: list[float] = field(default_factory=list, repr=False)
    # The queue of sent commands: preallocated on the first one (n joints × _BATCH), filled
    # row by row with struct (no per-command allocation), folded into the peaks when full.
    _qv: array[float] = field(default_factory=lambda: array("d"), repr=False)
    _qv0: array[float] = field(default_factory=lambda: array("d"), repr=False)
    _qdt: array[float] = field(default_factory=lambda: array("d", bytes(8 * _BATCH)), repr=False)
    _queued: int = field(default=0, repr=False)
    _row: int = field(default=0, repr=False)  # bytes per queued row
    _pack: Callable[..., Any] | None = field(default=None, repr=False)

    @property
    def max_speed(self) -> np.ndarray:
        """``(n,)`` largest commanded joint speed [rad/s]."""
        self._fold()
        return np.array(self._peak_v)

    @property
    def max_acc(self) -> np.ndarray:
        """``(n,)`` largest commanded joint acceleration [rad/s²]."""
        self._fold()
        return np.array(self._peak_a)

    def cycle(self, now: float) -> None:
        """Count one cycle at ``now`` [s]."""
        self.cycles += 1
        if self.first_cycle is None:
            self.first_cycle = now
        self.last_cycle = now

    def clamped(self, names: tuple[str, ...]) -> None:
        """Count each binding limit of this cycle once."""
        for n in names:
            self.clamps[n] += 1

    def commanded(self, v: list[float], v0: list[float], inv_dt: float) -> None:
        """Count a sent command into the peaks: its speed ``v`` and acceleration.

        Args:
            v: The command's joint velocities [rad/s] (plain floats).
            v0: The previous command's [rad/s] (the acceleration is ``(v − v0) · inv_dt``).
            inv_dt: ``1 / dt`` [1/s].

        The cycle only queues the numbers (in preallocated ``array('d')`` buffers, which the
        garbage collector does not track); the peaks are taken in batches with NumPy (the
        same operations per element).
        """
        pack, i = self._pack, self._queued
        if pack is None:  # the first command: the queue's size is now known
            self._row = 8 * len(v)
            self._qv, self._qv0 = (array("d", bytes(self._row * _BATCH)) for _ in range(2))
            pack = self._pack = struct.Struct(f"{len(v)}d").pack_into
        pack(self._qv, i * self._row, *v)
        pack(self._qv0, i * self._row, *v0)
        self._qdt[i] = inv_dt
        self._queued = i = i + 1
        if i >= _BATCH:
            self._fold()

    def _fold(self) -> None:
        """Take the queued commands into the peaks."""
        n = self._queued
        if not n:
            return
        m = n * self._row // 8
        v = np.frombuffer(self._qv, dtype=float)[:m].reshape(n, -1)
        v0 = np.frombuffer(self._qv0, dtype=float)[:m].reshape(n, -1)
        acc = (v - v0) * np.frombuffer(self._qdt, dtype=float)[:n, None]
        pv, pa = np.abs(v).max(axis=0), np.abs(acc).max(axis=0)
        self._queued = 0
        if len(self._peak_v) == pv.size:
            pv, pa = np.maximum(pv, self._peak_v), np.maximum(pa, self._peak_a)
        self._peak_v, self._peak_a = pv.tolist(), pa.tolist()

    def rate_hz(self) -> float:
        """Mean cycle rate [Hz] between the first and last cycle."""
        if self.first_cycle is None or self.cycles < 2 or self.last_cycle <= self.first_cycle:
            return 0.0
        return (self.cycles - 1) / (self.last_cycle - self.first_cycle)

    def clamp_counts(self) -> dict[str, int]:
        """Every limit's clamp count (zeros included), in :data:`CLAMPS` order."""
        return {n: int(self.clamps.get(n, 0)) for n in CLAMPS}
