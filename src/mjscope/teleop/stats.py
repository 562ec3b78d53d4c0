"""Per-arm counters of a teleop run: cycles, clutch, resets, IK failures, clamps, timeouts."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

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


@dataclass
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
    max_speed: np.ndarray = field(default_factory=lambda: np.zeros(0))
    max_acc: np.ndarray = field(default_factory=lambda: np.zeros(0))

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

    def commanded(self, v: np.ndarray, acc: np.ndarray) -> None:
        """Keep the largest commanded speed and acceleration per joint."""
        if self.max_speed.shape != v.shape:
            self.max_speed, self.max_acc = np.zeros_like(v), np.zeros_like(v)
        np.maximum(self.max_speed, np.abs(v), out=self.max_speed)
        np.maximum(self.max_acc, np.abs(acc), out=self.max_acc)

    def rate_hz(self) -> float:
        """Mean cycle rate [Hz] between the first and last cycle."""
        if self.first_cycle is None or self.cycles < 2 or self.last_cycle <= self.first_cycle:
            return 0.0
        return (self.cycles - 1) / (self.last_cycle - self.first_cycle)

    def clamp_counts(self) -> dict[str, int]:
        """Every limit's clamp count (zeros included), in :data:`CLAMPS` order."""
        return {n: int(self.clamps.get(n, 0)) for n in CLAMPS}
