"""The probe contract: gathered sources give the same columns as straightforward reads."""

import numpy as np
import pytest

from mjscope.diagnose import Column, Probe, RolloutCfg, default_probes, run_rollout
from mjscope.diagnose.compare import read_csv
from mjscope.diagnose.probes.base import reads_per_step
from mjscope.diagnose.probes.contacts import ContactProbe
from mjscope.models import load
from tests.utils import assert_close


class _Direct(Probe):
    """Reads the same quantities the straightforward way, for comparison with the gathers."""

    columns = tuple(Column(f"d_{k}", "1", "") for k in range(8))

    def read(self, i):
        d = self.data
        if d.ncon:
            k = int(d.contact.dist.argmin())
            g = d.contact.geom[k]
            pen, g1, g2 = max(0.0, -d.contact.dist[k]), g[0], g[1]
        else:
            pen, g1, g2 = 0.0, -1, -1
        it = d.solver_niter[0]
        imp = d.solver.improvement[it - 1] if it else 0.0
        force = np.linalg.norm(d.qfrc_constraint)
        self.out[i] = (d.ncon, pen, g1, g2, it, imp, force, d.energy[1])


@pytest.mark.parametrize("slots", [16, 1])
def test_gathered_columns_match_direct_reads(tmp_path, slots):
    probes = default_probes()
    probes[1] = ContactProbe(slots=slots)  # 1 slot: most steps take the overflow path
    probes.append(_Direct())
    csv = tmp_path / "v.csv"
    res = run_rollout(
        load("quadruped"), RolloutCfg(steps=1500, ctrl="noise", csv=csv, block_rows=512), probes
    )
    names, rows = read_csv(csv)
    col = {n: rows[:, k] for k, n in enumerate(names)}
    pairs = [
        ("ncon", 0),
        ("pen_max", 1),
        ("pen_geom1", 2),
        ("pen_geom2", 3),
        ("solver_niter", 4),
        ("solver_improvement", 5),
        ("qfrc_constraint_norm", 6),
        ("energy_kinetic", 7),
    ]
    for name, k in pairs:
        assert_close(col[name], col[f"d_{k}"], rtol=1e-9, atol=1e-12, what=name)
    assert col["ncon"].max() >= 2
    assert sum(int(v) for v in res.probes["condim_counts"].values()) == int(col["ncon"].sum())


def test_reads_per_step_only_for_probes_that_override_read():
    assert reads_per_step(_Direct()) and not reads_per_step(Probe())


def test_parts_are_views_of_the_block_and_merge_without_a_copy():
    import mujoco

    from mjscope.diagnose.probes.base import Gather, merged

    m = load("quadruped")
    d = mujoco.MjData(m)
    arrays = [d.qfrc_bias, d.qfrc_passive, d.solver_niter]
    g = Gather(arrays, rows=4)  # the struct's niter may be a group of its own (far apart)
    for i in range(4):
        mujoco.mj_step(m, d)
        for take, idx, rows in g.takes():
            take(idx, None, rows[i], "clip")
    parts = g.parts([0, 1, 2], 4)
    blocks = [grp[2] for grp in g.groups]
    assert all(any(np.shares_memory(p, b) for b in blocks) for p in parts)
    block = g.groups[g.where[0][0]][2]  # the buffer's group: both force vectors
    assert parts[2].dtype == np.int32 and parts[0].dtype == np.float64
    both = merged(parts[:2])
    assert np.shares_memory(both, block)
    assert np.array_equal(both, g.rows([0, 1], 4))  # the same numbers as the copy
    assert np.array_equal(parts[1][-1], d.qfrc_passive) and np.array_equal(
        parts[2][-1], d.solver_niter
    )
    apart = merged([parts[1], parts[0]])  # not side by side in that order: a copy
    assert not np.shares_memory(apart, block)
    assert np.array_equal(apart, np.concatenate([parts[1], parts[0]], axis=1))
