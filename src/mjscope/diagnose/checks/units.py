"""Angle-unit sanity: hinge ranges and servo ctrlranges that only make sense in the other unit.

MJCF reads angles in degrees unless ``<compiler angle="radian"/>`` (URDF: radians); a joint
``range`` is converted, a position servo's ``ctrlrange`` never is. So the two classic slips:

- the range written in radians in a degree file: ``range="-1.57 1.57"`` becomes ±0.027 rad
  (±1.57°), while its servo's ``ctrlrange="-1.57 1.57"`` is still ±1.57 rad;
- the range written in degrees in a radian file: ``range="-90 90"`` becomes ±90 rad (14
  turns).

ANGLE_UNITS fires when a hinge's servo ctrlrange spans about 180/π times its range (or its
range about 180/π times the ctrlrange; within :data:`RATIO_TOL`; which side is wrong is told
by which one is implausible), and for a limited hinge
whose range spans more than :data:`MAX_SPAN` (four turns), which no real joint stop has.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.names import joint_name, name_of
from mjscope.diagnose.summary import actuator_kind

DEG = 180.0 / math.pi
RATIO_TOL = 0.15  # relative [1]
MAX_SPAN = 8 * math.pi  # [rad]
NARROW = 0.2  # a hinge range narrower than this [rad] (11°) is no working joint
_HINGE = int(mujoco.mjtJoint.mjJNT_HINGE)


def angle_unit_rule(model: mujoco.MjModel) -> list[Finding]:
    """ANGLE_UNITS: hinge ranges or servo ctrlranges in the wrong angle unit."""
    out = []
    flagged: set[int] = set()
    for a in range(model.nu):
        j = _servo_hinge(model, a)
        if j is None:
            continue
        span_j = float(np.ptp(model.jnt_range[j]))
        span_c = float(np.ptp(model.actuator_ctrlrange[a])) * float(model.actuator_gear[a, 0])
        if span_j <= 0 or span_c <= 0:
            continue
        ratio = span_c / span_j
        label = f"joint '{joint_name(model, j)}'"
        act = name_of(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a, "actuator")
        rng = f"[{model.jnt_range[j, 0]:.4g}, {model.jnt_range[j, 1]:.4g}] rad"
        ctl = f"[{model.actuator_ctrlrange[a, 0]:.4g}, {model.actuator_ctrlrange[a, 1]:.4g}]"
        if abs(ratio / DEG - 1) < RATIO_TOL and span_j < NARROW:
            why = "the range was written in radians but read as degrees"
            fix = 'add <compiler angle="radian"/> (or write the range in degrees)'
        elif abs(ratio / DEG - 1) < RATIO_TOL:
            why = "the ctrlrange looks like degrees (a servo's ctrlrange is never converted)"
            fix = "write the ctrlrange in radians"
        elif abs(ratio * DEG - 1) < RATIO_TOL:
            why = "the range looks like degrees written in a radian model"
            fix = 'write the range in radians, or drop <compiler angle="radian"/>'
        else:
            continue
        flagged.add(j)
        side = f"{ratio:.3g}× narrower" if ratio > 1 else f"{1 / ratio:.3g}× wider"
        out.append(
            _finding(
                label, f"range {rng} is {side} than its servo '{act}''s ctrlrange {ctl}: {why}", fix
            )
        )
    for j in np.flatnonzero(model.jnt_limited.astype(bool) & (model.jnt_type == _HINGE)):
        span = float(np.ptp(model.jnt_range[j]))
        if int(j) not in flagged and span > MAX_SPAN:
            out.append(
                _finding(
                    f"joint '{joint_name(model, int(j))}'",
                    f"range spans {span:.4g} rad ({span * DEG / 360:.3g} turns): degrees "
                    "written in a radian model?",
                    'write the range in radians, or drop <compiler angle="radian"/>',
                )
            )
    return out


def _servo_hinge(model: mujoco.MjModel, a: int) -> int | None:
    """The limited hinge a ctrl-limited position servo drives directly, else ``None``."""
    if int(model.actuator_trntype[a]) != int(mujoco.mjtTrn.mjTRN_JOINT):
        return None
    if actuator_kind(model, a) != "position" or not model.actuator_ctrllimited[a]:
        return None
    j = int(model.actuator_trnid[a, 0])
    if int(model.jnt_type[j]) != _HINGE or not model.jnt_limited[j]:
        return None
    return j


def _finding(label: str, message: str, fix: str) -> Finding:
    return Finding("ANGLE_UNITS", "warning", label, message, fix)
