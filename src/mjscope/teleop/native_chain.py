"""The arm chain's own arithmetic compiled (:mod:`mjscope.teleop._chain`), when it is built.

Per engaged cycle, two C calls around Placo's (which stay in Python): the clutch target with
the Cartesian limits' fast path and the target matrix (:func:`target_plan`), and the joint
limiter (:func:`joint_plan`). Each call is pure: the arm's constants come from a float64
"plan" built once (passed by address), the state stays the Python objects', so the compiled
and the Python path give the same floats, bit for bit (tested on recorded sessions), and a
cycle the C side leaves to Python (a Cartesian limit may bind, an anchoring cycle) runs the
Python code on the same state.

Used when the extension was built (``pip install`` compiles it; without a C compiler the
install still succeeds and the Python path runs); ``MJSCOPE_TELEOP_CHAIN=python`` forces the
Python path (read when an arm's limiter, IK and chain are built). The C calls hold the GIL and
touch only their arguments and the arm's own plan, so the per-arm worker threads need no lock.
"""

from __future__ import annotations

import os
from types import ModuleType

import numpy as np

try:  # built by pip install (setup.py); optional
    from mjscope.teleop import _chain
except ImportError:  # pragma: no cover - an install without a C compiler
    _chain = None  # type: ignore[assignment]

ENV = "MJSCOPE_TELEOP_CHAIN"  # "python": never the compiled chain
#: The target plan's slots, in ``_chain.c``'s order.
TARGET_SLOTS = (
    "scale", "x0", "y0", "z0", "x1", "y1", "z1", "low_radius", "low_height", "radius",
    "ax", "ay", "max_step", "max_turn",
)  # fmt: skip


def module() -> ModuleType | None:
    """The compiled chain, or ``None`` (not built, or forced off by :data:`ENV`)."""
    if _chain is None or os.environ.get(ENV, "").strip().lower() == "python":
        return None
    return _chain


def available() -> bool:
    """Whether the compiled chain will be used."""
    return module() is not None


class Plan:
    """One float64 plan kept alive with its address (what a C call takes).

    Args:
        values: The plan's numbers.
    """

    def __init__(self, values: list[float]) -> None:
        self.array = np.array(values, dtype=float)
        self.array.flags.writeable = False
        self.address = int(self.array.ctypes.data)


def target_plan(
    scale: float,
    lo: list[float],
    hi: list[float],
    low_radius: float,
    low_height: float,
    radius: float,
    axis: tuple[float, float],
    max_step: float,
    max_turn: float,
) -> Plan:
    """The plan of :func:`_chain.target`: the clutch scale, workspace and speed limits."""
    values = [scale, *lo, *hi, low_radius, low_height, radius, *axis, max_step, max_turn]
    assert len(values) == len(TARGET_SLOTS)
    return Plan(values)


def joint_plan(dt: float, inv_dt: float, c: float, rows: list[tuple[float, ...]]) -> Plan:
    """The plan of :func:`_chain.joint_step`: the head, then 10 constants per joint.

    Args:
        dt: Control period [s].
        inv_dt: ``1 / dt``.
        c: ``dt² / 4``.
        rows: Per joint: the usual joint's 5 constants, then the near-a-limit 5
            (:class:`~mjscope.teleop.joint_limits.JointLimiter`'s order).
    """
    head = [float(len(rows)), dt, inv_dt, c, 0.5 * dt]
    return Plan(head + [v for r in rows for v in r])
