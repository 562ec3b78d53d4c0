"""The rollout: reset, controls, step counts, determinism."""

import mujoco
import pytest

from mjscope.diagnose import RolloutCfg, run_rollout
from mjscope.diagnose.compare import compare, read_csv
from mjscope.diagnose.rollout import reset
from mjscope.models import load

FALL = """<mujoco><option timestep="0.01" integrator="Euler"/><worldbody>
<body pos="0 0 10"><freejoint/><geom size=".1"/></body></worldbody></mujoco>"""


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


def test_duration_in_steps():
    from mjscope.diagnose.rollout import steps_for

    m = load("quadruped")
    assert steps_for(m, None, 1.0) == 500  # 1 s / the quadruped's 0.002 s timestep


def test_duration_needs_a_positive_timestep_and_finite_value():
    from mjscope.diagnose.rollout import steps_for
    from mjscope.exceptions import ConfigError

    m = mujoco.MjModel.from_xml_string(FALL)
    assert steps_for(m, None, 0.05) == 5  # 0.05 s / FALL's 0.01 s timestep
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ConfigError, match="--duration"):
            steps_for(m, None, bad)
    m.opt.timestep = 0.0
    with pytest.raises(ConfigError, match=r"timestep > 0.*--steps"):
        steps_for(m, None, 1.0)
