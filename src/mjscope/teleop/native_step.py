"""The engaged arm cycle compiled (:mod:`mjscope.teleop._armstep`), when it is built.

:func:`stepper` gives an arm a :class:`~mjscope.teleop._armstep.Stepper`: the plain engaged
cycle of :meth:`~mjscope.teleop.node.TeleopArm.step` — feedback checks, XR input, clutch
target, Placo's QP step and its convergence check, joint limits, send, publish, stage stamps,
the cycle's record — in C, on the arm's own Python objects (Placo, the adapter and the
publisher through their methods; the arithmetic through ``_chain.c``'s functions, which
``_armstep.c`` imports through a capsule at its init, a C-level import the package layout
test cannot see). Every other cycle (engaging, a reset, a release, an XR timeout, a Cartesian
limit binding, a fault, a stop) it declines before changing anything and the Python path runs
it; inside the cycle, a rejected IK step, a binding joint limit, a failed send or lost
feedback go to the same Python methods. Both paths give the same cycles, bit for bit (tested
on twin arms).

Used when both extensions were built and the compiled chain is on:
``MJSCOPE_TELEOP_CHAIN=python`` (:data:`~mjscope.teleop.native_chain.ENV`) forces the Python
path for both (read when an arm is built).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from mjscope.teleop import joint_limits, native_chain
from mjscope.teleop.adapters.base import AdapterError, Feedback
from mjscope.teleop.cycle import Cycle
from mjscope.teleop.poses import Pose

try:  # built by pip install (setup.py); optional
    from mjscope.teleop import _armstep
except ImportError:  # pragma: no cover - an install without a C compiler
    _armstep = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from mjscope.teleop._armstep import Stepper


def available() -> bool:
    """Whether the compiled arm cycle will be used."""
    return _armstep is not None and native_chain.available()


def stepper(arm: Any) -> Stepper | None:
    """The compiled cycle of a :class:`~mjscope.teleop.node.TeleopArm`, or ``None``.

    ``None``: not built, or the arm's chain runs in Python (the node imports this module, so
    the arm is not typed here: no import circle). The arm's parts (clutch, XR input, stats,
    stage log, IK and its Placo objects, limiter, adapter, publisher) are taken once, here:
    an arm never replaces them; their state and methods are read at every cycle.
    """
    ik, joints, tm = arm.ik, arm.joints, arm.timing
    if not available() or ik._native is None or joints._native is None or arm._native is None:
        return None
    idx = ik._idx
    index = range(idx.start, idx.stop) if isinstance(idx, slice) else idx.tolist()
    objects = (
        arm, arm.clutch, arm.xr, arm.stats, tm, ik, joints, arm.adapter, arm.out,
        ik.robot, ik._state, ik._task, ik._T_target, ik.ee_frame,
        (arm._plan, joints._plan, tm._data), np.ndarray, Feedback, Pose, Cycle,
        np.frombuffer, joint_limits._CLAMPS, AdapterError,
        float(arm.clutch.threshold), float(joints._inv_dt),
    )  # fmt: skip
    c = ik.cfg
    numbers = (arm.xr.timeout_s, arm.cfg.feedback_timeout_s, c.position_weight,
               c.orientation_weight, ik._rtol1, ik._atol)  # fmt: skip
    addresses = (arm._plan.address, joints._plan.address, ik.T_address, int(tm._data.ctypes.data))
    assert tm._data.flags.c_contiguous and tm._data.shape[1] == 6
    return _armstep.Stepper(objects, numbers, tuple(index), addresses, len(tm._data))
