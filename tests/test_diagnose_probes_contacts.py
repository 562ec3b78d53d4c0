"""Contact probe: resting penetration against MuJoCo's soft-contact model."""

import mujoco
import numpy as np

from mjscope.diagnose import RolloutCfg, run_rollout

SPHERE = """<mujoco><option timestep="0.002"/><worldbody>
<geom name="floor" type="plane" size="2 2 .1" solref="0.02 1" solimp="0.9 0.9 0.001"/>
<body pos="0 0 .1"><freejoint/><geom name="ball" size=".1" condim="1"
 solref="0.02 1" solimp="0.9 0.9 0.001"/></body></worldbody></mujoco>"""


def test_sphere_rest_penetration_matches_formula():
    m = mujoco.MjModel.from_xml_string(SPHERE)
    res = run_rollout(m, RolloutCfg(steps=2000))
    pen = {c["name"]: c for c in res.columns}["pen_max"]["final"]
    # MuJoCo's soft constraint (docs, Computation §Soft constraints and Modeling §Solver
    # parameters): a1 + d·(b·v + k·r) = (1 − d)·a0 with k = d / (dmax²·timeconst²·dampratio²).
    # At rest (a1 = v = 0) with constant impedance (dmin = dmax = d) the penetration is
    # r = (1 − d)·a0 / (d·k) = a0·(1 − d)·timeconst²·dampratio². Tolerance 5 %: a wide margin
    # (MuJoCo 3.17 gives a relative deviation of about 1e-9 after 2000 steps).
    a_u = float(np.linalg.norm(m.opt.gravity))  # free sphere: unconstrained normal accel = g
    gid = m.geom("ball").id
    d_imp = float(m.geom_solimp[gid, 0])  # dmin == dmax: constant impedance
    tc, dr = m.geom_solref[gid]
    expected = a_u * (1 - d_imp) * tc**2 * dr**2
    assert abs(pen - expected) < 0.05 * expected, (pen, expected)
