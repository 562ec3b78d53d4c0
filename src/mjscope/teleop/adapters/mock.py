"""``MockRealManAdapter``: an in-memory arm for ``mjscope teleop --mock``.

It starts at the side's YAML ``initial_joint_pose`` (degrees → radians, given to it as
``initial_q``), follows every command exactly and at once, and jumps back to the initial pose
on a reset (no trajectory), as the seed's mock does. Feedback is always current. After a reset
teleop may go on without releasing the grip (it re-anchors): ``grip_release_after_reset`` is
false.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from mjscope.teleop.adapters.base import AdapterError, ArmAdapter, Feedback

_F8 = np.dtype(float)
_new_feedback = tuple.__new__  # Feedback(q, stamp, 0) without the NamedTuple's Python __new__


class MockRealManAdapter(ArmAdapter):
    """An arm that is wherever it was last commanded.

    Attributes:
        sent: Commands received.
        resets: Resets done.
    """

    kind = "mock"
    grip_release_after_reset = False

    def __init__(self, side: str, joint_names: tuple[str, ...], initial_q: npt.ArrayLike) -> None:
        super().__init__(side, joint_names, initial_q)
        self._q = self.initial_q.copy()
        self.connected = False
        self.sent = 0
        self.resets = 0

    def connect(self) -> None:
        """Nothing to reach: the arm is at its initial pose."""
        self._q = _frozen(self.initial_q)
        self.connected = True

    def feedback(self, now: float) -> Feedback | None:
        """The current position, stamped ``now`` (a read-only array: no copy per cycle)."""
        return _new_feedback(Feedback, (self._q, now, 0)) if self.connected else None

    def send(self, q: npt.ArrayLike, now: float) -> None:
        """Go to ``q`` at once.

        Raises:
            AdapterError: Not connected, or ``q`` is not one finite angle per joint.
        """
        if not self.connected:
            raise AdapterError(f"mock {self.side} arm: send before connect")
        if (
            type(q) is np.ndarray
            and q.dtype == _F8
            and (type(q.base) is bytes or (q.base is None and not q.flags.writeable))
        ):  # the joint limiter's command: a view of immutable bytes (always read-only), or
            v = q  # read-only on its own memory: nobody can change it, no copy
        else:
            v = np.array(q, dtype=float)  # a copy: the next feedback shares it, read-only
            v.flags.writeable = False
        if v.shape != self._q.shape or not math.isfinite(sum(v.tolist())):
            raise AdapterError(
                f"mock {self.side} arm: bad command {v!r}; need {self._q.size} finite"
            )
        self._q = v
        self.sent += 1

    def reset(self, now: float) -> None:
        """Jump to the initial pose at once."""
        self._q = _frozen(self.initial_q)
        self.resets += 1


def _frozen(q: np.ndarray) -> np.ndarray:
    """A read-only copy of ``q`` (shared by every feedback until the next command)."""
    out = q.copy()
    out.flags.writeable = False
    return out
