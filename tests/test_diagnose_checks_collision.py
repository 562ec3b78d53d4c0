"""Collision-filter rules: the per-bit counting agrees with a brute-force pairwise reference
on seeded random models, and stays linear in memory on a 8 000-geom scene."""

from __future__ import annotations

import tracemalloc

import mujoco
import numpy as np
import pytest

from mjscope.benchmarks.bench_diagnose_scale import scale_model_xml
from mjscope.diagnose.checks import collidable, parent_child_blocked, static_checks

FLAT = (int(mujoco.mjtGeom.mjGEOM_PLANE), int(mujoco.mjtGeom.mjGEOM_HFIELD))


def reference(m: mujoco.MjModel) -> tuple[np.ndarray, set[tuple[int, int]]]:
    """Every geom pair through MuJoCo's filters one by one (``engine_collision_driver.c``)."""
    n = m.ngeom
    weld = m.body_weldid
    pweld = weld[m.body_parentid]
    static = m.body_dofnum[weld] == 0
    fp = not m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_FILTERPARENT
    excluded = {(int(s) >> 16, int(s) & 0xFFFF) for s in m.exclude_signature}
    pairs = {frozenset((int(a), int(b))) for a, b in zip(m.pair_geom1, m.pair_geom2, strict=True)}
    can = np.zeros(n, bool)
    blocked: set[tuple[int, int]] = set()
    for g in range(n):
        for h in range(n):
            if g == h:
                continue
            if frozenset((g, h)) in pairs:
                can[g] = True
                continue
            ct1, ca1 = int(m.geom_contype[g]), int(m.geom_conaffinity[g])
            ct2, ca2 = int(m.geom_contype[h]), int(m.geom_conaffinity[h])
            if not (ct1 & ca2 or ct2 & ca1):
                continue
            if m.geom_type[g] in FLAT and m.geom_type[h] in FLAT:
                continue  # no collision function (never reached: planes are static-only)
            b1, b2 = int(m.geom_bodyid[g]), int(m.geom_bodyid[h])
            w1, w2 = int(weld[b1]), int(weld[b2])
            if w1 == w2 or (static[b1] and static[b2]):
                continue
            if (min(b1, b2), max(b1, b2)) in excluded:
                continue
            family = w1 != 0 and w2 != 0 and (pweld[w1] == w2 or pweld[w2] == w1)
            if fp and family:
                blocked.add((min(b1, b2), max(b1, b2)))
                continue
            can[g] = True
    pair_bodies = {
        tuple(sorted((int(m.geom_bodyid[a]), int(m.geom_bodyid[b]))))
        for a, b in zip(m.pair_geom1, m.pair_geom2, strict=True)
    }
    return can, blocked - pair_bodies


def random_model(seed: int) -> mujoco.MjModel:
    """A random tree: hinges, free and welded bodies, mocap, planes, bits, excludes, pairs."""
    rng = np.random.default_rng(seed)
    spec = mujoco.MjSpec()
    if rng.random() < 0.3:
        spec.option.disableflags |= mujoco.mjtDisableBit.mjDSBL_FILTERPARENT
    bodies = [spec.worldbody]
    geoms: list[str] = []
    for _ in range(int(rng.integers(0, 3))):  # world geoms, some flat
        geoms.append(_geom(spec.worldbody, rng, len(geoms), plane=rng.random() < 0.5))
    for k in range(int(rng.integers(3, 12))):
        parent = bodies[int(rng.integers(0, len(bodies)))]
        top = parent is spec.worldbody
        mocap = top and rng.random() < 0.15
        b = parent.add_body(name=f"b{k}", pos=rng.uniform(-0.3, 0.3, 3), mocap=mocap)
        kind = rng.random()
        if not mocap and top and kind < 0.3:
            b.add_freejoint()
        elif not mocap and kind < 0.8:
            b.add_joint(type=mujoco.mjtJoint.mjJNT_HINGE, axis=[0, 1, 0])
        for _ in range(int(rng.integers(0, 4))):
            geoms.append(_geom(b, rng, len(geoms), plane=False))
        b.mass, b.inertia, b.explicitinertial = 0.1, [1e-3, 1e-3, 1e-3], True
        bodies.append(b)
    pairs: set[frozenset[int]] = set()
    for _ in range(int(rng.integers(0, 4))):
        a, c = (int(x) for x in rng.choice(len(bodies) - 1, 2, replace=False) + 1)
        if frozenset((a, c)) not in pairs:
            pairs.add(frozenset((a, c)))
            spec.add_exclude(bodyname1=bodies[a].name, bodyname2=bodies[c].name)
    if len(geoms) > 1:
        for _ in range(int(rng.integers(0, 3))):
            a, c = (int(x) for x in rng.choice(len(geoms), 2, replace=False))
            spec.add_pair(geomname1=geoms[a], geomname2=geoms[c])
    return spec.compile()


def _geom(body: mujoco.MjsBody, rng: np.random.Generator, k: int, plane: bool) -> str:
    g = body.add_geom(name=f"g{k}")
    g.type = mujoco.mjtGeom.mjGEOM_PLANE if plane else mujoco.mjtGeom.mjGEOM_SPHERE
    g.size = [1, 1, 0.1] if plane else [0.05, 0, 0]
    g.contype, g.conaffinity = (int(x) for x in rng.choice([0, 1, 2, 3, 4], 2))
    return g.name


@pytest.mark.parametrize("seed", range(60))
def test_counting_matches_the_pairwise_reference(seed):
    m = random_model(seed)
    can, blocked = reference(m)
    visual = (m.geom_contype == 0) & (m.geom_conaffinity == 0)
    got = collidable(m)
    assert np.array_equal(got & ~visual, can & ~visual), (seed, np.flatnonzero(got != can))
    assert set(parent_child_blocked(m)) == blocked, seed


def test_the_random_models_exercise_every_filter():
    """The cross-check above is only worth something if its models trip each filter."""
    seen = {"excludes": 0, "pairs": 0, "mocap": 0, "no filterparent": 0, "blocked": 0, "lonely": 0}
    for seed in range(60):
        m = random_model(seed)
        can, blocked = reference(m)
        seen["excludes"] += m.nexclude > 0
        seen["pairs"] += m.npair > 0
        seen["mocap"] += m.nmocap > 0
        seen["no filterparent"] += bool(
            m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_FILTERPARENT
        )
        seen["blocked"] += bool(blocked)
        visual = (m.geom_contype == 0) & (m.geom_conaffinity == 0)
        seen["lonely"] += bool((~can & ~visual).any())
    assert min(seen.values()) >= 3, seen


def test_collision_rules_stay_linear_on_a_large_scene():
    """8 000 geoms: the old dense (ngeom, ngeom) tables peaked near 1 GB; per-bit counts need
    a few (ngeom, 32) tables, so the peak stays far below one dense int64 table (512 MB)."""
    m = mujoco.MjModel.from_xml_string(scale_model_xml(8000))
    assert m.ngeom == 8000
    tracemalloc.start()
    found = static_checks(m)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 40 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    assert {f.code for f in found} == {"VISUAL_GEOMS", "PARENT_CHILD_EXCLUDED"}
    blocked = next(f for f in found if f.code == "PARENT_CHILD_EXCLUDED")
    arms = 8000 // 5 // 13  # scale_model_xml: 4-link arms (13 geoms each), a fifth of the geoms
    # per arm links 0/1, 1/2, 2/3; link 0 and its static base collide (the world is no parent)
    assert blocked.element == f"{3 * arms} body pairs"
