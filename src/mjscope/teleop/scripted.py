"""A scripted XR source: frames computed from the caller's clock (tests, benchmarks).

``ScriptedXrSource(script)`` calls ``script(t)`` with the time since its first poll and hands out
what it returns (a :class:`~mjscope.teleop.xr.base.XrFrame`, or ``None`` for "no frame now"),
stamped with that time. :func:`hold_pose` builds a controller state from a world pose.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from mjscope.teleop.xr.base import ControllerState, XrFrame, XrSource

Script = Callable[[float], XrFrame | None]


class ScriptedXrSource(XrSource):
    """XR frames from a function of time.

    Args:
        script: ``t`` [s] since the first poll → the frame at ``t`` or ``None``.
    """

    def __init__(self, script: Script) -> None:
        super().__init__()
        self.script = script
        self._t0: float | None = None

    def poll(self, now: float) -> XrFrame | None:
        """The script's frame at ``now`` (time stamp: its time since the first poll)."""
        if self._t0 is None:
            self._t0 = now
        t = now - self._t0
        frame = self.script(t)
        if frame is None:
            return None
        self.received += 1
        return XrFrame(max(1, round(t * 1e9)), frame.left, frame.right, frame.head)


def hold_pose(
    pose: npt.ArrayLike, grip: float = 1.0, trigger: float = 0.0, primary: bool = False
) -> ControllerState:
    """A controller at ``pose`` (x, y, z, w, x, y, z; world frame) with these inputs."""
    p = np.asarray(pose, dtype=float)
    return ControllerState(p, grip=grip, trigger=trigger, primary=primary)


IDENTITY_POSE = (0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0)  # a controller 1 m up, level [m, wxyz]
