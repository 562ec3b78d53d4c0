"""Model rules from S1.12's pitfall table and S1.13's manual.

Bouncy contacts, the timestep against what it must resolve, and masses no real object of that
size has:

- CONTACT_UNDERDAMPED: a collidable geom or explicit pair with solref damping ratio < 1
  ("lands and bounces": MuJoCo's default is 1, critical damping). Below 0.5 a warning; from 0.5
  an info, since soft materials are authored that way on purpose (S1.10's table: rubber feet
  ``0.04 0.8``, soft grasping ``0.05 0.7``).
- TIMESTEP_RANGE: a timestep above 10 ms (contacts and servos rarely survive it; MuJoCo's
  default is 2 ms) or below 0.05 ms (correct, but slow for no gain).
- TIMESTEP_VS_DYNAMICS: the timestep against the fastest time constant it must resolve: a
  position servo or joint spring with ω·h above half the integrator's stability limit (ω =
  √(k/I), I = ``dof_M0`` the inertia the DOF moves plus armature; the limit is 2 for
  undamped Euler and grows with the damping the integrator treats implicitly: joint damping
  under Euler, joint and servo damping under ``implicitfast``/``implicit``; 2√2 under RK4,
  :func:`stable_omega_h`), and actuator filter dynamics faster than the timestep.
- MASS_IMPLAUSIBLE: a body far denser than any material (mass over its geoms' bounding-box
  volume above 50 000 kg/m³: osmium is 22 600; grams given as kilograms) or far lighter than
  air-filled foam (below 1 kg/m³: kilograms given as grams), and the model's total.
"""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.checks.collision import collidable
from mjscope.diagnose.names import body_name, geom_name, joint_name, name_of
from mjscope.diagnose.summary import position_gain

_OBJ = mujoco.mjtObj
DAMPRATIO_WARN = 0.5  # below: warning; [0.5, 1): info [1]
TIMESTEP_MAX = 0.01  # [s]
TIMESTEP_MIN = 5e-5  # [s]
STABILITY_SAFETY = 0.5  # warn above this fraction of the stable ω·h [1]
RK4_OMEGA_H = 2 * np.sqrt(2)  # RK4's stability limit on an undamped oscillator [1]
DENSITY_MAX = 5e4  # [kg/m³], over the bounding-box volume
DENSITY_MIN = 1.0  # [kg/m³]
MIN_VOLUME = 1e-9  # bodies whose geoms enclose less [m³] are not judged


def dampratio_rule(model: mujoco.MjModel) -> list[Finding]:
    """CONTACT_UNDERDAMPED: contacts with solref damping ratio < 1, one finding per value."""
    geoms = np.flatnonzero(collidable(model))
    groups: dict[float, list[str]] = {}
    for g in geoms:
        tc, ratio = model.geom_solref[g]
        if tc > 0 and ratio < 1:
            groups.setdefault(float(ratio), []).append(f"geom '{geom_name(model, int(g))}'")
    for p in range(model.npair):
        tc, ratio = model.pair_solref[p]
        if tc > 0 and ratio < 1:
            label = f"pair '{name_of(model, _OBJ.mjOBJ_PAIR, p, 'pair')}'"
            groups.setdefault(float(ratio), []).append(label)
    out = []
    for ratio, who in sorted(groups.items()):
        severity = "warning" if ratio < DAMPRATIO_WARN else "info"
        more = f" and {len(who) - 3} more" if len(who) > 3 else ""
        out.append(
            Finding(
                "CONTACT_UNDERDAMPED",
                severity,
                ", ".join(who[:3]) + more,
                f"contact solref damping ratio {ratio:g} < 1 (underdamped): objects landing on "
                "these geoms bounce",
                "use solref[1] = 1 (critical, MuJoCo's default) unless the material is meant "
                "to be springy; then print the penetration and raise solref[0] first",
            )
        )
    return out


def timestep_range_rule(model: mujoco.MjModel) -> list[Finding]:
    """TIMESTEP_RANGE: timestep above 10 ms (warning) or below 0.05 ms (info)."""
    h = float(model.opt.timestep)
    if h <= 0 or TIMESTEP_MIN <= h <= TIMESTEP_MAX:
        return []
    if h > TIMESTEP_MAX:
        return [
            Finding(
                "TIMESTEP_RANGE",
                "warning",
                "option timestep",
                f"timestep {h * 1e3:g} ms > {TIMESTEP_MAX * 1e3:g} ms: contacts and servos are "
                "rarely stable this coarse (MuJoCo's default is 2 ms)",
                "use 1–5 ms (and solref[0] ≥ 2×timestep)",
            )
        ]
    return [
        Finding(
            "TIMESTEP_RANGE",
            "info",
            "option timestep",
            f"timestep {h * 1e6:g} µs < {TIMESTEP_MIN * 1e6:g} µs: correct, but each simulated "
            "second costs many steps",
            "raise the timestep as far as stability allows (MuJoCo's performance tuning, step 1)",
        )
    ]


def dynamics_rule(model: mujoco.MjModel) -> list[Finding]:
    """TIMESTEP_VS_DYNAMICS: servos, joint springs or actuator filters faster than the step."""
    h = float(model.opt.timestep)
    if h <= 0:
        return []
    out = []
    for a in range(model.nu):
        out += _servo(model, a, h)
    for j in np.flatnonzero(model.jnt_stiffness > 0):
        t = int(model.jnt_type[j])
        if t not in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
            continue
        dof = int(model.jnt_dofadr[j])
        inertia = max(float(model.dof_M0[dof]), 1e-12)
        omega = float(np.sqrt(model.jnt_stiffness[j] / inertia))
        implicit, explicit = _damping_split(model, dof, 0.0)
        limit = stable_omega_h(model, h * implicit / inertia, h * explicit / inertia)
        if omega * h > STABILITY_SAFETY * limit:
            out.append(
                _fast(model, f"joint '{joint_name(model, int(j))}'", "spring", omega, h, limit)
            )
    return out


def stable_omega_h(model: mujoco.MjModel, bh_implicit: float, bh_explicit: float) -> float:
    """The largest stable ω·h of a spring on one DOF under the model's integrator [1].

    MuJoCo's Euler and implicit integrators are semi-implicit (velocity first, then position
    with the new velocity) and treat part of the damping implicitly; for a DOF with natural
    frequency ω, implicit damping ``b_i`` and explicit damping ``b_e`` (per unit inertia) the
    step is stable while ``(ω·h)² < 4 + 2·h·(b_i − b_e)`` (the Jury test of its 2×2 update).
    RK4 is explicit: ω·h < 2√2 whatever the damping. 0 when nothing is stable.

    Args:
        model: The model (its integrator).
        bh_implicit: Implicit damping × timestep per unit inertia [1].
        bh_explicit: Explicit damping × timestep per unit inertia [1].
    """
    if int(model.opt.integrator) == int(mujoco.mjtIntegrator.mjINT_RK4):
        return RK4_OMEGA_H
    return float(np.sqrt(max(0.0, 4.0 + 2.0 * (bh_implicit - bh_explicit))))


def _damping_split(model: mujoco.MjModel, dof: int, kv: float) -> tuple[float, float]:
    """(implicit, explicit) damping [N·s/m | N·m·s/rad] of ``dof`` with a servo's ``kv``.

    Euler integrates joint damping implicitly (unless ``eulerdamp`` is disabled) and actuator
    damping explicitly; ``implicitfast`` and ``implicit`` integrate both implicitly.
    """
    joint = float(model.dof_damping[dof])
    integ = int(model.opt.integrator)
    if integ in (
        int(mujoco.mjtIntegrator.mjINT_IMPLICIT),
        int(mujoco.mjtIntegrator.mjINT_IMPLICITFAST),
    ):
        return joint + kv, 0.0
    if integ == int(mujoco.mjtIntegrator.mjINT_EULER):
        if model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_EULERDAMP:
            return 0.0, joint + kv
        return joint, kv
    return 0.0, joint + kv


def _servo(model: mujoco.MjModel, a: int, h: float) -> list[Finding]:
    label = f"actuator '{name_of(model, _OBJ.mjOBJ_ACTUATOR, a, 'actuator')}'"
    dyn = int(model.actuator_dyntype[a])
    tau = float(model.actuator_dynprm[a, 0])
    filters = (int(mujoco.mjtDyn.mjDYN_FILTER), int(mujoco.mjtDyn.mjDYN_FILTEREXACT))
    if dyn in filters and 0 < tau < h:
        return [
            Finding(
                "TIMESTEP_VS_DYNAMICS",
                "warning",
                label,
                f"activation filter time constant {tau:g} s < timestep {h:g} s: the step "
                "cannot resolve it",
                f"raise dynprm[0] to ≥ {2 * h:g} s or lower the timestep",
            )
        ]
    kp = position_gain(model, a)
    joint_trn = (int(mujoco.mjtTrn.mjTRN_JOINT), int(mujoco.mjtTrn.mjTRN_JOINTINPARENT))
    if kp <= 0 or int(model.actuator_trntype[a]) not in joint_trn:
        return []
    dof = int(model.jnt_dofadr[int(model.actuator_trnid[a, 0])])
    gear = float(model.actuator_gear[a, 0])
    inertia = max(float(model.dof_M0[dof]), 1e-12)
    omega = float(np.sqrt(kp * gear * gear / inertia))
    kv = max(0.0, -float(model.actuator_biasprm[a, 2])) * gear * gear
    implicit, explicit = _damping_split(model, dof, kv)
    limit = stable_omega_h(model, h * implicit / inertia, h * explicit / inertia)
    if omega * h <= STABILITY_SAFETY * limit:
        return []
    return [_fast(model, label, f"position servo kp={kp:g}", omega, h, limit)]


def _fast(
    model: mujoco.MjModel, label: str, what: str, omega: float, h: float, limit: float
) -> Finding:
    integ = mujoco.mjtIntegrator(int(model.opt.integrator)).name.removeprefix("mjINT_").lower()
    return Finding(
        "TIMESTEP_VS_DYNAMICS",
        "warning",
        label,
        f"{what}: natural frequency ω={omega:.3g} rad/s, ω·timestep={omega * h:.2f}; the "
        f"{integ} integrator with this DOF's damping is stable only below {limit:.2f} "
        f"(warned above {STABILITY_SAFETY:g}× that): the step cannot follow its oscillation",
        f"lower the timestep to ≤ {STABILITY_SAFETY * limit / omega:.3g} s, add damping (kv, "
        "joint damping; implicitfast integrates it implicitly) or armature, or lower the gain",
    )


def mass_rule(model: mujoco.MjModel) -> list[Finding]:
    """MASS_IMPLAUSIBLE: bodies (and the whole model) denser than any metal or lighter than air."""
    volume = _body_volumes(model)
    out = []
    for b in range(1, model.nbody):
        m, v = float(model.body_mass[b]), float(volume[b])
        if m <= 0 or v < MIN_VOLUME:
            continue
        out += _density(f"body '{body_name(model, b)}'", m, v)
    total_m = float(model.body_mass[1:].sum())
    total_v = float(volume[1:].sum())
    if not out and total_m > 0 and total_v >= MIN_VOLUME:
        out += _density("model (all bodies)", total_m, total_v)
    return out


def _density(label: str, mass: float, volume: float) -> list[Finding]:
    rho = mass / volume
    if DENSITY_MIN <= rho <= DENSITY_MAX:
        return []
    heavy = rho > DENSITY_MAX
    return [
        Finding(
            "MASS_IMPLAUSIBLE",
            "warning",
            label,
            f"mass {mass:.4g} kg in {volume * 1e6:.3g} cm³ of geometry: {rho:.3g} kg/m³, "
            + (
                f"denser than any material (> {DENSITY_MAX:g}; grams given as kilograms?)"
                if heavy
                else f"lighter than foam (< {DENSITY_MIN:g}; kilograms given as grams?)"
            ),
            "check the mass units (MuJoCo uses kg, m) and the geom sizes (m, not mm)",
        )
    ]


def _body_volumes(model: mujoco.MjModel) -> np.ndarray:
    """Sum of each body's geoms' bounding-box volumes [m³], (nbody,); planes/hfields excluded."""
    t = model.geom_type
    flat = (t == int(mujoco.mjtGeom.mjGEOM_PLANE)) | (t == int(mujoco.mjtGeom.mjGEOM_HFIELD))
    half = model.geom_aabb[:, 3:]  # (ngeom, 3) half-extents in the geom frame [m]
    vol = np.where(flat, 0.0, 8.0 * np.prod(half, axis=1))
    out = np.zeros(model.nbody)
    np.add.at(out, model.geom_bodyid, vol)
    return out
