"""Whether an actuator's force has a bound, as MuJoCo computes it (``engine_forward.c``).

MuJoCo's actuator force is ``gain · u + bias`` (``u``: the control, or the activation when the
actuator has dynamics), clamped to ``forcerange`` when force-limited; the generalized force at
a joint is then clamped to that joint's ``actuatorfrcrange`` (``jnt_actfrclimited``). So the
force is bounded when any of these holds:

1. the actuator has a ``forcerange``;
2. every joint it drives has an ``actuatorfrcrange`` (joint transmission: its joint; fixed
   tendon: the tendon's joints; spatial tendon, site, slider-crank, body: the joints on the
   kinematic path its sites or body move);
3. the force law is bounded over what it reads: ``u`` bounded (``ctrlrange``; an activation
   by ``actrange``, a filter of a bounded control, or a muscle's [0, 1]), each length term
   bounded (a limited joint or tendon; ball joints and geometric site/body lengths are),
   and no term growing with velocity, except damping (``biasprm[2] ≤ 0`` only resists motion).

A ``motor`` with a ``ctrlrange`` is bounded by ``ctrlrange × gear``; a ``position`` servo with a
``ctrlrange`` on a limited joint by ``kp × (ctrl span + joint span)``. Dynamics, gain and bias
types whose law this module does not know (user callbacks, newer types) count as bounded
when the control is, so they are never a false alarm.
"""

from __future__ import annotations

import mujoco

from mjscope.diagnose.names import joint_name

_TRN = mujoco.mjtTrn
_DYN = mujoco.mjtDyn
_GAIN = mujoco.mjtGain
_BIAS = mujoco.mjtBias
_JOINT_TRN = (int(_TRN.mjTRN_JOINT), int(_TRN.mjTRN_JOINTINPARENT))
_SLIDE_HINGE = (int(mujoco.mjtJoint.mjJNT_SLIDE), int(mujoco.mjtJoint.mjJNT_HINGE))


def unbounded_reasons(model: mujoco.MjModel, a: int) -> list[str]:
    """Why actuator ``a``'s force has no bound (empty when it has one; see the module doc)."""
    if model.actuator_forcelimited[a]:
        return []
    joints = driven_joints(model, a)
    free = [j for j in joints if not model.jnt_actfrclimited[j]]
    if joints and not free:
        return []
    law = law_reasons(model, a)
    if not law:
        return []
    frc = (
        f"no actuatorfrcrange on joint {', '.join(repr(joint_name(model, j)) for j in free[:3])}"
        + (f" and {len(free) - 3} more" if len(free) > 3 else "")
        if free
        else "no actuatorfrcrange on the joints it drives"
    )
    return ["no forcerange", frc, *law]


def law_reasons(model: mujoco.MjModel, a: int) -> list[str]:
    """The unbounded terms of ``gain · u + bias`` for actuator ``a`` (empty: bounded)."""
    dyn, gain, bias = (
        int(model.actuator_dyntype[a]),
        int(model.actuator_gaintype[a]),
        int(model.actuator_biastype[a]),
    )
    g, b = model.actuator_gainprm[a], model.actuator_biasprm[a]
    out = []
    u_why = _input_reason(model, a, dyn)
    if gain == _GAIN.mjGAIN_FIXED or gain == _GAIN.mjGAIN_AFFINE:
        uses_u = g[0] != 0 or (gain == _GAIN.mjGAIN_AFFINE and (g[1] != 0 or g[2] != 0))
        if uses_u and u_why:
            out.append(u_why)
        if gain == _GAIN.mjGAIN_AFFINE:
            if g[1] != 0 and (why := _length_reason(model, a)):
                out.append(f"its gain grows with the length: {why}")
            if g[2] != 0:
                out.append("its gain grows with the velocity (gainprm[2] ≠ 0)")
    elif gain != _GAIN.mjGAIN_MUSCLE and u_why and not model.actuator_ctrllimited[a]:
        out.append(u_why)  # a law this module does not know: bounded with its control
    if bias == _BIAS.mjBIAS_AFFINE:
        if b[1] != 0 and (why := _length_reason(model, a)):
            out.append(f"its bias (kp·length) grows with the length: {why}")
        if b[2] > 0:
            out.append(f"biasprm[2]={b[2]:g} > 0 pushes harder the faster it moves")
    return out


def _input_reason(model: mujoco.MjModel, a: int, dyn: int) -> str:
    """Why the control or activation the force reads is unbounded ('' when it is bounded)."""
    ctrl_ok = bool(model.actuator_ctrllimited[a])
    if dyn == _DYN.mjDYN_NONE:
        return "" if ctrl_ok else "no ctrlrange (force = gain × ctrl grows with the control)"
    if model.actuator_actlimited[a] or dyn == _DYN.mjDYN_MUSCLE:
        return ""
    if dyn in (_DYN.mjDYN_FILTER, _DYN.mjDYN_FILTEREXACT):
        return "" if ctrl_ok else "no ctrlrange (its filtered activation follows the control)"
    if dyn == _DYN.mjDYN_INTEGRATOR:
        return "an integrator activation without actrange (it grows while the control is held)"
    return "" if ctrl_ok else "no ctrlrange"


def _length_reason(model: mujoco.MjModel, a: int) -> str:
    """Why the actuator length is unbounded ('' when bounded)."""
    trn, tid = int(model.actuator_trntype[a]), int(model.actuator_trnid[a, 0])
    if trn in _JOINT_TRN:
        return _unlimited_joint_reason(model, [tid])
    if trn == _TRN.mjTRN_TENDON:
        if model.tendon_limited[tid]:
            return ""
        joints = _fixed_tendon_joints(model, tid)
        return _unlimited_joint_reason(model, joints) if joints is not None else ""
    return ""  # site, slider-crank, body: geometric lengths of a linkage


def _unlimited_joint_reason(model: mujoco.MjModel, joints: list[int]) -> str:
    for j in joints:
        if int(model.jnt_type[j]) in _SLIDE_HINGE and not model.jnt_limited[j]:
            return f"joint '{joint_name(model, j)}' has no range"
    return ""


def driven_joints(model: mujoco.MjModel, a: int) -> list[int]:
    """The joints whose generalized forces actuator ``a`` can produce (empty: unknown)."""
    trn, ids = int(model.actuator_trntype[a]), model.actuator_trnid[a]
    if trn in _JOINT_TRN:
        return [int(ids[0])]
    if trn == _TRN.mjTRN_TENDON:
        fixed = _fixed_tendon_joints(model, int(ids[0]))
        return fixed if fixed is not None else _path_joints(model, _tendon_bodies(model, ids[0]))
    if trn in (_TRN.mjTRN_SITE, _TRN.mjTRN_SLIDERCRANK):
        sites = [int(s) for s in ids if s >= 0]
        bodies = [int(model.site_bodyid[s]) for s in sites]
        return _path_joints(model, bodies if len(bodies) > 1 else [*bodies, 0])
    if trn == _TRN.mjTRN_BODY:
        return _path_joints(model, [int(ids[0]), 0])
    return []


def _fixed_tendon_joints(model: mujoco.MjModel, t: int) -> list[int] | None:
    """The joints of a fixed tendon, or ``None`` for a spatial one."""
    adr, num = int(model.tendon_adr[t]), int(model.tendon_num[t])
    types = model.wrap_type[adr : adr + num]
    if not (types == mujoco.mjtWrap.mjWRAP_JOINT).all():
        return None
    return [int(j) for j in model.wrap_objid[adr : adr + num]]


def _tendon_bodies(model: mujoco.MjModel, t: int) -> list[int]:
    adr, num = int(model.tendon_adr[t]), int(model.tendon_num[t])
    out = []
    for k in range(adr, adr + num):
        kind, obj = int(model.wrap_type[k]), int(model.wrap_objid[k])
        if kind == mujoco.mjtWrap.mjWRAP_SITE:
            out.append(int(model.site_bodyid[obj]))
        elif kind in (mujoco.mjtWrap.mjWRAP_SPHERE, mujoco.mjtWrap.mjWRAP_CYLINDER):
            out.append(int(model.geom_bodyid[obj]))
    return out


def _path_joints(model: mujoco.MjModel, bodies: list[int]) -> list[int]:
    """Joints on the tree paths between ``bodies``.

    Joints above their common ancestor move all of them together and feel no force.
    """
    chains = [_ancestors(model, b) for b in bodies]
    if not chains:
        return []
    common = set.intersection(*(set(c) for c in chains))
    path = sorted({b for c in chains for b in c} - common)
    return [
        j
        for b in path
        for j in range(int(model.body_jntadr[b]), int(model.body_jntadr[b] + model.body_jntnum[b]))
    ]


def _ancestors(model: mujoco.MjModel, b: int) -> list[int]:
    out = [b]
    while b != 0:
        b = int(model.body_parentid[b])
        out.append(b)
    return out
