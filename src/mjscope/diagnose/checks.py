"""Static lint rules on a compiled model and its initial state.

Each finding has a stable code, a severity (``error``, ``warning``, ``info``), the offending
element by name and a one-line fix. Rules that need the rollout live in
:mod:`mjscope.diagnose.checks_rollout`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.contacts import current_contacts, geom_name
from mjscope.diagnose.summary import actuator_kind, joint_name, name_of, position_gain

SEVERITIES = ("error", "warning", "info")
_OBJ = mujoco.mjtObj
TINY_MASS = 1e-5  # [kg]
TINY_INERTIA = 1e-10  # [kg·m²]
HIGH_GAIN_OMEGA_H = 0.1  # ω·h above which a position servo counts as high-gain [1]


@dataclass(frozen=True)
class Finding:
    """One check result.

    Attributes:
        code: Stable identifier (``SOLREF_CLAMPED``, ...).
        severity: ``error``, ``warning`` or ``info``.
        element: The offending element, e.g. ``geom 'foot'``.
        message: What is wrong, with the numbers.
        fix: One-line fix.
    """

    code: str
    severity: str
    element: str
    message: str
    fix: str

    def to_dict(self) -> dict[str, Any]:
        """As a JSON-ready dict."""
        return asdict(self)


def static_checks(model: mujoco.MjModel) -> list[Finding]:
    """All rules that need only the model."""
    out: list[Finding] = []
    from mjscope.diagnose.checks_collision import collision_rules

    rules = (timestep_rule, solref_rules, collision_rules, actuator_rules, inertia_rules)
    for rule in (*rules, range_rules):
        out.extend(rule(model))
    return out


def timestep_rule(model: mujoco.MjModel) -> list[Finding]:
    """TIMESTEP_NONPOSITIVE: ``option timestep`` ≤ 0 (time never advances, or runs backwards)."""
    h = float(model.opt.timestep)
    if h > 0:
        return []
    return [
        Finding(
            "TIMESTEP_NONPOSITIVE",
            "error",
            "option timestep",
            f"timestep {h:g} s: the simulation cannot advance",
            "set option timestep > 0 (MuJoCo's default is 0.002 s)",
        )
    ]


def _solref_sources(model: mujoco.MjModel) -> list[tuple[str, np.ndarray]]:
    """(element label, solref) for geoms, joint limits, equalities, tendons, pairs."""
    src = []
    for g in range(model.ngeom):
        src.append((f"geom '{geom_name(model, g)}'", model.geom_solref[g]))
    for j in np.flatnonzero(model.jnt_limited):
        src.append((f"joint '{joint_name(model, int(j))}' limit", model.jnt_solref[j]))
    for e in range(model.neq):
        src.append(
            (f"equality '{name_of(model, _OBJ.mjOBJ_EQUALITY, e, 'equality')}'", model.eq_solref[e])
        )
    for p in range(model.npair):
        src.append((f"pair '{name_of(model, _OBJ.mjOBJ_PAIR, p, 'pair')}'", model.pair_solref[p]))
    return src


def solref_rules(model: mujoco.MjModel) -> list[Finding]:
    """SOLREF_CLAMPED (timeconst < 2·timestep) and SOLREF_DIRECT (unprotected direct format)."""
    h = float(model.opt.timestep)
    refsafe = not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_REFSAFE
    out = []
    for label, ref in _solref_sources(model):
        tc = float(ref[0])
        if tc > 0 and tc < 2 * h:
            what = (
                f"MuJoCo silently uses {2 * h:g} s (refsafe)"
                if refsafe
                else "refsafe is disabled: the constraint is stiffer than the integrator resolves"
            )
            out.append(
                Finding(
                    "SOLREF_CLAMPED",
                    "warning",
                    label,
                    f"solref timeconst {tc:g} s < 2×timestep ({2 * h:g} s); {what}",
                    f"set solref[0] ≥ {2 * h:g} or timestep ≤ {tc / 2:g}",
                )
            )
        elif tc < 0:
            out.append(
                Finding(
                    "SOLREF_DIRECT",
                    "warning",
                    label,
                    f"direct-format solref ({tc:g}, {float(ref[1]):g}): stiffness/damping are not "
                    "protected by refsafe and can blow up at this timestep",
                    "use the (timeconst, dampratio) format with timeconst ≥ 2×timestep",
                )
            )
    return out


def actuator_rules(model: mujoco.MjModel) -> list[Finding]:
    """ACTUATOR_NO_LIMITS and HIGH_GAIN_NO_DAMPING."""
    out = []
    h = float(model.opt.timestep)
    for a in range(model.nu):
        label = f"actuator '{name_of(model, _OBJ.mjOBJ_ACTUATOR, a, 'actuator')}'"
        missing = [
            k
            for k, lim in (
                ("ctrlrange", model.actuator_ctrllimited[a]),
                ("forcerange", model.actuator_forcelimited[a]),
            )
            if not lim
        ]
        if missing:
            out.append(
                Finding(
                    "ACTUATOR_NO_LIMITS",
                    "warning",
                    label,
                    f"no {' and no '.join(missing)}",
                    f"set {'/'.join(missing)} to the real actuator's limits",
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


def inertia_rules(model: mujoco.MjModel) -> list[Finding]:
    """INERTIA_TINY (warning) and INERTIA_NONPHYSICAL (error) for moving bodies."""
    out = []
    for b in range(1, model.nbody):
        if model.body_dofnum[model.body_weldid[b]] == 0 and model.body_weldid[b] == 0:
            continue
        label = f"body '{name_of(model, _OBJ.mjOBJ_BODY, b, 'body')}'"
        m, inertia = float(model.body_mass[b]), np.sort(model.body_inertia[b])
        if inertia[0] + inertia[1] < inertia[2] * (1 - 1e-6) or m < 0 or inertia[0] < 0:
            out.append(
                Finding(
                    "INERTIA_NONPHYSICAL",
                    "error",
                    label,
                    f"principal inertia {inertia.tolist()} violates the triangle inequality",
                    "recompute the inertia from the geometry (or set inertiafromgeom)",
                )
            )
        elif 0 < m < TINY_MASS or 0 < inertia[0] < TINY_INERTIA:
            out.append(
                Finding(
                    "INERTIA_TINY",
                    "warning",
                    label,
                    f"mass {m:.3g} kg, smallest principal inertia {inertia[0]:.3g} kg·m² "
                    "(tiny values make the mass matrix ill-conditioned)",
                    "use realistic mass/inertia, or add armature to its joints",
                )
            )
    return out


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


def initial_state_checks(model: mujoco.MjModel, data: mujoco.MjData) -> list[Finding]:
    """SELF_COLLISION_INIT: contacts between bodies of the same tree at the initial state.

    One finding per geom pair (the deepest of its contacts). ``data`` must hold the initial
    state after ``mj_forward``.
    """
    root = model.body_rootid
    worst: dict[tuple[int, int], dict[str, Any]] = {}
    for c in current_contacts(model, data):
        g1, g2 = c["geom_ids"]
        if min(g1, g2) < 0:
            continue
        b1, b2 = model.geom_bodyid[g1], model.geom_bodyid[g2]
        same_tree = root[b1] == root[b2] and root[b1] != 0
        if (
            same_tree
            and c["penetration"] > worst.get((g1, g2), {"penetration": -1.0})["penetration"]
        ):
            worst[(g1, g2)] = c
    return [
        Finding(
            "SELF_COLLISION_INIT",
            "warning",
            f"geoms '{c['geom1']}' / '{c['geom2']}'",
            f"in contact at the initial pose (penetration {c['penetration'] * 1e3:.3g} mm)",
            "move the initial pose apart, or exclude the body pair (<exclude>)",
        )
        for c in worst.values()
    ]
