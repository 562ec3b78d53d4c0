"""Model rules: timestep, constraint softness (solref) and body inertia.

Solref semantics follow MuJoCo's documentation (Modeling §Solver parameters; XML reference,
``option/flag/refsafe``): with ``refsafe`` on, a positive ``timeconst`` below 2×timestep is
replaced by 2×timestep; a negative first entry is the direct (stiffness, damping) format,
which ``refsafe`` does not protect.
"""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.names import geom_name, joint_name, name_of

_OBJ = mujoco.mjtObj
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
