"""Collision-filter lint rules: geoms that collide with nothing, parent/child exclusions.

Follows MuJoCo's selection filters (``doc/computation`` §Collision): contype/conaffinity bits,
no same-body or parent/child pairs (unless the parent is the world, or ``filterparent`` is
disabled), welded bodies count as one, static-static pairs are skipped, ``<exclude>`` removes
body pairs and explicit ``<pair>``s always count.
"""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.names import geom_name, name_of

_OBJ = mujoco.mjtObj


def collidable_matrix(model: mujoco.MjModel) -> tuple[np.ndarray, np.ndarray]:
    """Geom pairs that may collide, and pairs blocked only by the parent/child filter.

    Returns:
        ``(can, parent_blocked)``, both (ngeom, ngeom) bool; explicit ``<pair>``s count as can.
    """
    n = model.ngeom
    ct, ca = model.geom_contype.astype(np.int64), model.geom_conaffinity.astype(np.int64)
    mask = ((ct[:, None] & ca[None, :]) | (ct[None, :] & ca[:, None])) != 0
    body = model.geom_bodyid
    weld = model.body_weldid[body]
    parent_of = model.body_weldid[model.body_parentid]  # weld root of each body's parent
    wi, wj = weld[:, None], weld[None, :]
    family = ((parent_of[wi] == wj) & (wj != 0)) | ((parent_of[wj] == wi) & (wi != 0))
    filterparent = not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_FILTERPARENT
    static = model.body_dofnum[weld] == 0
    base = mask & (wi != wj) & ~(static[:, None] & static[None, :])
    base &= ~_excluded(model, body)
    can = base & ~family if filterparent else base.copy()
    for p in range(model.npair):
        g1, g2 = model.pair_geom1[p], model.pair_geom2[p]
        can[g1, g2] = can[g2, g1] = True
    np.fill_diagonal(can, False)
    return can, (base & family) if filterparent else np.zeros((n, n), bool)


def _excluded(model: mujoco.MjModel, body: np.ndarray) -> np.ndarray:
    n = model.ngeom
    ex = np.zeros((n, n), bool)
    for k in range(model.nexclude):
        sig = int(model.exclude_signature[k])
        b1, b2 = sig >> 16, sig & 0xFFFF
        m1, m2 = body == b1, body == b2
        ex |= np.outer(m1, m2) | np.outer(m2, m1)
    return ex


def collision_rules(model: mujoco.MjModel) -> list[Finding]:
    """GEOM_NO_COLLISION, VISUAL_GEOMS, PARENT_CHILD_EXCLUDED."""
    can, blocked = collidable_matrix(model)
    visual = (model.geom_contype == 0) & (model.geom_conaffinity == 0)
    out = []
    for g in np.flatnonzero(~visual & ~can.any(axis=1)):
        out.append(
            Finding(
                "GEOM_NO_COLLISION",
                "warning",
                f"geom '{geom_name(model, int(g))}'",
                f"contype={model.geom_contype[g]}/conaffinity={model.geom_conaffinity[g]} but no "
                "other geom can collide with it (masks, same/parent body, both static, excludes)",
                "set contype=conaffinity=0 if it is visual, else match another geom's bits",
            )
        )
    if visual.any():
        out.append(
            Finding(
                "VISUAL_GEOMS",
                "info",
                f"{int(visual.sum())} geoms",
                f"{int(visual.sum())} geoms have contype=conaffinity=0 and never collide",
                "nothing to do if they are visual only",
            )
        )
    pairs: list[str] = []
    for g1, g2 in zip(*np.nonzero(np.triu(blocked)), strict=True):
        b = sorted((int(model.geom_bodyid[g1]), int(model.geom_bodyid[g2])))
        label = "/".join(name_of(model, _OBJ.mjOBJ_BODY, x, "body") for x in b)
        if label not in pairs:
            pairs.append(label)
    if pairs:
        shown = ", ".join(pairs[:6]) + (f" and {len(pairs) - 6} more" if len(pairs) > 6 else "")
        out.append(
            Finding(
                "PARENT_CHILD_EXCLUDED",
                "info",
                f"{len(pairs)} body pairs",
                f"collidable geoms on parent/child bodies never collide (filterparent): {shown}",
                "add an explicit <pair> where such contact matters",
            )
        )
    return out
