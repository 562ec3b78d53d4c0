"""se3_lie: contract, LOCAL J/J̇ against finite differences and MuJoCo, potentials, the law."""

from __future__ import annotations

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from mjscope.control.controllers import Controller, Se3Gains, Se3LieController
from mjscope.control.lie import se3_exp, se3_inverse, se3_log
from mjscope.dock.config import ImpedanceCfg, Se3ImpedanceCfg
from mjscope.dock.scene import load_scene
from mjscope.exceptions import ConfigError
from tests.utils import assert_close

LOCAL = pin.ReferenceFrame.LOCAL


@pytest.fixture(scope="module")
def models() -> tuple:
    sc = load_scene("fr3_docking")  # armature present: M differs from its armature-free version
    mj, pm = sc.build_models()
    pm.gravity.linear = np.array([0.0, 0.0, -9.81])  # gravity on: g(q) must appear in the law
    return mj, pm


def _gains(
    potential: str = "frobenius", kp_rot: tuple = (900.0, 900.0, 900.0), damping: float = 1e-6
) -> Se3Gains:
    se3 = Se3ImpedanceCfg(kp_pos=(900.0, 700.0, 400.0), kp_rot=kp_rot, log_map=potential == "log")
    return Se3Gains.from_cfg(se3, ImpedanceCfg(damping=damping))


def _ctrl(pm: object, potential: str = "frobenius", **kw: object) -> Se3LieController:
    """A controller; ``damping=0`` unless given: the exact law (no ε in Λ) for exact checks."""
    gains = _gains(potential, damping=float(kw.pop("damping", 0.0)))  # type: ignore[arg-type]
    return Se3LieController(pm, "eef", gains, np.zeros(7), **kw)  # type: ignore[arg-type]


def _sample(mj: mujoco.MjModel, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    q = rng.uniform(mj.jnt_range[:, 0] + 0.3, mj.jnt_range[:, 1] - 0.3)
    return q, rng.uniform(-1.0, 1.0, mj.nv)


def _kin(pm: object, q: np.ndarray, v: np.ndarray) -> tuple:
    d = pm.createData()  # type: ignore[attr-defined]
    fid = pm.getFrameId("eef")  # type: ignore[attr-defined]
    pin.computeJointJacobiansTimeVariation(pm, d, q, v)
    pin.updateFramePlacements(pm, d)
    J = pin.getFrameJacobian(pm, d, fid, LOCAL).copy()
    dJ = pin.getFrameJacobianTimeVariation(pm, d, fid, LOCAL).copy()
    return d.oMf[fid].homogeneous.copy(), J, dJ


def _dynamics(pm: object, q: np.ndarray, v: np.ndarray) -> tuple:
    d = pm.createData()  # type: ignore[attr-defined]
    M = pin.crba(pm, d, q)
    M = np.triu(M) + np.triu(M, 1).T
    C = pin.computeCoriolisMatrix(pm, d, q, v).copy()
    g = pin.computeGeneralizedGravity(pm, d, q).copy()
    return M, C, g


def test_contract(models: tuple) -> None:
    mj, pm = models
    ctrl = _ctrl(pm)
    assert isinstance(ctrl, Controller) and ctrl.name == "se3_lie" and ctrl.wrench_frame == "body"
    q, v = _sample(mj, np.random.default_rng(0))
    T, _, _ = _kin(pm, q, v)
    from mjscope.control.planners import MotionReference

    ref = MotionReference(T, np.ones(6) * 0.1, np.ones(6), T[:3, 3], np.zeros(3), np.zeros(3),
                          T[:3, :3], 0)  # fmt: skip
    q_in, v_in = q.copy(), v.copy()
    tau = ctrl.compute(q, v, ref, np.zeros(6))
    assert tau.shape == (7,) and np.all(np.isfinite(tau))
    np.testing.assert_array_equal(q, q_in)
    np.testing.assert_array_equal(v, v_in)
    # compute() is compute_control() on the reference's (T_d, V_d, V̇_d).
    same = ctrl.compute_control(q, v, ref.T_d, ref.V_d, ref.Vdot_d, np.zeros(6))
    assert_close(tau, same, atol=0.0)
    assert not ctrl.feedforward_dropped


def test_local_jacobian_against_finite_differences_and_mujoco(models: tuple) -> None:
    mj, pm = models
    rng = np.random.default_rng(1)
    d = mujoco.MjData(mj)
    for _ in range(5):
        q, v = _sample(mj, rng)
        _, J, dJ = _kin(pm, q, v)
        h = 1e-6
        Tp, Jp, _ = _kin(pm, pin.integrate(pm, q, h * v), v)
        Tm, Jm, _ = _kin(pm, pin.integrate(pm, q, -h * v), v)
        body = (se3_log(se3_inverse(Tm) @ Tp)) / (2 * h)  # body twist by finite differences
        assert_close(J @ v, body, atol=1e-8, what="J_b v")
        assert_close(dJ, (Jp - Jm) / (2 * h), atol=1e-7, what="J̇_b")
        d.qpos[:] = q
        mujoco.mj_forward(mj, d)
        jp, jr = np.zeros((3, 7)), np.zeros((3, 7))
        mujoco.mj_jacSite(mj, d, jp, jr, mj.site("eef").id)
        R = d.site("eef").xmat.reshape(3, 3)
        assert_close(J, np.vstack([R.T @ jp, R.T @ jr]), atol=1e-12, what="LOCAL = Rᵀ J_world")


def test_zero_error_at_rest_is_gravity_only(models: tuple) -> None:
    mj, pm = models
    for potential in ("frobenius", "log"):
        q, _ = _sample(mj, np.random.default_rng(2))
        ctrl = Se3LieController(pm, "eef", _gains(potential), q)  # at the null posture too
        T, _, _ = _kin(pm, q, np.zeros(7))
        tau = ctrl.compute_control(q, np.zeros(7), T, np.zeros(6), np.zeros(6), np.zeros(6))
        _, _, g = _dynamics(pm, q, np.zeros(7))
        assert np.linalg.norm(g) > 1.0
        assert_close(tau, g, atol=1e-9, what=f"{potential}: τ = g(q)")


def test_zero_error_adds_only_the_feedforward(models: tuple) -> None:
    """On the reference (T = T_d, V = V_d): J q̈ + J̇ v = V̇_d, the desired body acceleration."""
    mj, pm = models
    rng = np.random.default_rng(3)
    for potential in ("frobenius", "log"):
        ctrl = _ctrl(pm, potential)
        q, v = _sample(mj, rng)
        T, J, dJ = _kin(pm, q, v)
        Vdot_d = rng.normal(size=6)
        tau = ctrl.compute_control(q, v, T, J @ v, Vdot_d, np.zeros(6))
        M, C, g = _dynamics(pm, q, v)
        qdd = np.linalg.solve(M, tau - C @ v - g)
        assert_close(J @ qdd + dJ @ v, Vdot_d, atol=1e-6, what=potential)


def _reference_law(pm: object, ctrl: Se3LieController, q, v, T_d, V_d, Vdot_d):  # type: ignore[no-untyped-def]
    """The law written out with explicit M⁻¹, Λ, J̄, M̃ = J̄ᵀ M J̄, C̃ (an independent check)."""
    T, J, dJ = _kin(pm, q, v)
    M, C, g = _dynamics(pm, q, v)
    Minv = np.linalg.inv(M)
    Lam = np.linalg.inv(J @ Minv @ J.T + ctrl.gains.damping * np.eye(6))
    Jbar = Minv @ J.T @ Lam
    Mt = Jbar.T @ M @ Jbar
    Ct = Jbar.T @ (C - M @ Jbar @ dJ) @ Jbar
    Terr = se3_inverse(T_d) @ T
    X = se3_inverse(Terr)
    Ad = pin.SE3(X).action
    V = J @ v
    V_r = Ad @ V_d
    e_V = V - V_r
    alpha = Ad @ Vdot_d + pin.Motion(V_r).cross(pin.Motion(V)).vector
    f_G = ctrl.potential_gradient(pin.SE3(Terr)).copy()
    u = alpha - f_G - ctrl.gains.kd * e_V
    F = Mt @ (u - dJ @ v) + Jbar.T @ C @ v - Ct @ e_V
    tau0 = ctrl.gains.kp_null * (ctrl.q_null - q) - ctrl.gains.kd_null * v
    N_T = np.eye(7) - J.T @ Jbar.T
    return J.T @ F + g + N_T @ (C @ v + tau0), (M, C, g, J, dJ, Lam, Ct, u, e_V)


@pytest.mark.parametrize("potential", ["frobenius", "log"])
def test_law_matches_the_explicit_formulas_and_closes_the_loop(
    models: tuple, potential: str
) -> None:
    mj, pm = models
    rng = np.random.default_rng(4)
    ctrl = _ctrl(pm, potential)
    checked = 0
    while checked < 5:
        q, v = _sample(mj, rng)
        T, _, _ = _kin(pm, q, v)
        T_d = T @ se3_exp(rng.normal(scale=[0.05] * 3 + [0.4] * 3))
        V_d, Vdot_d = rng.normal(size=6), rng.normal(size=6)
        tau = ctrl.compute_control(q, v, T_d, V_d, Vdot_d, np.zeros(6))
        if ctrl.feedforward_dropped:  # near-singular sample: the guard's law (tested below)
            continue
        checked += 1
        ref, (M, C, g, J, dJ, Lam, Ct, u, e_V) = _reference_law(pm, ctrl, q, v, T_d, V_d, Vdot_d)
        assert_close(tau, ref, atol=1e-8, rtol=1e-9, what="τ vs explicit M̃, C̃")
        # Closed loop through the true dynamics: M̃ (V̇ − u) + C̃ e_V = 0.
        qdd = np.linalg.solve(M, tau - C @ v - g)
        residual = Lam @ (J @ qdd + dJ @ v - u) + Ct @ e_V
        assert np.linalg.norm(residual) < 1e-8 * (1.0 + np.linalg.norm(Lam @ u)), residual


def _potential_fd(
    ctrl: Se3LieController, Terr: np.ndarray, d: np.ndarray, h: float = 1e-6
) -> float:
    plus = ctrl.potential(pin.SE3(Terr @ se3_exp(h * d)))
    minus = ctrl.potential(pin.SE3(Terr @ se3_exp(-h * d)))
    return (plus - minus) / (2 * h)


@pytest.mark.parametrize("potential", ["frobenius", "log"])
def test_potential_gradient_against_finite_differences(models: tuple, potential: str) -> None:
    _, pm = models
    ctrl = _ctrl(pm, potential)
    rng = np.random.default_rng(5)
    for _ in range(50):
        Terr = se3_exp(rng.normal(scale=[0.2] * 3 + [0.8] * 3))
        f = ctrl.potential_gradient(pin.SE3(Terr)).copy()
        for d in np.eye(6):
            assert abs(f @ d - _potential_fd(ctrl, Terr, d)) < 1e-6 * (1.0 + np.abs(f).max())


def test_potentials_agree_locally_and_differ_far_away(models: tuple) -> None:
    _, pm = models
    frob, log = _ctrl(pm, "frobenius"), _ctrl(pm, "log")
    kp = frob.gains.kp
    small = np.array([1e-4, -2e-4, 3e-4, 2e-4, -1e-4, 3e-4])
    for c in (frob, log):  # local stiffness = kp (Frobenius: K_R = ½ tr(K) I − K)
        assert_close(c.potential_gradient(pin.SE3(se3_exp(small))), kp * small, rtol=2e-3)
    big = np.array([0.1, 0.0, 0.0, 0.0, 0.0, 2.5])  # 143° about z, translation ⟂ axis
    f_frob = frob.potential_gradient(pin.SE3(se3_exp(big))).copy()
    f_log = log.potential_gradient(pin.SE3(se3_exp(big))).copy()
    # Frobenius rotation term ∝ sin θ (bounded); log-map ∝ θ and coupled with translation.
    assert abs(f_frob[5]) < 0.7 * abs(f_log[5])
    # §2a: the exact log-map gradient dexp⁻ᵀ K ξ is not K ξ once rotation and translation couple.
    assert np.linalg.norm(f_log[:3] - kp[:3] * big[:3]) > 10.0


def test_frobenius_rejects_a_rotation_stiffness_without_potential() -> None:
    with pytest.raises(ConfigError, match="kp_rot"):
        _gains("frobenius", kp_rot=(100.0, 100.0, 900.0))
    _gains("log", kp_rot=(100.0, 100.0, 900.0))  # the log-map potential takes any kp
    with pytest.raises(ConfigError, match="potential 'quad' unknown"):
        Se3Gains(np.ones(6), np.ones(6), "quad")


def test_apparent_inertia_feeds_the_body_wrench_back(models: tuple) -> None:
    """With M_d: τ(F) − τ(0) = J_bᵀ (M̃ M_d⁻¹ − I) F; without it F is not used."""
    mj, pm = models
    rng = np.random.default_rng(6)
    q, v = _sample(mj, rng)
    T, J, _ = _kin(pm, q, v)
    F = rng.normal(size=6)
    plain = _ctrl(pm)
    args = (q, v, T, np.zeros(6), np.zeros(6))
    assert_close(plain.compute_control(*args, F), plain.compute_control(*args, np.zeros(6)))
    m_d = np.array([2.0, 2.0, 2.0, 0.05, 0.05, 0.05])
    shaped = _ctrl(pm, apparent_inertia=m_d)
    diff = shaped.compute_control(*args, F) - shaped.compute_control(*args, np.zeros(6))
    M, _, _ = _dynamics(pm, q, v)
    Lam = np.linalg.inv(J @ np.linalg.solve(M, J.T))
    assert_close(diff, J.T @ (Lam @ (F / m_d) - F), atol=1e-8)
    # The ε-regularised default changes this by O(ε): finite and within 1e-4 relative.
    eps = _ctrl(pm, apparent_inertia=m_d, damping=1e-6)
    diff_eps = eps.compute_control(*args, F) - eps.compute_control(*args, np.zeros(6))
    assert_close(diff_eps, diff, atol=1e-4 * np.abs(diff).max())


def test_singularity_guard_drops_the_feedforward(models: tuple) -> None:
    mj, pm = models
    ctrl = _ctrl(pm)
    q = np.zeros(7)  # FR3 stretched out (joint 4 at 0 is outside its range but kinematically fine)
    T, J, _ = _kin(pm, q, np.zeros(7))
    assert np.sqrt(max(np.linalg.det(J @ J.T), 0.0)) < 0.01
    tau = ctrl.compute_control(q, np.zeros(7), T, np.ones(6), np.ones(6), np.zeros(6))
    assert ctrl.feedforward_dropped and np.all(np.isfinite(tau))
    q, _ = _sample(mj, np.random.default_rng(7))
    T, _, _ = _kin(pm, q, np.zeros(7))
    ctrl.compute_control(q, np.zeros(7), T, np.ones(6), np.ones(6), np.zeros(6))
    assert not ctrl.feedforward_dropped
