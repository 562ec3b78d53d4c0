"""CIC: Jacobian and J̇ against finite differences and MuJoCo, and the operational-space law."""

from __future__ import annotations

import dataclasses

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from mjscope.control.controllers import CartesianImpedanceController, CicGains
from mjscope.control.controllers.cic import sym_solve
from mjscope.control.lie import orientation_error, so3_exp
from mjscope.control.planners import MotionReference
from mjscope.dock.scene import load_scene
from tests.utils import assert_close


@pytest.fixture(scope="module")
def setup() -> tuple:
    sc = load_scene("fr3_docking")  # armature present: M ≠ its armature-free version
    mj, pm = sc.build_models()
    gains = CicGains.from_cfg(sc.cfg.controller.impedance)
    return sc, mj, pm, gains


def _ctrl(pm: object, gains: CicGains, q_null: np.ndarray) -> CartesianImpedanceController:
    return CartesianImpedanceController(pm, "eef", gains, q_null, 0.001)


def _sample(mj: mujoco.MjModel, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    q = rng.uniform(mj.jnt_range[:, 0] + 0.2, mj.jnt_range[:, 1] - 0.2)
    return q, rng.uniform(-1.0, 1.0, mj.nv)


def test_jacobian_against_finite_differences_and_mujoco(setup: tuple) -> None:
    _, mj, pm, gains = setup
    ctrl = _ctrl(pm, gains, np.zeros(7))
    rng = np.random.default_rng(0)
    d = mujoco.MjData(mj)
    for _ in range(5):
        q, v = _sample(mj, rng)
        oMf, J, _ = ctrl.kinematics(q, v)
        p0, R0 = oMf.translation.copy(), oMf.rotation.copy()
        h = 1e-7
        oMf2, _, _ = ctrl.kinematics(q + h * v, v)
        lin = (oMf2.translation - p0) / h
        ang = orientation_error(oMf2.rotation, R0) / h  # world-frame angular velocity
        assert_close(J @ v, np.concatenate([lin, ang]), atol=2e-6)
        d.qpos[:] = q
        mujoco.mj_forward(mj, d)
        jp, jr = np.zeros((3, 7)), np.zeros((3, 7))
        mujoco.mj_jacSite(mj, d, jp, jr, mj.site("eef").id)
        assert_close(J, np.vstack([jp, jr]), atol=1e-12)


def test_jacobian_time_derivative_against_finite_differences(setup: tuple) -> None:
    _, mj, pm, gains = setup
    ctrl = _ctrl(pm, gains, np.zeros(7))
    rng = np.random.default_rng(1)
    for _ in range(5):
        q, v = _sample(mj, rng)
        h = 1e-6
        _, J_plus, _ = ctrl.kinematics(q + h * v, v)
        _, J_minus, _ = ctrl.kinematics(q - h * v, v)
        _, _, dJ = ctrl.kinematics(q, v)
        assert_close(dJ, (J_plus - J_minus) / (2 * h), atol=1e-7)


def _reference(p: np.ndarray, R: np.ndarray, vel: np.ndarray, acc: np.ndarray) -> MotionReference:
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return MotionReference(T, np.zeros(6), np.zeros(6), p, vel, acc, R, 0)


def test_task_acceleration_follows_the_impedance_law(setup: tuple) -> None:
    """Khatib decoupling: J q̈ + J̇ v = u, whatever the null-space posture term adds."""
    _, mj, pm, gains = setup
    rng = np.random.default_rng(2)
    pd = pm.createData()
    for _ in range(5):
        q, v = _sample(mj, rng)
        exact = dataclasses.replace(gains, damping=0.0)  # no Λ regularisation: exact decoupling
        ctrl = _ctrl(pm, exact, q + rng.normal(size=7) * 0.3)
        oMf, J, dJ = ctrl.kinematics(q, v)
        p, R = oMf.translation.copy(), oMf.rotation.copy()
        ref = _reference(p + rng.normal(size=3) * 0.01, so3_exp(rng.normal(size=3) * 0.05) @ R,
                         rng.normal(size=3) * 0.1, rng.normal(size=3))  # fmt: skip
        tau = ctrl.compute(q, v, ref, np.zeros(6))
        e = np.concatenate([ref.pos - p, orientation_error(ref.rot, R)])
        u = gains.kp * e + gains.kd * (np.concatenate([ref.vel, np.zeros(3)]) - J @ v)
        integral = np.clip(e[:3] * 0.001, -gains.i_limit, gains.i_limit)
        u[:3] += ref.acc + gains.ki * integral
        qdd = pin.aba(pm, pd, q, v, tau)
        assert_close(J @ qdd + dJ @ v, u, atol=1e-8, rtol=1e-8)


def test_at_rest_on_target_outputs_zero(setup: tuple) -> None:
    _, mj, pm, gains = setup
    q = np.array(mj.key("home").qpos)
    ctrl = _ctrl(pm, gains, q)
    oMf, _, _ = ctrl.kinematics(q, np.zeros(7))
    ref = _reference(oMf.translation.copy(), oMf.rotation.copy(), np.zeros(3), np.zeros(3))
    assert_close(ctrl.compute(q, np.zeros(7), ref, np.zeros(6)), np.zeros(7), atol=1e-10)


def test_integral_is_clamped_and_reset(setup: tuple) -> None:
    _, mj, pm, gains = setup
    q = np.array(mj.key("home").qpos)
    ctrl = _ctrl(pm, gains, q)
    oMf, _, _ = ctrl.kinematics(q, np.zeros(7))
    ref = _reference(oMf.translation + 0.5, oMf.rotation.copy(), np.zeros(3), np.zeros(3))
    for _ in range(100):
        ctrl.compute(q, np.zeros(7), ref, np.zeros(6))
    assert_close(ctrl.integral, np.full(3, gains.i_limit))
    ctrl.reset()
    assert_close(ctrl.integral, np.zeros(3))


def test_gains_defaults_and_scaling(setup: tuple) -> None:
    sc, _, _, gains = setup
    cfg = sc.cfg.controller.impedance
    assert_close(gains.kd[:3], 2.0 * np.sqrt(cfg.kp_pos))
    weak = gains.scaled(0.01)
    assert_close(weak.kp, gains.kp * 0.01)
    assert weak.kp_null == pytest.approx(gains.kp_null * 0.01)


def test_sym_solve() -> None:
    rng = np.random.default_rng(3)
    B = rng.normal(size=(6, 6))
    A = B @ B.T + np.eye(6)
    b = rng.normal(size=6)
    assert_close(sym_solve(np.triu(A), b), np.linalg.solve(A, b), atol=1e-12)  # upper read
    # Indefinite saddle point [[M, Jᵀ], [J, −εI]] (the CIC's system), given as its upper part.
    M, J = A[:4, :4], rng.normal(size=(2, 4))
    K = np.block([[M, J.T], [J, -1e-6 * np.eye(2)]])
    assert_close(sym_solve(np.triu(K), b), np.linalg.solve(K, b), atol=1e-10)
    S = np.diag([1.0, 0.0, 2.0])  # singular: the least-squares fallback
    assert_close(sym_solve(S, np.ones(3)), [1.0, 0.0, 0.5], atol=1e-12)
