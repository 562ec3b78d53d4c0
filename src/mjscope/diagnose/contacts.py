"""Contacts of one state, by geom name: what the contact checks read.

The per-step contact recording is :class:`mjscope.diagnose.probes.contacts.ContactProbe`; this
module reads the contacts of a single ``MjData`` (the initial or the final state), vectorised:
:func:`contact_table` costs a few NumPy calls whatever the contact count, and names are looked
up only for the contacts a check reports.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import mujoco
import numpy as np

from mjscope.diagnose.names import geom_name

_G = mujoco.mjtGeom
NUMERICAL_ZERO = 1e-6  # overlaps below this [m] are round-off, never a finding


def geom_size(model: mujoco.MjModel, gid: int) -> float:
    """Characteristic size of a geom [m]: radius or smallest half-extent; inf for planes."""
    return float(geom_sizes(model)[gid]) if gid >= 0 else float("inf")


def geom_sizes(model: mujoco.MjModel) -> np.ndarray:
    """Characteristic size of every geom [m], (ngeom,).

    Sphere/capsule radius, cylinder min(radius, half-length), else the smallest positive
    half-extent (``rbound`` when none); inf for planes and height fields.
    """
    t, size = model.geom_type, model.geom_size
    pos = np.where(size > 0, size, np.inf).min(axis=1)
    out = np.where(np.isfinite(pos), pos, model.geom_rbound)
    round_ = (t == int(_G.mjGEOM_SPHERE)) | (t == int(_G.mjGEOM_CAPSULE))
    out = np.where(round_, size[:, 0], out)
    out = np.where(t == int(_G.mjGEOM_CYLINDER), size[:, :2].min(axis=1), out)
    flat = (t == int(_G.mjGEOM_PLANE)) | (t == int(_G.mjGEOM_HFIELD))
    return np.where(flat, np.inf, out)


class ContactTable(NamedTuple):
    """The active contacts of one state, one entry per contact.

    Attributes:
        geom1, geom2: Geom ids (-1 for a flex), (ncon,).
        penetration: ``-dist`` [m], positive when overlapping, (ncon,).
        condim: Contact dimension, (ncon,).
        size: The smaller geom's characteristic size [m] (inf: planes/flex), (ncon,).
        width: The contact's (mixed) solimp width [m]: the depth over which its impedance
            rises to ``solimp[1]``, (ncon,).
        exclude: MuJoCo's exclusion flag (0: an active constraint), (ncon,).
        margin: The contact's ``includemargin`` [m]: it is active from ``dist < margin``,
            (ncon,).
    """

    geom1: np.ndarray
    geom2: np.ndarray
    penetration: np.ndarray
    condim: np.ndarray
    size: np.ndarray
    width: np.ndarray
    exclude: np.ndarray
    margin: np.ndarray


def contact_table(model: mujoco.MjModel, data: mujoco.MjData) -> ContactTable:
    """The contacts of ``data`` as arrays (copies)."""
    n = int(data.ncon)
    c = data.contact
    geom = np.array(c.geom[:n], dtype=np.int64).reshape(n, 2)
    sizes = np.append(geom_sizes(model), np.inf)  # index -1 (a flex): inf
    return ContactTable(
        geom1=geom[:, 0],
        geom2=geom[:, 1],
        penetration=-np.array(c.dist[:n], dtype=float),
        condim=np.array(c.dim[:n], dtype=np.int64),
        size=np.minimum(sizes[geom[:, 0]], sizes[geom[:, 1]]),
        width=np.array(c.solimp[:n], dtype=float).reshape(n, mujoco.mjNIMP)[:, 2],
        exclude=np.array(c.exclude[:n], dtype=np.int64),
        margin=np.array(c.includemargin[:n], dtype=float),
    )


def current_contacts(model: mujoco.MjModel, data: mujoco.MjData) -> list[dict[str, Any]]:
    """The active contacts of ``data`` with geom names, penetration [m] and condim.

    Returns:
        One dict per contact: ``geom1``, ``geom2`` (names), ``geom_ids`` (ids, -1 for a flex),
        ``penetration`` [m] (positive when overlapping), ``condim``, ``size`` (the smaller
        geom's characteristic size [m]).
    """
    t = contact_table(model, data)
    return [contact_dict(model, t, k) for k in range(len(t.geom1))]


def contact_dict(model: mujoco.MjModel, t: ContactTable, k: int) -> dict[str, Any]:
    """Contact ``k`` of ``t`` as :func:`current_contacts` gives it (names looked up here)."""
    g1, g2 = int(t.geom1[k]), int(t.geom2[k])
    return {
        "geom1": geom_name(model, g1),
        "geom2": geom_name(model, g2),
        "geom_ids": (g1, g2),
        "penetration": float(t.penetration[k]),
        "condim": int(t.condim[k]),
        "size": float(t.size[k]),
        "width": float(t.width[k]),
    }


def solimp_width(model: mujoco.MjModel, g1: int, g2: int) -> float:
    """The solimp width [m] MuJoCo gives contacts of geoms ``g1``, ``g2`` (-1: a flex).

    An explicit ``<pair>``'s own solimp; else the higher ``priority`` geom's; else the
    ``solmix``-weighted mean (``mj_contactParam``, ``engine_collision_driver.c``).
    """
    for p in range(model.npair):
        if {int(model.pair_geom1[p]), int(model.pair_geom2[p])} == {g1, g2}:
            return float(model.pair_solimp[p, 2])
    if g1 < 0 or g2 < 0:
        return float(model.geom_solimp[max(g1, g2), 2]) if max(g1, g2) >= 0 else 0.0
    p1, p2 = int(model.geom_priority[g1]), int(model.geom_priority[g2])
    w1, w2 = float(model.geom_solimp[g1, 2]), float(model.geom_solimp[g2, 2])
    if p1 != p2:
        return w1 if p1 > p2 else w2
    m1, m2 = float(model.geom_solmix[g1]), float(model.geom_solmix[g2])
    tiny = mujoco.mjMINVAL
    if m1 >= tiny and m2 >= tiny:
        mix = m1 / (m1 + m2)
    elif m1 < tiny and m2 < tiny:
        mix = 0.5
    else:
        mix = 0.0 if m1 < tiny else 1.0
    return mix * w1 + (1 - mix) * w2


def deepest_per_pair(t: ContactTable, rows: np.ndarray) -> list[int]:
    """The deepest contact of each geom pair among ``rows`` (indices into ``t``)."""
    worst: dict[tuple[int, int], int] = {}
    for k in rows.tolist():
        key = (int(t.geom1[k]), int(t.geom2[k]))
        if key not in worst or t.penetration[k] > t.penetration[worst[key]]:
            worst[key] = k
    return list(worst.values())
