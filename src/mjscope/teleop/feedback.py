"""What an arm gives back and how it fails: :class:`Feedback` and :class:`AdapterError`.

The lowest layer of teleop's arm side: the adapter contract (:mod:`mjscope.teleop.adapters`)
and the RealMan protocol package (:mod:`mjscope.teleop.realman`) both build on it, so the
protocol never imports the adapters above it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mjscope.exceptions import MjscopeError


class AdapterError(MjscopeError):
    """The arm cannot be reached, refused a command, or its feedback stopped (a safe stop)."""


class Feedback(NamedTuple):
    """The newest joint state of an arm (immutable; built at the control rate, so a tuple).

    Attributes:
        q: ``(n,)`` joint positions [rad], in the adapter's ``joint_names`` order.
        stamp: When it was received, on the caller's monotonic clock [s].
        err: The controller's error code (0 = none).
    """

    q: np.ndarray
    stamp: float
    err: int = 0
