"""Joint rules: the initial pose (``qpos0``) and keyframes inside the joint limits."""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.names import joint_name, name_of

_OBJ = mujoco.mjtObj


def range_rules(model: mujoco.MjModel) -> list[Finding]:
    """QPOS0_OUT_OF_RANGE and KEYFRAME_OUT_OF_RANGE for limited hinge/slide joints."""
    out = []
    states = [("qpos0", model.qpos0)] + [
        (f"keyframe '{name_of(model, _OBJ.mjOBJ_KEY, k, 'key')}'", model.key_qpos[k])
        for k in range(model.nkey)
    ]
    for j in np.flatnonzero(model.jnt_limited):
        if int(model.jnt_type[j]) not in (
            int(mujoco.mjtJoint.mjJNT_HINGE),
            int(mujoco.mjtJoint.mjJNT_SLIDE),
        ):
            continue
        lo, hi = model.jnt_range[j]
        adr = model.jnt_qposadr[j]
        for label, q in states:
            v = float(q[adr])
            if not lo - 1e-9 <= v <= hi + 1e-9:
                code = "QPOS0_OUT_OF_RANGE" if label == "qpos0" else "KEYFRAME_OUT_OF_RANGE"
                out.append(
                    Finding(
                        code,
                        "warning",
                        f"joint '{joint_name(model, int(j))}'",
                        f"{label} value {v:g} outside range [{lo:g}, {hi:g}]: the model starts "
                        "violating its own limit",
                        "move the value into the range (joint ref / keyframe) or widen the range",
                    )
                )
    return out
