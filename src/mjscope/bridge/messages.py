"""Message types, shaped like their ROS 2 counterparts (``sensor_msgs/JointState``).

Fields are stored as received (untrusted): validation decides whether a message is usable.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Stamp:
    """``builtin_interfaces/Time``.

    Attributes:
        sec: Whole seconds.
        nanosec: Nanoseconds, 0 ≤ nanosec < 1e9.
    """

    sec: int = 0
    nanosec: int = 0

    @classmethod
    def from_seconds(cls, t: float) -> Stamp:
        """Stamp for a time in seconds."""
        sec = int(t // 1)
        return cls(sec, round((t - sec) * 1e9) % 1_000_000_000)

    @classmethod
    def now(cls) -> Stamp:
        """Wall-clock stamp (``time.time``)."""
        return cls.from_seconds(time.time())

    def to_seconds(self) -> float:
        """Time in seconds."""
        return float(self.sec) + float(self.nanosec) * 1e-9


@dataclass
class JointState:
    """``sensor_msgs/JointState``: names with positions [rad|m], velocities, efforts.

    The arrays should each be empty or as long as ``name``; validation enforces it.

    Attributes:
        stamp: Time the states were recorded.
        frame_id: Header frame id.
        name: Joint names.
        position: Positions [rad or m].
        velocity: Velocities [rad/s or m/s].
        effort: Efforts [N·m or N].
    """

    stamp: Stamp = field(default_factory=Stamp)
    frame_id: str = ""
    name: list[Any] = field(default_factory=list)
    position: list[Any] = field(default_factory=list)
    velocity: list[Any] = field(default_factory=list)
    effort: list[Any] = field(default_factory=list)

    def copy(self) -> JointState:
        """A deep copy (transports hand each subscriber its own)."""
        return copy.deepcopy(self)


@dataclass(frozen=True)
class UndecodableSample:
    """A sample that arrived but could not be decoded into a message.

    A transport hands it out in place of the message, in arrival order, so that a consumer
    counts it like any other rejected frame: :func:`~mjscope.bridge.validation.validate_joint_state`
    rejects it with its ``reason``.

    Attributes:
        reason: ``undecodable`` (malformed CDR, a string that is not UTF-8) or ``too_large``.
        detail: What was wrong (short; never the sample's content).
        size: The sample's size [bytes].
    """

    reason: str
    detail: str
    size: int
