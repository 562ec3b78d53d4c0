"""Joint rules: the initial pose (``qpos0``) and keyframes inside the joint limits."""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.names import joint_name, name_of

_OBJ = mujoco.mjtObj
_TOL = 1e-9  # [rad or m]


def range_rules(model: mujoco.MjModel) -> list[Finding]:
    """QPOS0_OUT_OF_RANGE and KEYFRAME_OUT_OF_RANGE for limited hinge/slide joints.

    A keyframe outside a range is a warning. ``qpos0`` outside a range is a warning only when
    no keyframe puts that joint inside it: a model whose zero pose is not a valid pose but
    ships one (Menagerie arms and legged robots do) gets an info naming the keyframe to start
    from (``--key``).
    """
    out = []
    keys = [name_of(model, _OBJ.mjOBJ_KEY, k, "key") for k in range(model.nkey)]
    kinds = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    for j in np.flatnonzero(model.jnt_limited):
        if int(model.jnt_type[j]) not in kinds:
            continue
        lo, hi = (float(x) for x in model.jnt_range[j])
        adr = int(model.jnt_qposadr[j])
        inside = [k for k in range(model.nkey) if _inside(model.key_qpos[k, adr], lo, hi)]
        label = f"joint '{joint_name(model, int(j))}'"
        v = float(model.qpos0[adr])
        if not _inside(v, lo, hi):
            out.append(_qpos0(label, v, lo, hi, [keys[k] for k in inside]))
        for k in range(model.nkey):
            if k not in inside:
                out.append(_keyframe(label, keys[k], float(model.key_qpos[k, adr]), lo, hi))
    return out


def _inside(v: float, lo: float, hi: float) -> bool:
    return lo - _TOL <= v <= hi + _TOL


def _qpos0(label: str, v: float, lo: float, hi: float, good_keys: list[str]) -> Finding:
    msg = (
        f"qpos0 value {v:g} outside range [{lo:g}, {hi:g}]: the model starts violating its own "
        "limit"
    )
    if good_keys:
        return Finding(
            "QPOS0_OUT_OF_RANGE",
            "info",
            label,
            f"{msg} when reset to qpos0; keyframe '{good_keys[0]}' is inside it",
            f"nothing to do with --key auto (the default starts from the first keyframe); with "
            f"--key none, start from --key {good_keys[0]} instead",
        )
    return Finding(
        "QPOS0_OUT_OF_RANGE",
        "warning",
        label,
        msg,
        "move the value into the range (joint ref / keyframe) or widen the range",
    )


def _keyframe(label: str, key: str, v: float, lo: float, hi: float) -> Finding:
    return Finding(
        "KEYFRAME_OUT_OF_RANGE",
        "warning",
        label,
        f"keyframe '{key}' value {v:g} outside range [{lo:g}, {hi:g}]: the model starts "
        "violating its own limit",
        "move the value into the range (joint ref / keyframe) or widen the range",
    )
