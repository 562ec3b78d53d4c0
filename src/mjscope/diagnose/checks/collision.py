"""Collision-filter lint rules: geoms that collide with nothing, parent/child exclusions.

Follows MuJoCo's selection filters (``doc/computation`` §Collision; ``mj_collision`` and
``mj_broadphase`` in ``engine_collision_driver.c``): contype/conaffinity bits, no same-body or
parent/child pairs (unless the parent is the world, or ``filterparent`` is disabled), welded
bodies count as one, static-static pairs are skipped, ``<exclude>`` removes body pairs and
explicit ``<pair>``s always count. Geoms matching a flex's bits count as collidable. (The type
pairs without a collision function, plane/hfield against plane/hfield, are all static-static:
MuJoCo allows planes only in static bodies.)

Nothing here is quadratic in the geom count. MuJoCo's bit test is ``(ct1 & ca2) || (ct2 & ca1)``,
so whether a geom has *any* partner in a set of geoms depends only on how many geoms of the set
carry each of the 32 contype and conaffinity bits. Those per-bit counts are kept per weld
group and per body, and the partners a geom may not have (its own weld group, its
parent/child groups, all static groups when it is static, its excluded bodies) are subtracted
from the model's totals: O(ngeom × 32) time and memory, plus the ``<exclude>``d bodies' geoms.
"""

from __future__ import annotations

from typing import NamedTuple

import mujoco
import numpy as np

from mjscope.diagnose.checks.base import Finding
from mjscope.diagnose.names import geom_name, name_of

_OBJ = mujoco.mjtObj
NBITS = 32


class Filters(NamedTuple):
    """MuJoCo's collision filters of one model, by geom, weld group and body.

    Attributes:
        ct, ca: Contype and conaffinity bits of each geom, (ngeom, 32) int8 (0/1).
        weld: Weld group (its root body id) of each geom, (ngeom,).
        pweld: Weld group of each weld root's parent body, (nbody,) indexed by body id.
        static: Whether each weld group has no DOF (world, mocap), (nbody,).
        filterparent: MuJoCo's parent/child filter is on.
    """

    ct: np.ndarray
    ca: np.ndarray
    weld: np.ndarray
    pweld: np.ndarray
    static: np.ndarray
    filterparent: bool


def filters(model: mujoco.MjModel) -> Filters:
    """The collision filters of ``model``."""
    shifts = np.arange(NBITS, dtype=np.int64)

    def bits(x: np.ndarray) -> np.ndarray:
        return ((x.astype(np.int64)[:, None] & 0xFFFFFFFF) >> shifts & 1).astype(np.int8)

    weld_of_body = model.body_weldid
    return Filters(
        ct=bits(model.geom_contype),
        ca=bits(model.geom_conaffinity),
        weld=weld_of_body[model.geom_bodyid].astype(np.int64),
        pweld=weld_of_body[model.body_parentid].astype(np.int64),
        static=model.body_dofnum[weld_of_body] == 0,
        filterparent=not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_FILTERPARENT,
    )


def collidable(model: mujoco.MjModel, f: Filters | None = None) -> np.ndarray:
    """Which geoms can collide with at least one other geom (or flex), (ngeom,) bool.

    Explicit ``<pair>``s count; everything else passes MuJoCo's filters (module docstring).
    """
    f = f if f is not None else filters(model)
    if model.ngeom == 0:
        return np.zeros(0, bool)
    # (ct & ca') != 0 for some partner ⇔ some bit of ct is carried by a partner's conaffinity
    ct_left = _allowed_counts(model, f, f.ct, model.nbody)
    ca_left = _allowed_counts(model, f, f.ca, model.nbody)
    hit = (f.ct.astype(bool) & (ca_left > 0)) | (f.ca.astype(bool) & (ct_left > 0))
    out: np.ndarray = np.any(hit, axis=1)
    out[model.pair_geom1] = True
    out[model.pair_geom2] = True
    if model.nflex:
        fct = np.bitwise_or.reduce(model.flex_contype.astype(np.int64))
        fca = np.bitwise_or.reduce(model.flex_conaffinity.astype(np.int64))
        out |= ((model.geom_contype & fca) | (model.geom_conaffinity & fct)) != 0
    return out


def _allowed_counts(model: mujoco.MjModel, f: Filters, x: np.ndarray, nb: int) -> np.ndarray:
    """Per geom: how many geoms it may pair with carry each bit of ``x``, (ngeom, 32).

    ``x`` (ngeom, 32) is a bit table of all geoms.
    """
    w = f.weld
    per_weld = _sum_rows_by(w, x, nb)
    left = per_weld.sum(0)[None, :] - per_weld[w]  # everyone but its own weld group
    if f.filterparent:
        roots = np.flatnonzero((model.body_weldid == np.arange(nb)) & (np.arange(nb) != 0))
        parent = f.pweld[roots]
        roots, parent = roots[parent != 0], parent[parent != 0]
        children = _sum_rows_by(parent, per_weld[roots], nb)
        not_world = w != 0  # the parent filter never applies to the world
        pw = f.pweld[w]
        left -= np.where((not_world & (pw != 0))[:, None], per_weld[pw], 0)
        left -= np.where(not_world[:, None], children[w], 0)
    static_total = per_weld[f.static & (model.body_weldid == np.arange(nb))].sum(0)
    stat = f.static[w]
    left -= np.where(stat[:, None], static_total[None, :] - per_weld[w], 0)
    for g, other in _excluded_partners(model, f):
        per_body = np.zeros(NBITS, np.int64) if other.size == 0 else x[other].sum(0)
        left[g] -= per_body
    return left


def _sum_rows_by(index: np.ndarray, x: np.ndarray, n: int) -> np.ndarray:
    """``out[k] = x[index == k].sum(0)``, (n, x.shape[1]) int64 (``np.add.at``, but fast)."""
    out = np.empty((n, x.shape[1]), np.int64)
    for j in range(x.shape[1]):
        out[:, j] = np.bincount(index, weights=x[:, j], minlength=n)
    return out


def _excluded_partners(model: mujoco.MjModel, f: Filters) -> list[tuple[np.ndarray, np.ndarray]]:
    """(geoms of body A, geoms of body B) per ``<exclude>``d pair and direction.

    Only pairs no other filter removes already (same or parent/child weld group, both static).
    """
    if model.nexclude == 0:
        return []
    adr, num = model.body_geomadr, model.body_geomnum
    out = []
    for sig in np.unique(model.exclude_signature.astype(np.int64)):
        b1, b2 = int(sig >> 16), int(sig & 0xFFFF)
        if b1 == b2 or _welds_filtered(model, f, b1, b2):
            continue
        g1 = np.arange(adr[b1], adr[b1] + num[b1]) if num[b1] else np.zeros(0, np.int64)
        g2 = np.arange(adr[b2], adr[b2] + num[b2]) if num[b2] else np.zeros(0, np.int64)
        out += [(g1, g2), (g2, g1)]
    return out


def _welds_filtered(model: mujoco.MjModel, f: Filters, b1: int, b2: int) -> bool:
    w1, w2 = int(model.body_weldid[b1]), int(model.body_weldid[b2])
    if w1 == w2 or (f.static[w1] and f.static[w2]):
        return True
    family = w1 != 0 and w2 != 0 and (f.pweld[w1] == w2 or f.pweld[w2] == w1)
    return bool(f.filterparent and family)


def parent_child_blocked(model: mujoco.MjModel, f: Filters | None = None) -> list[tuple[int, int]]:
    """Body pairs whose collidable geoms only MuJoCo's parent/child filter keeps apart.

    Bodies in a weld group and its parent's (both not the world), with a bit-compatible geom
    pair, not ``<exclude>``d and without an explicit ``<pair>``, sorted by body id. Empty
    when ``filterparent`` is disabled (those pairs then do collide).
    """
    f = f if f is not None else filters(model)
    if not f.filterparent or model.ngeom == 0:
        return []
    nb = model.nbody
    body = model.geom_bodyid

    def body_bits(x: np.ndarray) -> np.ndarray:  # OR of the geoms' bits per body
        out = np.zeros(nb, np.int64)
        np.bitwise_or.at(out, body, x.astype(np.int64) & 0xFFFFFFFF)
        return out

    ct, ca = body_bits(model.geom_contype), body_bits(model.geom_conaffinity)
    b1, b2 = _family_body_pairs(model, f, (ct | ca) != 0)
    # A compatible geom pair exists ⇔ the bodies' OR-ed bits pass MuJoCo's test (it
    # distributes over OR: MuJoCo's own body-level prefilter, ``canCollide2``).
    ok = ((ct[b1] & ca[b2]) | (ct[b2] & ca[b1])) != 0
    lo, hi = np.minimum(b1, b2)[ok], np.maximum(b1, b2)[ok]
    sig = (lo << 16) | hi
    skip = np.concatenate(
        [
            model.exclude_signature.astype(np.int64),
            _pair_body_signatures(model),
        ]
    )
    keep = ~np.isin(sig, skip)
    if not keep.any():
        return []
    pairs = np.unique(np.stack([lo[keep], hi[keep]], 1), axis=0)  # sorted by body ids
    return [(int(a), int(b)) for a, b in pairs]


def _family_body_pairs(
    model: mujoco.MjModel, f: Filters, live: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(parent-side body, child-side body) pairs of bodies with collidable geoms (``live``).

    The child side is in a weld group, the parent side in that group's parent weld group,
    neither the world.
    """
    nb = model.nbody
    weld = model.body_weldid.astype(np.int64)
    bodies = np.flatnonzero(live & (weld != 0))
    child_side = bodies[f.pweld[weld[bodies]] != 0]
    if child_side.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    by_weld = bodies[np.argsort(weld[bodies], kind="stable")]
    start = np.searchsorted(weld[by_weld], np.arange(nb), "left")
    stop = np.searchsorted(weld[by_weld], np.arange(nb), "right")
    pw = f.pweld[weld[child_side]]
    count = stop[pw] - start[pw]
    b2 = np.repeat(child_side, count)
    first = np.repeat(start[pw] - np.cumsum(count) + count, count)
    b1 = by_weld[first + np.arange(count.sum())]
    return b1, b2


def _pair_body_signatures(model: mujoco.MjModel) -> np.ndarray:
    if model.npair == 0:
        return np.zeros(0, np.int64)
    a = model.geom_bodyid[model.pair_geom1].astype(np.int64)
    b = model.geom_bodyid[model.pair_geom2].astype(np.int64)
    return (np.minimum(a, b) << 16) | np.maximum(a, b)


def collision_rules(model: mujoco.MjModel) -> list[Finding]:
    """GEOM_NO_COLLISION, VISUAL_GEOMS, PARENT_CHILD_EXCLUDED."""
    f = filters(model)
    visual = (model.geom_contype == 0) & (model.geom_conaffinity == 0)
    out = []
    for g in np.flatnonzero(~visual & ~collidable(model, f)):
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
    pairs = parent_child_blocked(model, f)
    if pairs:
        labels = [
            "/".join(name_of(model, _OBJ.mjOBJ_BODY, x, "body") for x in p) for p in pairs[:6]
        ]
        shown = ", ".join(labels) + (f" and {len(pairs) - 6} more" if len(pairs) > 6 else "")
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
