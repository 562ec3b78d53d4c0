"""What one control cycle of one arm did: its state and the row it adds to ``--log``."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mjscope.teleop.poses import Pose

#: Arm states, as reported per cycle (``braking``: the run is ending, the arm ramps to rest).
STATES = (
    "waiting_xr",
    "idle",
    "engaged",
    "xr_timeout",
    "needs_release",
    "stopped",
    "reset",
    "braking",
)


class Cycle(NamedTuple):
    """What one cycle of one arm did (a row of ``--log``).

    Attributes:
        t: Time [s].
        state: One of :data:`STATES`.
        grip: Grip value (NaN without XR data).
        trigger: Trigger value (NaN without XR data).
        target: The limited end-effector target, or ``None`` when not engaged.
        q: ``(n,)`` the command sent [rad].
        stages: Stage times of the cycle [s] (:data:`mjscope.teleop.timing.STAGES`; NaN: the
            stage did not run), or ``None``.
    """

    t: float
    state: str
    grip: float
    trigger: float
    target: Pose | None
    q: np.ndarray
    stages: tuple[float, ...] | None = None
