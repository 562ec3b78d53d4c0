"""Force probes: forward/inverse dynamics consistency."""

import mujoco
import numpy as np

from mjscope.diagnose import RolloutCfg, run_rollout
from mjscope.diagnose.probes.forces import inverse_residual
from mjscope.models import load


def test_forward_inverse_residual_near_zero_at_rest():
    m = load("quadruped")
    res = run_rollout(m, RolloutCfg(steps=1500, ctrl="hold", inverse=True))
    cols = {c["name"]: c for c in res.columns}
    # At rest under hold control the forward solver converges, so mj_inverse recovers the applied
    # forces up to the solver's tolerance (MuJoCo docs, Computation §Inverse dynamics; the
    # fwdinv flag reports the relative discrepancy). Bound: 1e-6 of the model's weight m·g [N],
    # and 1e-6 for MuJoCo's relative solver_fwdinv[0].
    weight = float(np.sum(m.body_mass) * 9.81)
    assert cols["inv_residual"]["final"] < 1e-6 * weight
    assert inverse_residual(m, res.final_data) < 1e-6 * weight
    assert cols["fwdinv_joint"]["final"] < 1e-6


STACK = """<mujoco><option solver="{solver}" iterations="{it}"/><worldbody>
<geom type="plane" size="2 2 .1"/>
<body pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .1" mass="1"/></body>
<body pos="0 0 .31"><freejoint/><geom type="box" size=".1 .1 .1" mass="1"/></body>
</worldbody></mujoco>"""


def test_dof_force_table_groups_the_free_base_first_and_weighs_the_robot():
    from mjscope.diagnose import diagnose

    m = load("quadruped")
    dg = diagnose(m, "quadruped", RolloutCfg(steps=1500, ctrl="hold"))
    rows = dg.result.probes["dof_forces"]
    assert [r["label"] for r in rows[:6]] == [
        f"root.{a}" for a in ("x", "y", "z", "rx", "ry", "rz")
    ]
    assert {r["group"] for r in rows[:6]} == {"free base"} and rows[2]["unit"] == "N"
    assert [r["label"] for r in rows[6:9]] == ["FR_hip_joint", "FR_thigh_joint", "FR_calf_joint"]
    assert rows[6]["unit"] == "N·m"
    # qfrc_bias on the base's vertical DOF is gravity on the whole robot: m·g
    weight = float(np.sum(m.body_mass) * 9.81)
    assert abs(rows[2]["bias_rms"] - weight) < 0.01 * weight
    # actuators act only on the hinge DOFs, never on the base
    assert all(r["actuator_max"] == 0 for r in rows[:6])
    assert all(r["actuator_max"] > 0 for r in rows[6:])


def test_inverse_mismatch_names_the_dof_of_an_unconverged_solve():
    from mjscope.diagnose import diagnose

    bad = mujoco.MjModel.from_xml_string(STACK.format(solver="PGS", it=2))
    dg = diagnose(bad, "stack", RolloutCfg(steps=300, inverse=True))
    found = [f for f in dg.findings if f.code == "INVERSE_MISMATCH"]
    assert len(found) == 1 and found[0].element.startswith("DOF 'joint#")
    assert max(dg.result.probes["inverse_dof_max"]) > 1e3 * dg.result.probes["inverse_tolerance"]
    good = mujoco.MjModel.from_xml_string(STACK.format(solver="Newton", it=100))
    dg = diagnose(good, "stack", RolloutCfg(steps=300, inverse=True))
    assert not [f for f in dg.findings if f.code == "INVERSE_MISMATCH"]
    assert max(dg.result.probes["inverse_dof_max"]) < 1e-6  # Newton, tolerance 1e-8: ~5e-8
