import mujoco
import numpy as np
import pytest

from mjscope.diagnose import RolloutCfg, diagnose
from mjscope.models import build_spec, compile_spec, load
from mjscope.models.robots import quadruped_constants as qc


def test_quadruped_constants_match_model():
    m = load("quadruped")
    assert (m.nq, m.nv, m.nu) == (qc.NQ, qc.NV, qc.NU)
    assert [m.joint(j).name for j in range(1, m.njnt)] == list(qc.JOINT_NAMES)
    assert [m.actuator(a).name for a in range(m.nu)] == list(qc.ACTUATOR_NAMES)
    assert np.all(m.actuator_forcelimited) and np.all(m.actuator_ctrllimited)


def test_quadruped_settles_without_warnings():
    m = load("quadruped")
    dg = diagnose(m, "quadruped", RolloutCfg(steps=2000, ctrl="hold"))
    prev = dg.result.preview
    names = [h.split(" [")[0] for h in dg.result.header]
    z = prev[:, names.index("com_z")]
    tail = z[len(z) // 2 :]
    assert np.ptp(tail) < 2e-3, np.ptp(tail)
    assert 0.15 < z[-1] < z[0] - 0.1
    assert [f for f in dg.findings if f.severity != "info"] == []


def fourbar_tip_separation(m: mujoco.MjModel, d: mujoco.MjData, steps: int) -> list[float]:
    """Step the fourbar ``steps`` times under ctrl = 5 sin(2πt); the tip sites' distance [m]."""
    a, b = m.site("coupler_tip").id, m.site("rocker_tip").id
    sep = []
    for _ in range(steps):
        d.ctrl[0] = 5 * np.sin(2 * np.pi * d.time)
        mujoco.mj_step(m, d)
        sep.append(float(np.linalg.norm(d.site_xpos[a] - d.site_xpos[b])))
    return sep


def test_fourbar_equality_holds_under_sine_drive():
    m = load("fourbar")
    d = mujoco.MjData(m)
    sep = fourbar_tip_separation(m, d, 2000)
    assert d.eq_active[0]
    assert max(sep) < 2e-3 and np.median(sep) < 2e-4
    assert np.ptp(d.qpos) > 0.1  # it actually moved


def test_fourbar_softer_equality_separates_more():
    worst = []
    for tc in (0.005, 0.1):
        m = compile_spec(build_spec("fourbar", solref_timeconst=tc))
        d = mujoco.MjData(m)
        a, b = m.site("coupler_tip").id, m.site("rocker_tip").id
        s = 0.0
        for _ in range(1000):
            mujoco.mj_step(m, d)
            s = max(s, float(np.linalg.norm(d.site_xpos[a] - d.site_xpos[b])))
        worst.append(s)
    assert worst[1] > 5 * worst[0]


def _drop_mm(condim: int) -> tuple[float, float]:
    m = compile_spec(build_spec("gripper_cylinder", condim=condim))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    cyl = m.body("cylinder").id
    z0 = d.xpos[cyl, 2]
    for i in range(1000):
        mujoco.mj_step(m, d)
        if i == 199:
            z1 = d.xpos[cyl, 2]
    return (z0 - d.xpos[cyl, 2]) * 1e3, (z1 - d.xpos[cyl, 2]) * 1e3


@pytest.mark.parametrize("condim", [3, 4, 6])
def test_gripper_holds_cylinder(condim):
    total, late = _drop_mm(condim)
    assert total < 1.0 and late < 0.05, (total, late)


def test_gripper_condim1_drops_cylinder():
    total, _ = _drop_mm(1)
    assert total > 50.0


def test_gripper_rejects_bad_condim():
    from mjscope.exceptions import ConfigError

    with pytest.raises(ConfigError, match="condim 2"):
        build_spec("gripper_cylinder", condim=2)
