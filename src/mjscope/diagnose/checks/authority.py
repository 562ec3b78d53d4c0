"""Actuator authority: S1.13 "controller output but the joint does not move".

Static rules (the model alone): a transmission whose ``gear`` is all zero, a force law with
no gain. A state rule: ``ctrlrange``, ``forcerange`` or joint ``actuatorfrcrange`` leaving an
actuator too weak to hold its joint at the initial pose. Rollout rules: an actuator given a
non-zero control that produced no force, or whose joint never felt one; a commanded control
outside ``ctrlrange`` (``--ctrl zero`` on position servos).
"""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.names import joint_name, name_of
from mjscope.diagnose.rollout import RolloutResult
from mjscope.diagnose.summary import actuator_kind

_OBJ = mujoco.mjtObj
_JOINT_TRN = (int(mujoco.mjtTrn.mjTRN_JOINT), int(mujoco.mjtTrn.mjTRN_JOINTINPARENT))
_FIX = "print m.nu, set ctrl by actuator name, check gear, ctrlrange, forcerange and the joint"


def _label(model: mujoco.MjModel, a: int) -> str:
    return f"actuator '{name_of(model, _OBJ.mjOBJ_ACTUATOR, a, 'actuator')}'"


def authority_rules(model: mujoco.MjModel) -> list[Finding]:
    """ACTUATOR_ZERO_GEAR and ACTUATOR_NO_GAIN, by actuator."""
    out = []
    for a in range(model.nu):
        label = _label(model, a)
        if not np.any(model.actuator_gear[a]):
            out.append(
                Finding(
                    "ACTUATOR_ZERO_GEAR",
                    "error",
                    label,
                    "gear is all zero: its force never reaches the joint (qfrc_actuator stays 0)",
                    "set gear (1 for a direct drive) on the actuator",
                )
            )
        elif _no_gain(model, a):
            out.append(
                Finding(
                    "ACTUATOR_NO_GAIN",
                    "error",
                    label,
                    "gain and bias are zero: force = 0 × ctrl whatever the control",
                    "set gainprm[0] (a motor's gear or a servo's kp)",
                )
            )
    return out


def _no_gain(model: mujoco.MjModel, a: int) -> bool:
    fixed = int(model.actuator_gaintype[a]) == mujoco.mjtGain.mjGAIN_FIXED
    no_bias = int(model.actuator_biastype[a]) == mujoco.mjtBias.mjBIAS_NONE
    return fixed and no_bias and model.actuator_gainprm[a, 0] == 0


def holding_rule(model: mujoco.MjModel, data: mujoco.MjData) -> list[Finding]:
    """ACTUATOR_NO_AUTHORITY: the ranges leave an actuator too weak to hold its joint.

    For a hinge or slide driven by one joint-transmission actuator and held by nothing else at
    the initial pose (no constraint force on it): the static load ``qfrc_bias − qfrc_passive``
    (gravity, at rest) must lie within the generalized force the actuator can give there:
    ``gear ×`` its force interval (``ctrlrange × gain`` for a motor, ``kp·(ctrlrange − q)``
    for a position servo, clamped to ``forcerange``), clamped to the joint's
    ``actuatorfrcrange``. A motor limited to ``ctrlrange="0 1"`` against a load that needs a
    negative torque, or a forcerange far below the gravity torque, holds nothing.
    """
    per_joint: dict[int, list[int]] = {}
    for a in range(model.nu):
        if int(model.actuator_trntype[a]) in _JOINT_TRN:
            per_joint.setdefault(int(model.actuator_trnid[a, 0]), []).append(a)
    out = []
    hinge_slide = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    for j, acts in per_joint.items():
        if len(acts) != 1 or int(model.jnt_type[j]) not in hinge_slide:
            continue
        dof, a = int(model.jnt_dofadr[j]), acts[0]
        if not np.any(model.actuator_gear[a]) or _no_gain(model, a):
            continue  # ACTUATOR_ZERO_GEAR / ACTUATOR_NO_GAIN say it
        if data.qfrc_constraint[dof] != 0 or data.qvel[dof] != 0:
            continue
        need = float(data.qfrc_bias[dof] - data.qfrc_passive[dof])
        lo, hi = _generalized_range(model, data, a, j)
        slack = 0.01 * abs(need)
        if lo - slack <= need <= hi + slack:
            continue
        unit = "N" if int(model.jnt_type[j]) == mujoco.mjtJoint.mjJNT_SLIDE else "N·m"
        what = _drift(need, lo, hi, unit)
        out.append(
            Finding(
                "ACTUATOR_NO_AUTHORITY",
                "warning",
                _label(model, a),
                f"at the initial pose joint '{joint_name(model, j)}' needs {need:.3g} {unit} to "
                f"hold against gravity, but the actuator's ranges let it give only "
                f"[{lo:.3g}, {hi:.3g}] {unit} ({what})",
                "widen ctrlrange / forcerange (or the joint's actuatorfrcrange), raise gear or "
                "kp, or support the joint",
            )
        )
    return out


def _drift(need: float, lo: float, hi: float, unit: str) -> str:
    """Which way the joint goes when the actuator cannot give ``need``, and whether it sags.

    The net generalized force is the actuator's reachable bound minus ``need``; the load
    (gravity) pushes with ``-need``. Moving with the load is sagging; against it, the
    actuator's smallest force already overpowers the load.
    """
    bound, sign = (lo, "+") if need < lo else (hi, "−")
    edge = "at least" if need < lo else "at most"
    with_load = (need < lo) == (need < 0)
    if with_load:
        who = "it pushes with the load" if bound * -need > 0 else "the load wins"
        return f"{edge} {bound:.3g} {unit}: {who} and the joint sags (moves {sign})"
    return (
        f"{edge} {bound:.3g} {unit}: it overpowers the load and pushes the joint (moves "
        f"{sign}) whatever the control"
    )


def _clamp(lo: float, hi: float, r: np.ndarray) -> tuple[float, float]:
    """The interval ``[lo, hi]`` after clamping each value to ``r`` = [r0, r1]."""
    r0, r1 = float(r[0]), float(r[1])
    return min(max(lo, r0), r1), max(min(hi, r1), r0)


def _generalized_range(
    model: mujoco.MjModel, data: mujoco.MjData, a: int, j: int
) -> tuple[float, float]:
    """The generalized force actuator ``a`` can give joint ``j`` now, [lo, hi] [N|N·m]."""
    lo, hi = -np.inf, np.inf
    g0 = float(model.actuator_gainprm[a, 0])
    fixed = int(model.actuator_gaintype[a]) == mujoco.mjtGain.mjGAIN_FIXED
    if model.actuator_ctrllimited[a] and fixed and int(model.actuator_dyntype[a]) == 0:
        c = model.actuator_ctrlrange[a]
        if int(model.actuator_biastype[a]) == mujoco.mjtBias.mjBIAS_NONE:
            lo, hi = sorted((g0 * c[0], g0 * c[1]))
        elif actuator_kind(model, a) == "position":
            length = float(data.actuator_length[a])
            lo, hi = sorted((g0 * (c[0] - length), g0 * (c[1] - length)))
    if model.actuator_forcelimited[a]:
        lo, hi = _clamp(lo, hi, model.actuator_forcerange[a])
    gear = float(model.actuator_gear[a, 0])
    lo, hi = sorted((gear * lo, gear * hi)) if gear else (0.0, 0.0)
    if model.jnt_actfrclimited[j]:
        lo, hi = _clamp(lo, hi, model.jnt_actfrcrange[j])
    return lo, hi


def no_effect_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """ACTUATOR_NO_EFFECT: a non-zero control gave no actuator force, or none at its joint.

    For actuators whose force is ``gain × control`` (no bias: a servo at its target rightly
    pushes nothing); the joint test for joint transmissions (``qfrc_actuator`` on its DOFs).
    Actuators a static rule already explains are left to that rule.
    """
    p = result.probes
    ctrl, force = p.get("actuator_ctrl_max"), p.get("actuator_force_max")
    if not ctrl or not force:
        return []
    explained = {
        a for a in range(model.nu) if not np.any(model.actuator_gear[a]) or _no_gain(model, a)
    }
    dof_act = {r["dof"]: r["actuator_max"] for r in p.get("dof_forces", [])}
    out = []
    for a in range(model.nu):
        if a in explained or ctrl[a] == 0:
            continue
        no_bias = int(model.actuator_biastype[a]) == mujoco.mjtBias.mjBIAS_NONE
        if no_bias and force[a] == 0:
            why = (
                f"|ctrl| up to {ctrl[a]:.3g} but actuator_force stayed 0 (control clamped by "
                "ctrlrange, or an activation that never rises)"
            )
        elif force[a] > 0 and int(model.actuator_trntype[a]) in _JOINT_TRN:
            j = int(model.actuator_trnid[a, 0])
            dofs = range(int(model.jnt_dofadr[j]), int(model.jnt_dofadr[j]) + _ndof(model, j))
            if any(dof_act.get(d, 1.0) for d in dofs):
                continue
            why = (
                f"actuator_force up to {force[a]:.3g} but qfrc_actuator on joint "
                f"'{joint_name(model, j)}' stayed 0"
            )
        else:
            continue
        out.append(Finding("ACTUATOR_NO_EFFECT", "warning", _label(model, a), why, _FIX))
    return out


def _ndof(model: mujoco.MjModel, j: int) -> int:
    return {0: 6, 1: 3}.get(int(model.jnt_type[j]), 1)


def ctrl_outside_rule(model: mujoco.MjModel, result: RolloutResult) -> list[Finding]:
    """CTRL_OUTSIDE_RANGE: the commanded control left ``ctrlrange``; MuJoCo clamped it.

    With ``--ctrl zero`` this is the position-servo robot told to drive its joints to 0 when
    0 is not even a reachable target: it collapses onto the clamped targets.
    """
    p = result.probes
    lo_c, hi_c = p.get("actuator_ctrl_min"), p.get("actuator_ctrl_top")
    if not lo_c or not hi_c:
        return []
    zero = p.get("ctrl_used", {}).get("kinds") == ["zero"]
    out = []
    for a in np.flatnonzero(model.actuator_ctrllimited):
        lo, hi = (float(x) for x in model.actuator_ctrlrange[a])
        tol = 1e-9 * max(1.0, hi - lo)
        if lo_c[a] >= lo - tol and hi_c[a] <= hi + tol:
            continue
        if zero:
            what = f"ctrl = 0 (--ctrl zero) is outside ctrlrange [{lo:g}, {hi:g}]: MuJoCo clamps it"
            fix = "use --ctrl hold (the default: servos hold the initial pose) or a ctrl in range"
        else:
            what = (
                f"commanded ctrl spans [{lo_c[a]:.4g}, {hi_c[a]:.4g}], outside ctrlrange "
                f"[{lo:g}, {hi:g}]: MuJoCo clamps it"
            )
            fix = "command controls inside ctrlrange (or widen it to the real actuator's range)"
        out.append(Finding("CTRL_OUTSIDE_RANGE", "warning", _label(model, int(a)), what, fix))
    return out
