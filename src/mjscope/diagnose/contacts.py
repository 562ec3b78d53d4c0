"""Contacts of one state, by geom name: what the contact checks read.

The per-step contact recording is :class:`mjscope.diagnose.probes.contacts.ContactProbe`; this
module reads the contacts of a single ``MjData`` (the initial or the final state).
"""

from __future__ import annotations

from typing import Any

import mujoco

from mjscope.diagnose.names import geom_name


def geom_size(model: mujoco.MjModel, gid: int) -> float:
    """Characteristic size of a geom [m]: radius or smallest half-extent; inf for planes."""
    t = int(model.geom_type[gid])
    size = model.geom_size[gid]
    if t in (mujoco.mjtGeom.mjGEOM_PLANE, mujoco.mjtGeom.mjGEOM_HFIELD):
        return float("inf")
    if t in (mujoco.mjtGeom.mjGEOM_SPHERE, mujoco.mjtGeom.mjGEOM_CAPSULE):
        return float(size[0])
    if t == mujoco.mjtGeom.mjGEOM_CYLINDER:
        return float(min(size[0], size[1]))
    positive = size[size > 0]
    return float(positive.min()) if positive.size else float(model.geom_rbound[gid])


def current_contacts(model: mujoco.MjModel, data: mujoco.MjData) -> list[dict[str, Any]]:
    """The active contacts of ``data`` with geom names, penetration [m] and condim.

    Returns:
        One dict per contact: ``geom1``, ``geom2`` (names), ``geom_ids`` (ids, -1 for a flex),
        ``penetration`` [m] (positive when overlapping), ``condim``, ``size`` (the smaller
        geom's characteristic size [m]).
    """
    out = []
    for k in range(data.ncon):
        c = data.contact[k]
        g1, g2 = int(c.geom[0]), int(c.geom[1])
        sizes = [geom_size(model, g) for g in (g1, g2) if g >= 0]
        out.append(
            {
                "geom1": geom_name(model, g1),
                "geom2": geom_name(model, g2),
                "geom_ids": (g1, g2),
                "penetration": float(-c.dist),
                "condim": int(c.dim),
                "size": min(sizes) if sizes else float("inf"),
            }
        )
    return out
