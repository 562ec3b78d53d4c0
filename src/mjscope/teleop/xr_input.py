"""One arm's view of the XR input: the controller state to act on, timeouts, button edges."""

from __future__ import annotations

import math

import numpy as np

from mjscope.teleop.xr.base import ControllerState

_F8 = np.dtype(float)


def _floats(pose: object) -> list[float]:
    out: list[float] = np.asarray(pose, dtype=float).tolist()
    return out


class XrInput:
    """Tracks one side's controller between XR frames.

    Between frames the last state stays in force (XR rarely arrives exactly at the control
    rate); after ``timeout_s`` without a frame the input has timed out until the next one. A
    frame with a non-finite pose counts as no frame.

    Args:
        timeout_s: The side's ``xr_timeout_s`` [s].

    Attributes:
        ever: Whether a frame has arrived yet.
        timed_out: Whether the input is in a timeout now.
        timeouts: How many timeouts began.
        pose: The pose of the state in force, as 7 plain floats (x, y, z, w, x, y, z).
    """

    __slots__ = ("_ctrl", "_last", "_primary", "ever", "pose", "timed_out", "timeout_s", "timeouts")

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.ever = False
        self.timed_out = False
        self.timeouts = 0
        self._ctrl: ControllerState | None = None
        self.pose: list[float] = []  # the state's pose as plain floats
        self._last = -math.inf
        self._primary = False

    def update(self, now: float, ctrl: ControllerState | None) -> ControllerState | None:
        """The state to act on at ``now`` given this cycle's new one (``None`` if none came).

        Returns:
            The newest state while fresh; ``None`` before the first frame and during a timeout.
        """
        if ctrl is not None:
            p = ctrl.pose
            pose = p.tolist() if type(p) is np.ndarray and p.dtype == _F8 else _floats(p)
            if math.isfinite(sum(pose)):
                self._ctrl, self._last, self.ever, self.timed_out = ctrl, now, True, False
                self.pose = pose
                return ctrl
        if self.ever and now - self._last > self.timeout_s:
            if not self.timed_out:
                self.timed_out = True
                self.timeouts += 1
            return None
        return self._ctrl

    def silent_for(self, now: float) -> float:
        """Time since the last frame [s]."""
        return now - self._last

    def primary_pressed(self, ctrl: ControllerState) -> bool:
        """A rising edge of the primary button (X left, A right) in a new state."""
        pressed, self._primary = ctrl.primary and not self._primary, ctrl.primary
        return pressed
