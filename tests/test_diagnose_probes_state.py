"""State probe: each CSV row carries the time of the state it describes."""

import mujoco
import numpy as np

from mjscope.diagnose import RolloutCfg, run_rollout
from mjscope.diagnose.compare import read_csv
from tests.utils import assert_close

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
