"""Actuator rules: forces without any bound, stiff position servos on bare joints."""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.diagnose.checks.actuator_force import unbounded_reasons
from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.names import joint_name, name_of
from mjscope.diagnose.summary import actuator_kind, position_gain

_OBJ = mujoco.mjtObj
HIGH_GAIN_OMEGA_H = 0.1  # ω·h above which a position servo counts as high-gain [1]


def actuator_rules(model: mujoco.MjModel) -> list[Finding]:
    """ACTUATOR_NO_LIMITS (the force has no bound at all) and HIGH_GAIN_NO_DAMPING.

    ACTUATOR_NO_LIMITS follows MuJoCo's force computation
    (:mod:`~mjscope.diagnose.checks.actuator_force`): a ``forcerange``, the joints'
    ``actuatorfrcrange``, or a control range that bounds the force law (a motor's
    ``ctrlrange × gear``, a servo's ``kp`` over its control and joint ranges) is a bound.
    """
    out = []
    h = float(model.opt.timestep)
    for a in range(model.nu):
        label = f"actuator '{name_of(model, _OBJ.mjOBJ_ACTUATOR, a, 'actuator')}'"
        reasons = unbounded_reasons(model, a)
        if reasons:
            out.append(
                Finding(
                    "ACTUATOR_NO_LIMITS",
                    "warning",
                    label,
                    f"its force has no bound: {'; '.join(reasons)}",
                    "set forcerange (or the joint's actuatorfrcrange) to the real actuator's "
                    "limits, or bound what the force grows with (ctrlrange, joint range)",
                )
            )
        out.extend(_high_gain(model, a, label, h))
    return out


def _high_gain(model: mujoco.MjModel, a: int, label: str, h: float) -> list[Finding]:
    kp = position_gain(model, a)
    trn = int(model.actuator_trntype[a])
    joint_trn = (mujoco.mjtTrn.mjTRN_JOINT, mujoco.mjtTrn.mjTRN_JOINTINPARENT)
    if kp <= 0 or actuator_kind(model, a) == "velocity" or trn not in joint_trn:
        return []
    j = int(model.actuator_trnid[a, 0])
    dof = int(model.jnt_dofadr[j])
    gear = float(model.actuator_gear[a, 0])
    inertia = max(float(model.dof_M0[dof]), 1e-12)
    omega_h = float(np.sqrt(kp * gear * gear / inertia)) * h
    undamped = model.dof_damping[dof] == 0 and model.dof_armature[dof] == 0
    if not undamped or omega_h < HIGH_GAIN_OMEGA_H or model.actuator_biasprm[a, 2] < 0:
        return []
    return [
        Finding(
            "HIGH_GAIN_NO_DAMPING",
            "warning",
            label,
            f"kp={kp:g} on joint '{joint_name(model, j)}' with no damping, armature or kv: "
            f"ω·h={omega_h:.2f} (stiff servo on a bare joint rings or diverges)",
            "add joint damping and armature (or kv), or lower kp/timestep",
        )
    ]
