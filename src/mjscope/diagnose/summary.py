"""Static model summary: dimensions, options, why nq ≠ nv, and the actuator table."""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.names import joint_name, name_of

_OBJ = mujoco.mjtObj
_TRN_OBJ = {
    mujoco.mjtTrn.mjTRN_JOINT: _OBJ.mjOBJ_JOINT,
    mujoco.mjtTrn.mjTRN_JOINTINPARENT: _OBJ.mjOBJ_JOINT,
    mujoco.mjtTrn.mjTRN_TENDON: _OBJ.mjOBJ_TENDON,
    mujoco.mjtTrn.mjTRN_SITE: _OBJ.mjOBJ_SITE,
    mujoco.mjtTrn.mjTRN_SLIDERCRANK: _OBJ.mjOBJ_SITE,
    mujoco.mjtTrn.mjTRN_BODY: _OBJ.mjOBJ_BODY,
}


def model_summary(model: mujoco.MjModel) -> dict[str, Any]:
    """Dimensions and solver options of a model, with the reason nq ≠ nv when it is so.

    Returns:
        ``nq, nv, nu, na, nbody, njnt, ngeom, nsensor, neq, ntendon, nkey``, ``timestep`` [s],
        ``integrator``, ``solver``, ``cone``, ``iterations``, ``tolerance``, and ``nq_nv_note``.
    """
    o = model.opt
    out: dict[str, Any] = {
        k: int(getattr(model, k))
        for k in (
            "nq",
            "nv",
            "nu",
            "na",
            "nbody",
            "njnt",
            "ngeom",
            "nsensor",
            "neq",
            "ntendon",
            "nkey",
        )
    }
    out.update(
        timestep=float(o.timestep),
        integrator=mujoco.mjtIntegrator(int(o.integrator)).name.removeprefix("mjINT_").lower(),
        solver=mujoco.mjtSolver(int(o.solver)).name.removeprefix("mjSOL_").lower(),
        cone=mujoco.mjtCone(int(o.cone)).name.removeprefix("mjCONE_").lower(),
        iterations=int(o.iterations),
        tolerance=float(o.tolerance),
        total_mass=float(np.sum(model.body_mass)),
    )
    out["nq_nv_note"] = nq_nv_note(model)
    return out


def nq_nv_note(model: mujoco.MjModel) -> str:
    """Why nq differs from nv (free joints 7 vs 6, ball joints 4 vs 3), or ``""``."""
    if model.nq == model.nv:
        return ""
    parts = []
    for kind, label, extra in (
        (mujoco.mjtJoint.mjJNT_FREE, "free", "7 qpos (position + quaternion) vs 6 qvel"),
        (mujoco.mjtJoint.mjJNT_BALL, "ball", "4 qpos (quaternion) vs 3 qvel"),
    ):
        ids = np.flatnonzero(model.jnt_type == kind)
        if ids.size:
            names = ", ".join(joint_name(model, int(j)) for j in ids[:8])
            parts.append(f"{ids.size} {label} joint(s) ({names}): {extra} each")
    return f"nq={model.nq} > nv={model.nv} because quaternions take 4 numbers for 3 DOFs: " + (
        "; ".join(parts)
    )


def actuator_kind(model: mujoco.MjModel, a: int) -> str:
    """``motor``, ``position``, ``velocity`` or ``general`` from gain/bias/dyn types."""
    dyn, gain, bias = (
        int(model.actuator_dyntype[a]),
        int(model.actuator_gaintype[a]),
        int(model.actuator_biastype[a]),
    )
    if gain != mujoco.mjtGain.mjGAIN_FIXED or dyn not in (
        mujoco.mjtDyn.mjDYN_NONE,
        mujoco.mjtDyn.mjDYN_FILTEREXACT,
    ):
        return "general"
    b = model.actuator_biasprm[a]
    g = model.actuator_gainprm[a, 0]
    if bias == mujoco.mjtBias.mjBIAS_NONE:
        return "motor"
    if bias == mujoco.mjtBias.mjBIAS_AFFINE and b[0] == 0:
        if b[1] == -g and b[1] != 0 and b[2] <= 0:
            return "position"
        if b[1] == 0 and b[2] == -g and g != 0:
            return "velocity"
    return "general"


def position_gain(model: mujoco.MjModel, a: int) -> float:
    """Gain kp of a position-like actuator (``-biasprm[1]``), 0 for others [N/m or N·m/rad]."""
    if int(model.actuator_biastype[a]) != mujoco.mjtBias.mjBIAS_AFFINE:
        return 0.0
    return float(max(0.0, -model.actuator_biasprm[a, 1]))


def actuator_table(model: mujoco.MjModel) -> list[dict[str, Any]]:
    """One row per actuator: name, kind, dyn/gain/bias types, target, gear, ranges, gains."""
    rows = []
    for a in range(model.nu):
        trn = int(model.actuator_trntype[a])
        tid = int(model.actuator_trnid[a, 0])
        obj = _TRN_OBJ.get(mujoco.mjtTrn(trn), _OBJ.mjOBJ_UNKNOWN)
        trn_label = mujoco.mjtTrn(trn).name.removeprefix("mjTRN_").lower()
        target = name_of(model, obj, tid, trn_label) if tid >= 0 else "(none)"
        rows.append(
            {
                "name": name_of(model, _OBJ.mjOBJ_ACTUATOR, a, "actuator"),
                "kind": actuator_kind(model, a),
                "dyntype": mujoco.mjtDyn(int(model.actuator_dyntype[a])).name[6:].lower(),
                "gaintype": mujoco.mjtGain(int(model.actuator_gaintype[a])).name[7:].lower(),
                "biastype": mujoco.mjtBias(int(model.actuator_biastype[a])).name[7:].lower(),
                "transmission": trn_label,
                "target": target,
                "gear": float(model.actuator_gear[a, 0]),
                "kp": position_gain(model, a),
                "ctrlrange": _range(model.actuator_ctrllimited[a], model.actuator_ctrlrange[a]),
                "forcerange": _range(model.actuator_forcelimited[a], model.actuator_forcerange[a]),
            }
        )
    return rows


def _range(limited: int, rng: np.ndarray) -> list[float] | None:
    return [float(rng[0]), float(rng[1])] if limited else None
