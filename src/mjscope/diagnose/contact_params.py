"""Contact parameters in physical units: solref/solimp ↔ stiffness [N/m] and damping [N·s/m].

MuJoCo's contact is a soft constraint on each normal row (docs, §Solver parameters):
``a₁ + d·(b·v + k·r) = (1 − d)·a₀`` with ``r`` the penetration past the margin, ``d`` the
impedance from ``solimp`` and, for a positive ``solref = (τ, ζ)``, ``b = 2/(d_max·τ)``,
``k = d/(d_max²·τ²·ζ²)`` (the engine keeps ``k/d`` and ``b`` in ``efc_KBIP``). On a contact
whose effective mass is ``m`` (MuJoCo's own for the row, ``1/efc_diagA``: :func:`row_mass`)
this is the spring-damper

    K = m·d·k/(1 − d) [N/m],   B = m·d·b/(1 − d) [N·s/m]

pushed by the load on a mass ``m/(1 − d)``: it carries a load ``F`` at the depth ``F/K``
(what the drop test in the tests measures), and it moves ``1/√(1 − d)`` slower than a real
spring-damper ``K, B`` on ``m`` would (the impedance's doing).

:func:`pair_params` reports this per colliding pair of a state; :func:`solref_for` inverts it
for ``--set geom:NAME.stiffness=K,damping=B`` (constant impedance ``d = solimp[1]``, so the
spring is linear).
"""

from __future__ import annotations

import math
from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.names import geom_name
from mjscope.exceptions import ConfigError

WIN_SOLMIX = 1e9  # a --set geom's solmix: its solref/solimp win the mixing [1]


def row_mass(model: mujoco.MjModel, data: mujoco.MjData, k: int) -> float:
    """MuJoCo's effective mass [kg] of contact ``k``'s normal: Σ 1/``efc_diagA`` of its rows.

    ``efc_diagA`` is the engine's approximation of the diagonal of ``J M⁻¹ Jᵀ``, from which
    it builds the softness ``R = (1 − d)/d · diagA``, so it is the mass that sets the depth.
    The rows carrying the normal force: the first (condim 1, elliptic cones) or all the
    pyramid's edges.
    """
    c = data.contact[k]
    adr, dim = int(c.efc_address), int(c.dim)
    pyramid = int(model.opt.cone) == int(mujoco.mjtCone.mjCONE_PYRAMIDAL) and dim > 1
    rows = range(adr, adr + 2 * (dim - 1)) if pyramid else range(adr, adr + 1)
    a = data.efc_diagA[list(rows)]
    return float(np.sum(1.0 / a[a > 0])) if np.any(a > 0) else math.inf


def spring_of(m: float, k: float, b: float, d: float) -> tuple[float, float]:
    """(K [N/m], B [N·s/m]) of a contact row with reference k, b, impedance d, mass m [kg]."""
    if not 0 < d < 1 or not math.isfinite(m):
        return math.inf, math.inf
    return m * d * k / (1 - d), m * d * b / (1 - d)


def pair_params(model: mujoco.MjModel, data: mujoco.MjData) -> list[dict[str, Any]]:
    """The contact parameters of each colliding geom pair of ``data``, in physical units.

    Per pair (``data`` after ``mj_forward``/``mj_step``): the mixed solref/solimp, the
    effective mass, K and B, the load it carries, the predicted static penetration (load/K)
    beside the measured one, and the time constant (after refsafe) against the timestep.
    """
    h = float(model.opt.timestep)
    f6 = np.zeros(6)
    pairs: dict[tuple[int, int], dict[str, Any]] = {}
    for k in range(int(data.ncon)):
        c = data.contact[k]
        if c.exclude or c.efc_address < 0:
            continue
        kk, bb, imp, _ = (float(x) for x in data.efc_KBIP[c.efc_address])
        m = row_mass(model, data, k)
        # the engine's aref = −B·v − K·imp·r: the docs' k is K·imp, their b is B
        stiff, damp = spring_of(m, kk * imp, bb, imp)
        mujoco.mj_contactForce(model, data, k, f6)
        key = (int(c.geom[0]), int(c.geom[1]))
        p = pairs.get(key)
        if p is None:
            tc = float(c.solref[0])
            pairs[key] = p = {
                "geom1": geom_name(model, key[0]),
                "geom2": geom_name(model, key[1]),
                "contacts": 0,
                "solref": [float(x) for x in c.solref],
                "solimp": [float(x) for x in c.solimp],
                "impedance": imp,
                "effective_mass_kg": m,
                "stiffness_n_per_m": 0.0,
                "damping_ns_per_m": 0.0,
                "load_n": 0.0,
                "penetration_m": 0.0,
                "timeconst_s": max(tc, 2 * h) if tc > 0 else None,
                "timeconst_over_timestep": (max(tc, 2 * h) / h) if tc > 0 and h > 0 else None,
            }
        p["contacts"] += 1
        p["stiffness_n_per_m"] += stiff  # contact points of a pair act in parallel
        p["damping_ns_per_m"] += damp
        p["load_n"] += float(f6[0])
        p["penetration_m"] = max(p["penetration_m"], -float(c.dist))
    for p in pairs.values():
        stiff = p["stiffness_n_per_m"]
        p["predicted_penetration_m"] = p["load_n"] / stiff if stiff > 0 else None
    return sorted(pairs.values(), key=lambda p: -p["load_n"])


def parse_spring(text: str) -> tuple[float, float | None]:
    """``K`` or ``K,damping=B`` (``--set geom:NAME.stiffness=…``) → (K [N/m], B [N·s/m] | None).

    Raises:
        ConfigError: Not numbers, or K ≤ 0, B < 0.
    """
    head, _, rest = text.partition(",")
    try:
        stiff = float(head)
        damp = None
        if rest:
            name, eq, value = rest.partition("=")
            if name.strip() != "damping" or not eq:
                raise ValueError(rest)
            damp = float(value)
    except ValueError as e:
        raise ConfigError(
            f"--set stiffness {text!r}: expected K or 'K,damping=B' in N/m and N·s/m "
            "(e.g. stiffness=2e4,damping=50)"
        ) from e
    if not 0 < stiff < math.inf or (damp is not None and not 0 <= damp < math.inf):
        raise ConfigError(f"--set stiffness {text!r}: K must be > 0 and damping ≥ 0")
    return stiff, damp


def solref_for(stiff: float, damp: float | None, m: float, dmax: float) -> tuple[float, float]:
    """The positive ``solref = (τ, ζ)`` giving spring ``K`` and damper ``B`` on mass ``m``.

    With constant impedance ``d = dmax`` (module docstring): ``k = K(1 − d)/(m·d)``,
    ``b = B(1 − d)/(m·d)``, ``τ = 2/(d·b)``, ``ζ = 1/(τ·√(d·k))``; without ``B``, ζ = 1
    (MuJoCo's critical damping) and ``τ = 1/√(d·k)``.
    """
    k = stiff * (1 - dmax) / (m * dmax)
    if damp is None or damp == 0:
        return 1.0 / math.sqrt(dmax * k), 1.0
    b = damp * (1 - dmax) / (m * dmax)
    tau = 2.0 / (dmax * b)
    return tau, 1.0 / (tau * math.sqrt(dmax * k))


def geom_mass(model: mujoco.MjModel, g: int) -> float:
    """The row mass [kg] MuJoCo gives a contact of geom ``g`` with a static partner.

    MuJoCo's ``mj_diagApprox``/``mj_makeImpedance`` (``engine_core_constraint.c``): the
    normal row of a frictionless or elliptic contact gets ``diagA = tran``, the body's
    translational ``body_invweight0``; the ``2(condim − 1)`` rows of a pyramidal one share
    ``diagA = 2·μ²(1 + μ²)·tran/impratio``, so the mass carrying the normal force is
    ``Σ 1/diagA = (condim − 1)·impratio/(μ²(1 + μ²)·tran)``. ``μ`` and ``condim`` are the
    geom's own (a partner with a higher friction or condim changes them).
    """
    tran = float(model.body_invweight0[int(model.geom_bodyid[g]), 0])
    if tran <= 0:
        return math.inf
    dim, mu = int(model.geom_condim[g]), float(model.geom_friction[g, 0])
    pyramid = int(model.opt.cone) == int(mujoco.mjtCone.mjCONE_PYRAMIDAL)
    if not pyramid or dim == 1 or mu <= 0:
        return 1.0 / tran
    return (dim - 1) * float(model.opt.impratio) / (mu * mu * (1 + mu * mu) * tran)
