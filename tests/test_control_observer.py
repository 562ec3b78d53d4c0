"""Momentum observer: no fake contact from friction, known wrenches recovered, filter dynamics."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from mjscope.control.observer import MomentumObserver, known_dissipation
from mjscope.dock.scene import load_scene
from mjscope.exceptions import ConfigError
from tests.utils import assert_close

DT = 0.001


@pytest.fixture(scope="module", params=["fr3_docking", "iiwa14_docking"])
def scene(request: pytest.FixtureRequest) -> tuple:
    sc = load_scene(request.param)
    mj, pm = sc.build_models()
    return mj, pm, sc.initial_q(mj)


@pytest.fixture(scope="module")
def fr3() -> tuple:
    sc = load_scene("fr3_docking")
    mj, pm = sc.build_models()
    return mj, pm, sc.initial_q(mj)


def _pd(mj: mujoco.MjModel, d: mujoco.MjData, q_d, v_d, kp: float, kd: float) -> np.ndarray:
    """Mass-scaled joint PD plus bias (stable at 1 kHz on the light wrist joints)."""
    M = np.zeros((mj.nv, mj.nv))
    mujoco.mj_fullM(mj, d, M)
    tau = M @ (kp * (q_d - d.qpos) + kd * (v_d - d.qvel)) + d.qfrc_bias
    lim = mj.actuator_ctrlrange[:, 1]
    return np.clip(tau, -lim, lim)


def _start(mj: mujoco.MjModel, q0: np.ndarray, *observers: MomentumObserver) -> mujoco.MjData:
    d = mujoco.MjData(mj)
    d.qpos[:] = q0
    mujoco.mj_forward(mj, d)
    for ob in observers:
        ob.update(d.qpos, d.qvel, np.zeros(mj.nv))
    return d


def test_known_dissipation_is_passive_plus_friction_loss(fr3: tuple) -> None:
    mj, _, q0 = fr3
    d = mujoco.MjData(mj)
    d.qpos[:] = q0
    d.qvel[:] = np.linspace(-0.5, 0.5, mj.nv)
    mujoco.mj_step(mj, d)
    assert d.nf == mj.nv and d.ncon == 0  # only DoF friction rows: qfrc_constraint is all of it
    tau = known_dissipation(mj, d)
    assert_close(tau, d.qfrc_passive + d.qfrc_constraint, atol=1e-12)
    assert np.all(np.abs(d.qfrc_constraint) > 0.1)  # friction loss is active, not a no-op
    # With a joint-limit row as well, only the friction rows count: Σ J_efcᵀ f over them.
    d.qpos[3] = mj.jnt_range[3, 1] + 0.01  # past the upper limit of joint 4
    mujoco.mj_step(mj, d)
    assert d.nefc > d.nf
    J = np.zeros((d.nefc, mj.nv))
    if mujoco.mj_isSparse(mj):
        mujoco.mju_sparse2dense(J, d.efc_J, d.efc_J_rownnz, d.efc_J_rowadr, d.efc_J_colind)
    else:
        J[:] = d.efc_J[: d.nefc * mj.nv].reshape(d.nefc, mj.nv)
    rows = d.efc_type[: d.nefc] == mujoco.mjtConstraint.mjCNSTR_FRICTION_DOF
    expected = d.qfrc_passive + J[rows].T @ d.efc_force[: d.nefc][rows]
    assert_close(known_dissipation(mj, d, np.zeros(mj.nv)), expected, atol=1e-12)
    assert np.abs(known_dissipation(mj, d) - d.qfrc_passive - d.qfrc_constraint).max() > 0.1


def test_free_motion_with_friction_shows_no_fake_contact(fr3: tuple) -> None:
    mj, pm, q0 = fr3
    fc = MomentumObserver(pm, DT, 50.0, mode="force_contact")
    naive = MomentumObserver(pm, DT, 50.0, mode="total")
    pi = MomentumObserver(pm, DT, 50.0, ki=625.0, mode="force_contact")
    d = _start(mj, q0, fc, naive, pi)
    r_fc, r_naive, r_pi = [], [], []
    for k in range(2500):
        t = k * DT
        s, c = np.sin(np.pi * t), np.cos(np.pi * t)
        tau = _pd(mj, d, q0 + 0.3 * s, np.full(mj.nv, 0.3 * np.pi * c), 100.0, 20.0)
        d.ctrl[:] = tau
        mujoco.mj_step(mj, d)
        known = known_dissipation(mj, d)
        r_fc.append(fc.update(d.qpos, d.qvel, tau, known).copy())
        r_naive.append(naive.update(d.qpos, d.qvel, tau).copy())
        r_pi.append(pi.update(d.qpos, d.qvel, tau, known).copy())
    fake = np.abs(np.array(r_naive)[200:]).max(axis=0)
    for r in (r_fc, r_pi):
        est = np.abs(np.array(r)[200:]).max(axis=0)
        # The naive observer sees the friction torque (frictionloss + damping·v) ...
        assert np.all(fake > 0.9 * mj.dof_frictionloss)
        # ... the force_contact one at most 5 % of it, on every joint.
        assert np.all(est <= 0.05 * fake), (est, fake)


@pytest.mark.parametrize("ki", [0.0, 625.0])
def test_known_wrench_is_recovered(scene: tuple, ki: float) -> None:
    mj, pm, q0 = scene
    ob = MomentumObserver(pm, DT, 50.0, ki=ki)
    d = _start(mj, q0, ob)
    tool = mj.body("tool").id
    F = np.array([5.0, -3.0, 8.0, 0.3, -0.2, 0.1])  # at the tool's centre of mass, world axes
    for _ in range(1500):
        tau = _pd(mj, d, q0, np.zeros(mj.nv), 400.0, 40.0)
        d.ctrl[:] = tau
        d.xfrc_applied[tool] = F
        mujoco.mj_step(mj, d)
        r = ob.update(d.qpos, d.qvel, tau, known_dissipation(mj, d))
    tau_true = np.zeros(mj.nv)
    com = d.xipos[tool].copy()
    mujoco.mj_applyFT(mj, d, F[:3].copy(), F[3:].copy(), com, tool, tau_true)
    assert np.linalg.norm(r - tau_true) <= 0.02 * np.linalg.norm(tau_true)
    p_eef = d.site_xpos[mj.site("eef").id]
    moment = F[3:] + np.cross(com - p_eef, F[:3])  # the same wrench about the tool tip
    w = ob.wrench(d.qpos)
    assert np.linalg.norm(w[:3] - F[:3]) <= 0.02 * np.linalg.norm(F[:3])
    assert np.linalg.norm(w[3:] - moment) <= 0.02 * np.linalg.norm(moment)


def test_residual_is_a_first_order_filter_of_the_external_torque(scene: tuple) -> None:
    """A step of τ_ext at t = 0 gives r = τ_ext (1 − e^(−K_O t)) for the classical observer."""
    mj, pm, q0 = scene
    gain = 40.0
    ob = MomentumObserver(pm, DT, gain)
    d = _start(mj, q0, ob)
    tau_ext = np.array([2.0, -1.0, 1.5, 1.0, -0.5, 0.3, 0.2])
    hist = []
    for _ in range(100):
        tau = _pd(mj, d, q0, np.zeros(mj.nv), 400.0, 40.0)
        d.ctrl[:] = tau
        d.qfrc_applied[:] = tau_ext
        mujoco.mj_step(mj, d)
        hist.append(ob.update(d.qpos, d.qvel, tau, known_dissipation(mj, d)).copy())
    t = DT * np.arange(1, 101)
    expected = np.outer(1.0 - np.exp(-gain * t), tau_ext)
    assert_close(np.array(hist), expected, atol=0.02 * np.abs(tau_ext).max())


def test_model_damping_is_used_without_a_measured_dissipation(fr3: tuple) -> None:
    mj, pm, q0 = fr3
    ob = MomentumObserver(pm, DT, 50.0)
    plain = MomentumObserver(pm, DT, 50.0, mode="total")
    _start(mj, q0, ob, plain)
    v = np.full(mj.nv, 0.2)
    for k in range(300):  # same inputs to both: they differ by the filtered model damping
        q = q0 + k * DT * v
        ob.update(q, v, np.zeros(mj.nv))
        plain.update(q, v, np.zeros(mj.nv))
    assert_close(plain.r - ob.r, -0.21 * v, rtol=1e-5)  # the damping torque −D v


def test_reset_and_bad_settings(fr3: tuple) -> None:
    _, pm, q0 = fr3
    ob = MomentumObserver(pm, DT)
    ob.update(q0, np.zeros(7), np.zeros(7))
    ob.update(q0, np.zeros(7), np.ones(7))
    assert np.any(ob.r != 0.0)
    ob.reset(q0)
    assert ob.initialized and np.all(ob.r == 0.0)
    with pytest.raises(ConfigError, match="mode 'bogus'"):
        MomentumObserver(pm, DT, mode="bogus")
    with pytest.raises(ConfigError, match="gain > 0"):
        MomentumObserver(pm, DT, gain=0.0)
    with pytest.raises(ConfigError, match="frame 'nope'"):
        MomentumObserver(pm, DT, frame="nope")


def test_bias_and_mass_matrix_of_the_last_update(scene: tuple) -> None:
    """``bias()`` and ``M`` at the last state equal Pinocchio's ``nonLinearEffects``/``crba``
    (what the HQP reuses instead of recomputing), over seeded random states."""
    import pinocchio as pin

    _, pm, _ = scene
    ob = MomentumObserver(pm, DT, 50.0)
    d = pm.createData()
    rng = np.random.default_rng(0)
    for _ in range(10):
        q = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
        v = rng.uniform(-2.0, 2.0, pm.nv)
        ob.update(q, v, rng.normal(size=pm.nv))
        assert ob.q_last is q and ob.v_last is v
        assert_close(ob.bias(), pin.nonLinearEffects(pm, d, q, v), atol=1e-10)
        M = pin.crba(pm, d, q)
        assert_close(ob.M, np.triu(M) + np.triu(M, 1).T, atol=1e-12)


def test_update_leaves_the_frame_kinematics_of_its_state(scene: tuple) -> None:
    """After ``update(q, v)`` the observer's data hold the joint Jacobians, their time variation
    and the placements of ``(q, v)`` exactly as ``frame_kinematics`` computes them (the HQP
    reads its J, J̇ there instead of a second pass), gravity on and off."""
    import pinocchio as pin

    from mjscope.control.controllers.common import LWA, frame_kinematics

    _, pm0, _ = scene
    rng = np.random.default_rng(4)
    for gravity in (np.zeros(3), np.array([0.0, 0.0, -9.81])):
        pm = pm0.copy()
        pm.gravity.linear = gravity
        ob = MomentumObserver(pm, DT, 50.0)
        d, fid = pm.createData(), ob.fid
        for _ in range(5):
            q = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
            v = rng.uniform(-2.0, 2.0, pm.nv)
            ob.update(q, v, rng.normal(size=pm.nv))
            oMf, J, dJ = frame_kinematics(pm, d, fid, q, v)
            oMf_o = pin.updateFramePlacement(pm, ob.data, fid)
            np.testing.assert_array_equal(oMf_o.homogeneous, oMf.homogeneous)
            np.testing.assert_array_equal(pin.getFrameJacobian(pm, ob.data, fid, LWA), J)
            np.testing.assert_array_equal(
                pin.getFrameJacobianTimeVariation(pm, ob.data, fid, LWA), dJ
            )
