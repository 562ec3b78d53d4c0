"""When, and whether, each message of the emulated controller leaves: delay, jitter, loss.

Replies on one connection keep their order (TCP does), so a reply never leaves before the one
sent ahead of it; push datagrams are independent (UDP), may overtake each other and may be
lost. Every random draw comes from one generator seeded by :attr:`Faults.seed`.
"""

from __future__ import annotations

import numpy as np

from mjscope.teleop.emulator.config import Faults


class Delivery:
    """Departure times of replies and datagrams under the live :class:`Faults`.

    Args:
        faults: The fault settings (read on every message, so they may change while running).

    Attributes:
        dropped: Push datagrams lost on purpose.
    """

    def __init__(self, faults: Faults) -> None:
        self.faults = faults
        self.dropped = 0
        self._rng = np.random.default_rng(faults.seed)
        self._last: dict[int, float] = {}  # connection id → departure of its newest reply [s]

    def _delay(self) -> float:
        f = self.faults
        jitter = float(self._rng.uniform(0.0, f.jitter_s)) if f.jitter_s > 0 else 0.0
        return max(0.0, f.latency_s) + jitter

    def reply_at(self, conn: int, now: float) -> float:
        """Departure [s] of a reply on connection ``conn`` made at ``now`` [s]."""
        t = max(now + self._delay(), self._last.get(conn, 0.0))
        self._last[conn] = t
        return t

    def push_at(self, now: float) -> float | None:
        """Departure [s] of a push datagram made at ``now`` [s]; ``None``: it is lost."""
        if self.faults.drop > 0 and float(self._rng.random()) < self.faults.drop:
            self.dropped += 1
            return None
        return now + self._delay()

    def gone(self, elapsed: float) -> bool:
        """Whether the controller has gone away ``elapsed`` [s] after it started."""
        after = self.faults.disconnect_after_s
        return after is not None and elapsed >= after

    def forget(self, conn: int) -> None:
        """A connection closed."""
        self._last.pop(conn, None)
