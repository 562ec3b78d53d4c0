"""Force probes: forward/inverse dynamics consistency."""

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
