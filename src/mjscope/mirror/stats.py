"""Per-topic receive statistics of the mirror: rate, valid/rejected counts, ages, publishers."""

from __future__ import annotations

import math
from collections import deque
from typing import Any

from mjscope.bridge.validation import RejectCounter

RATE_WINDOW_S = 1.0  # sliding window of the received-rate estimate [s]


class TopicStats:
    """What arrived on one state topic.

    Args:
        topic: Topic name.
        log_interval: Minimum time between two reject log lines [s].

    Attributes:
        received: Frames received (valid or not).
        valid: Frames that passed validation.
        rejects: Rejected frames by reason.
        last_stamp: Header stamp of the newest valid frame [s], or ``None``.
        last_valid_at: Local clock time of the newest valid frame [s], or ``None``.
        publishers: Publishers seen at the last check.
        max_publishers: Most publishers seen at once.
    """

    def __init__(self, topic: str, log_interval: float = 1.0) -> None:
        self.topic = topic
        self.received = 0
        self.valid = 0
        self.rejects = RejectCounter(topic, log_interval)
        self.last_stamp: float | None = None
        self.last_valid_at: float | None = None
        self.publishers = 0
        self.max_publishers = 0
        self.first_at: float | None = None
        self.first_rx: float | None = None
        self.last_rx: float | None = None
        self._n_first = 0
        self._samples: deque[tuple[float, int]] = deque()

    def receive(self, now: float) -> None:
        """Count one received frame (valid or not) at ``now`` [s]."""
        self.received += 1
        if self.first_rx is None or now == self.first_rx:  # the first batch (may be a burst)
            self.first_rx, self._n_first = now, self.received
        self.last_rx = now

    def mean_rate_hz(self) -> float:
        """Frames per second after the first received batch until the last frame (0 before)."""
        if self.first_rx is None or self.last_rx is None or self.last_rx <= self.first_rx:
            return 0.0
        return (self.received - self._n_first) / (self.last_rx - self.first_rx)

    def sample(self, now: float) -> None:
        """Record ``(now, received)`` for the rate estimate (call once per update)."""
        if self.first_at is None:
            self.first_at = now
        self._samples.append((now, self.received))
        while len(self._samples) > 2 and now - self._samples[1][0] >= RATE_WINDOW_S:
            self._samples.popleft()

    def rate_hz(self) -> float:
        """Received frames per second over the last ~1 s (0 before two samples)."""
        if len(self._samples) < 2:
            return 0.0
        (t0, n0), (t1, n1) = self._samples[0], self._samples[-1]
        return (n1 - n0) / (t1 - t0) if t1 > t0 else 0.0

    def age(self, now: float) -> float:
        """Time since the newest valid frame [s] (``inf`` before the first one)."""
        return math.inf if self.last_valid_at is None else now - self.last_valid_at

    def as_dict(self, now: float, wall_now: float) -> dict[str, Any]:
        """The report entry for this topic.

        Args:
            now: Local monotonic clock [s].
            wall_now: Wall-clock time, to age the header stamp [s].
        """
        age = self.age(now)
        return {
            "received": self.received,
            "received_rate_hz": round(self.mean_rate_hz(), 3),
            "valid": self.valid,
            "rejected": self.rejects.total,
            "rejected_by_reason": self.rejects.as_dict(),
            "last_receive_age_s": None if math.isinf(age) else round(age, 4),
            "last_stamp_age_s": (
                None if self.last_stamp is None else round(wall_now - self.last_stamp, 4)
            ),
            "publisher_count": self.publishers,
            "max_publisher_count": self.max_publishers,
        }
