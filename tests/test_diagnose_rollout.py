import tracemalloc

import mujoco
import numpy as np
import pytest

from mjscope.diagnose import Column, Probe, RolloutCfg, default_probes, run_rollout
from mjscope.diagnose.compare import compare, read_csv
from mjscope.diagnose.contacts import ContactProbe
from mjscope.diagnose.forces import inverse_residual
from mjscope.diagnose.rollout import reset
from mjscope.models import load
from tests.utils import assert_close

SPHERE = """<mujoco><option timestep="0.002"/><worldbody>
<geom name="floor" type="plane" size="2 2 .1" solref="0.02 1" solimp="0.9 0.9 0.001"/>
<body pos="0 0 .1"><freejoint/><geom name="ball" size=".1" condim="1"
 solref="0.02 1" solimp="0.9 0.9 0.001"/></body></worldbody></mujoco>"""


def test_qpos_without_forward_is_stale_and_reset_forwards():
    m = load("quadruped")
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    z_before = d.xpos[1, 2]
    d.qpos[2] += 0.5
    assert d.xpos[1, 2] == z_before  # stale: derived quantities wait for mj_forward
    reset(m, d, "home")
    assert abs(d.xpos[1, 2] - m.key_qpos[0, 2]) < 1e-12
    d.qpos[2] = 1.234
    reset(m, d)
    assert abs(d.xpos[1, 2] - m.qpos0[2]) < 1e-12


def test_forward_inverse_residual_near_zero_at_rest():
    m = load("quadruped")
    res = run_rollout(m, RolloutCfg(steps=1500, ctrl="hold", inverse=True))
    cols = {c["name"]: c for c in res.columns}
    weight = float(np.sum(m.body_mass) * 9.81)
    assert cols["inv_residual"]["final"] < 1e-6 * weight
    assert inverse_residual(m, res.final_data) < 1e-6 * weight
    assert cols["fwdinv_joint"]["final"] < 1e-6


def test_sphere_rest_penetration_matches_formula():
    m = mujoco.MjModel.from_xml_string(SPHERE)
    res = run_rollout(m, RolloutCfg(steps=2000))
    pen = {c["name"]: c for c in res.columns}["pen_max"]["final"]
    a_u = float(np.linalg.norm(m.opt.gravity))  # free sphere: unconstrained normal accel = g
    gid = m.geom("ball").id
    d_imp = float(m.geom_solimp[gid, 0])  # dmin == dmax: constant impedance
    tc, dr = m.geom_solref[gid]
    expected = a_u * (1 - d_imp) * tc**2 * dr**2
    assert abs(pen - expected) < 0.05 * expected, (pen, expected)


def test_identical_runs_give_identical_csvs(tmp_path):
    paths = []
    for k in range(2):
        p = tmp_path / f"run{k}.csv"
        run_rollout(
            load("quadruped"), RolloutCfg(steps=600, ctrl="noise", seed=3, csv=p, block_rows=256)
        )
        paths.append(p)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    header = paths[0].read_text().splitlines()[0].split(",")
    assert all(h.endswith("]") and " [" in h for h in header)
    names, rows = read_csv(paths[0])
    assert rows.shape == (600, len(names))
    assert compare(read_csv(paths[0]), read_csv(paths[1]), 0.0)["passed"]


def test_different_seeds_differ_and_compare_finds_step(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    run_rollout(load("quadruped"), RolloutCfg(steps=300, ctrl="noise", seed=1, csv=a))
    run_rollout(load("quadruped"), RolloutCfg(steps=300, ctrl="noise", seed=2, csv=b))
    res = compare(read_csv(a), read_csv(b), 1e-9)
    assert not res["passed"]
    com = next(c for c in res["columns"] if c["name"] == "com_z")
    assert com["first_diverging_step"] is not None and com["max_deviation"] > 0


def _peak(steps: int, path) -> int:
    m = mujoco.MjModel.from_xml_string(SPHERE)
    tracemalloc.start()
    run_rollout(m, RolloutCfg(steps=steps, csv=path, block_rows=1024))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_memory_flat_in_steps(tmp_path):
    small = _peak(5000, tmp_path / "s.csv")
    large = _peak(50000, tmp_path / "l.csv")
    assert large < small * 1.3 + 200_000, (small, large)
    assert sum(1 for _ in (tmp_path / "l.csv").open()) == 50001


def test_duration_and_noise_scaled_to_ctrlrange():
    from mjscope.diagnose.rollout import noise_source, steps_for

    m = load("quadruped")
    assert steps_for(m, None, 1.0) == 500
    block = noise_source(m, 2000, 0, 1.0)()
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    assert np.all(block >= lo) and np.all(block <= hi)
    assert np.all(block.max(axis=0) - block.min(axis=0) > 0.9 * (hi - lo))


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


def test_forked_and_inprocess_csv_identical(tmp_path):
    a, b = tmp_path / "forked.csv", tmp_path / "inproc.csv"
    run_rollout(load("fourbar"), RolloutCfg(steps=900, csv=a, block_rows=128))  # forked writer
    run_rollout(load("fourbar"), RolloutCfg(steps=900, csv=b, block_rows=4096))  # in process
    assert a.read_bytes() == b.read_bytes()


FALL = """<mujoco><option timestep="0.01" integrator="Euler"/><worldbody>
<body pos="0 0 10"><freejoint/><geom size=".1"/></body></worldbody></mujoco>"""


def test_row_time_is_the_time_of_the_recorded_state(tmp_path):
    """Free fall, semi-implicit Euler: z_k = z0 − g·h²·k(k+1)/2 and v_k = −g·h·k at t = k·h."""
    m = mujoco.MjModel.from_xml_string(FALL)
    csv = tmp_path / "fall.csv"
    run_rollout(m, RolloutCfg(steps=50, csv=csv))
    names, rows = read_csv(csv)
    t, z, ke = (rows[:, names.index(c)] for c in ("time", "com_z", "energy_kinetic"))
    h, g, mass = 0.01, 9.81, float(m.body_mass[1])
    k = np.round(t / h)
    assert_close(k, np.arange(50), atol=1e-9, what="row k describes t = k·h")
    assert_close(z, 10.0 - g * h * h * k * (k + 1) / 2, atol=1e-9, what="com_z")
    assert_close(ke, 0.5 * mass * (g * h * k) ** 2, rtol=1e-9, atol=1e-12, what="kinetic")


def test_duration_needs_a_positive_timestep_and_finite_value():
    from mjscope.diagnose.rollout import steps_for
    from mjscope.exceptions import ConfigError

    m = mujoco.MjModel.from_xml_string(FALL)
    assert steps_for(m, None, 0.05) == 5
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ConfigError, match="--duration"):
            steps_for(m, None, bad)
    m.opt.timestep = 0.0
    with pytest.raises(ConfigError, match=r"timestep > 0.*--steps"):
        steps_for(m, None, 1.0)


def test_compare_nan_and_inf_semantics():
    inf, nan = np.inf, np.nan
    a = (["time", "x"], np.array([[0.0, inf], [1.0, nan], [2.0, nan], [3.0, 1.0]]))
    b = (["time", "x"], np.array([[0.0, inf], [1.0, nan], [2.0, 5.0], [3.0, 1.0]]))
    res = compare(a, b, 1e-9)
    x = next(c for c in res["columns"] if c["name"] == "x")
    assert x == {"name": "x", "max_deviation": inf, "first_diverging_step": 2}
    assert compare(a, a, 0.0)["passed"]  # same infinities and NaNs in the same places
