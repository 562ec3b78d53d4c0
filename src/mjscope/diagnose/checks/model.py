"""Model rules: timestep, constraint softness (solref) and body inertia.

Solref semantics follow MuJoCo's documentation (Modeling §Solver parameters; XML reference,
``option/flag/refsafe``): with ``refsafe`` on, a positive ``timeconst`` below 2×timestep is
replaced by 2×timestep; a negative first entry is the direct (stiffness, damping) format,
which ``refsafe`` does not protect.
"""

from __future__ import annotations

from collections.abc import Callable

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.checks.collision import collidable
from mjscope.diagnose.names import geom_name, joint_name, name_of

_OBJ = mujoco.mjtObj
Label = Callable[[int], str]
TINY_MASS = 1e-5  # [kg]
TINY_INERTIA = 1e-10  # [kg·m²]


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


def _solref_sources(model: mujoco.MjModel) -> list[tuple[np.ndarray, np.ndarray, Label]]:
    """(ids, solrefs (n, 2), label of an id) of every constraint whose solref MuJoCo uses.

    Geoms only when they can collide (a visual geom's solref is never used), joint and tendon
    limits only when limited, every equality and explicit pair.
    """
    geoms = np.flatnonzero(collidable(model))
    joints = np.flatnonzero(model.jnt_limited)
    tendons = np.flatnonzero(model.tendon_limited) if model.ntendon else np.zeros(0, np.int64)
    return [
        (geoms, model.geom_solref[geoms], lambda g: f"geom '{geom_name(model, g)}'"),
        (joints, model.jnt_solref[joints], lambda j: f"joint '{joint_name(model, j)}' limit"),
        (
            tendons,
            model.tendon_solref_lim[tendons] if tendons.size else np.zeros((0, 2)),
            lambda t: f"tendon '{name_of(model, _OBJ.mjOBJ_TENDON, t, 'tendon')}' limit",
        ),
        (
            np.arange(model.neq),
            model.eq_solref,
            lambda e: f"equality '{name_of(model, _OBJ.mjOBJ_EQUALITY, e, 'equality')}'",
        ),
        (
            np.arange(model.npair),
            model.pair_solref,
            lambda p: f"pair '{name_of(model, _OBJ.mjOBJ_PAIR, p, 'pair')}'",
        ),
    ]


def solref_rules(model: mujoco.MjModel) -> list[Finding]:
    """SOLREF_CLAMPED (timeconst < 2·timestep) and SOLREF_DIRECT (too stiff, unprotected).

    A direct-format solref ``(-k, -b)`` is reported only when it is stiffer than what refsafe
    lets the (timeconst, dampratio) format be at this timestep: natural frequency √k above
    1/(2·timestep) or damping b above 1/timestep (timeconst 2·timestep, dampratio 1; MuJoCo
    turns both formats into the same stiffness and damping, ``engine_core_constraint.c``).
    """
    h = float(model.opt.timestep)
    refsafe = not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_REFSAFE
    out = []
    for ids, refs, label in _solref_sources(model):
        tc = refs[:, 0]
        clamped = (tc > 0) & (tc < 2 * h)
        with np.errstate(invalid="ignore"):
            direct = (tc < 0) & ((np.sqrt(-tc) * 2 * h > 1) | (-refs[:, 1] * h > 1))
        for k in np.flatnonzero(clamped | direct):
            name, ref = label(int(ids[k])), refs[k]
            out.append(
                _clamped(name, float(ref[0]), h, refsafe) if clamped[k] else _direct(name, ref, h)
            )
    return out


def _clamped(label: str, tc: float, h: float, refsafe: bool) -> Finding:
    what = (
        f"MuJoCo silently uses {2 * h:g} s (refsafe)"
        if refsafe
        else "refsafe is disabled: the constraint is stiffer than the integrator resolves"
    )
    return Finding(
        "SOLREF_CLAMPED",
        "warning",
        label,
        f"solref timeconst {tc:g} s < 2×timestep ({2 * h:g} s); {what}",
        f"set solref[0] ≥ {2 * h:g} or timestep ≤ {tc / 2:g}",
    )


def _direct(label: str, ref: np.ndarray, h: float) -> Finding:
    k, b = -float(ref[0]), -float(ref[1])
    return Finding(
        "SOLREF_DIRECT",
        "warning",
        label,
        f"direct-format solref ({-k:g}, {-b:g}): √k·2h={np.sqrt(k) * 2 * h:.3g}, "
        f"b·h={b * h:.3g} (> 1: stiffer than refsafe allows the timeconst format); the direct "
        "format is not protected by refsafe and can blow up at this timestep",
        f"use the (timeconst, dampratio) format with timeconst ≥ {2 * h:g}, or k ≤ "
        f"{1 / (2 * h) ** 2:.3g} and b ≤ {1 / h:.3g}",
    )


def inertia_rules(model: mujoco.MjModel) -> list[Finding]:
    """INERTIA_NONPHYSICAL (error) and INERTIA_TINY (warning) for moving bodies.

    INERTIA_TINY is about the mass matrix, so it looks at what the solver sees: a body with its
    own joints whose mass or smallest principal inertia is tiny *and* one of whose DOFs has a
    tiny effective inertia at ``qpos0`` (``dof_M0``: the subtree it moves plus armature). A
    tiny body welded to its parent (no joint of its own) is lumped into the parent's inertia,
    and a tiny link between heavier ones (a URDF universal joint) or one with armature
    conditions the mass matrix well: neither is reported.
    """
    moving = np.flatnonzero((model.body_weldid != 0) | (model.body_dofnum[model.body_weldid] != 0))
    moving = moving[moving > 0]
    mass = model.body_mass[moving]
    inertia = np.sort(model.body_inertia[moving], axis=1)
    bad = (inertia[:, 0] + inertia[:, 1] < inertia[:, 2] * (1 - 1e-6)) | (mass < 0)
    bad |= inertia[:, 0] < 0
    tiny = ((0 < mass) & (mass < TINY_MASS)) | (
        (0 < inertia[:, 0]) & (inertia[:, 0] < TINY_INERTIA)
    )
    tiny &= ~bad & (model.body_dofnum[moving] > 0)
    out = []
    for k in np.flatnonzero(bad | tiny):
        b = int(moving[k])
        label = f"body '{name_of(model, _OBJ.mjOBJ_BODY, b, 'body')}'"
        if bad[k]:
            out.append(
                Finding(
                    "INERTIA_NONPHYSICAL",
                    "error",
                    label,
                    f"principal inertia {inertia[k].tolist()} violates the triangle inequality",
                    "recompute the inertia from the geometry (or set inertiafromgeom)",
                )
            )
            continue
        dof = _tiny_dof(model, b)
        if dof is None:
            continue
        out.append(
            Finding(
                "INERTIA_TINY",
                "warning",
                label,
                f"mass {mass[k]:.3g} kg, smallest principal inertia {inertia[k, 0]:.3g} kg·m²; "
                f"its joint '{joint_name(model, int(model.dof_jntid[dof]))}' has an effective "
                f"inertia of {model.dof_M0[dof]:.3g} {_dof_unit(model, dof)} at DOF {dof} "
                "(dof_M0; tiny values make the mass matrix ill-conditioned)",
                "use realistic mass/inertia, or add armature to its joints",
            )
        )
    return out


def _dof_unit(model: mujoco.MjModel, dof: int) -> str:
    return "kg" if _translational(model, dof) else "kg·m²"


def _translational(model: mujoco.MjModel, dof: int) -> bool:
    j = int(model.dof_jntid[dof])
    t = int(model.jnt_type[j])
    if t == mujoco.mjtJoint.mjJNT_SLIDE:
        return True
    return t == mujoco.mjtJoint.mjJNT_FREE and dof - int(model.jnt_dofadr[j]) < 3


def _tiny_dof(model: mujoco.MjModel, body: int) -> int | None:
    """The first DOF of ``body`` with a tiny effective inertia (``dof_M0``), or ``None``."""
    start = int(model.body_dofadr[body])
    for dof in range(start, start + int(model.body_dofnum[body])):
        limit = TINY_MASS if _translational(model, dof) else TINY_INERTIA
        if model.dof_M0[dof] < limit:
            return dof
    return None
