"""HQP-AC: impedance accelerations, hard limits in simulation, adaptation, priorities, fallback."""

from __future__ import annotations

import dataclasses

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from mjscope.control.controllers import CartesianImpedanceController, CicGains
from mjscope.control.controllers.hqp import (
    HqpController,
    HqpGains,
    JointLimits,
    manipulability_gradient,
)
from mjscope.control.lie import orientation_error, so3_exp
from mjscope.control.observer import known_dissipation
from mjscope.control.planners import MotionReference
from mjscope.dock.scene import load_scene
from mjscope.exceptions import ConfigError
from tests.utils import assert_close

DT = 0.001


@pytest.fixture(scope="module")
def setup() -> tuple:
    sc = load_scene("iiwa14_track_circle")  # no dock: free motion
    mj, pm = sc.build_models()
    return sc, mj, pm


def _ctrl(sc, mj, pm, q_null=None, **kwargs) -> HqpController:
    gains = HqpGains.from_cfg(sc.cfg.controller.impedance, sc.cfg.controller.hqp)
    gains = dataclasses.replace(gains, **kwargs.pop("gains", {}))
    lim_kw = kwargs.pop("limits", {})
    limits = JointLimits.from_model(pm, mj.actuator_ctrlrange[:, 1], **lim_kw)
    q_null = sc.initial_q(mj) if q_null is None else q_null
    return HqpController(pm, "eef", gains, limits, q_null, DT, **kwargs)


def _reference(p, R, vel=None, acc=None) -> MotionReference:
    vel = np.zeros(3) if vel is None else vel
    acc = np.zeros(3) if acc is None else acc
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return MotionReference(T, np.zeros(6), np.zeros(6), p, vel, acc, R, 0)


def _kin(pm, q, v) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    d = pm.createData()
    fid = pm.getFrameId("eef")
    pin.computeJointJacobiansTimeVariation(pm, d, q, v)
    pin.updateFramePlacement(pm, d, fid)
    lwa = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
    J = pin.getFrameJacobian(pm, d, fid, lwa).copy()
    dJ = pin.getFrameJacobianTimeVariation(pm, d, fid, lwa).copy()
    return d.oMf[fid].translation.copy(), d.oMf[fid].rotation.copy(), J, dJ


def test_free_target_matches_the_impedance_law(setup: tuple) -> None:
    sc, mj, pm = setup
    rng = np.random.default_rng(0)
    pd = pm.createData()
    q0 = sc.initial_q(mj)
    for _ in range(5):
        ctrl = _ctrl(sc, mj, pm, limits={"a_max": 1e4, "v_max": 10.0})  # no limit active
        q, v = q0 + rng.normal(size=7) * 0.1, rng.normal(size=7) * 0.2
        p, R, J, dJ = _kin(pm, q, v)
        ref = _reference(p + rng.normal(size=3) * 0.01, so3_exp(rng.normal(size=3) * 0.05) @ R,
                         rng.normal(size=3) * 0.1, rng.normal(size=3))  # fmt: skip
        tau = ctrl.compute(q, v, ref, np.zeros(6))
        assert ctrl.stats["level1_infeasible"] == 0 and ctrl.stats["level2_failed"] == 0
        g = ctrl.gains
        e = np.concatenate([ref.pos - p, orientation_error(ref.rot, R)])
        u = g.kp * e + g.kd * (np.concatenate([ref.vel, np.zeros(3)]) - J @ v)
        u[:3] += ref.acc + g.ki * np.clip(e[:3] * DT, -g.i_limit, g.i_limit)
        qdd = pin.aba(pm, pd, q, v, tau)  # what the torque really does
        assert_close(qdd, ctrl.qdd, atol=1e-9, what="predicted vs forward dynamics")
        assert_close(J @ qdd + dJ @ v, u, atol=1e-6, rtol=1e-6, what="task acceleration")


def test_level2_keeps_level1_task_acceleration(setup: tuple) -> None:
    sc, mj, pm = setup
    rng = np.random.default_rng(1)
    q0 = sc.initial_q(mj)
    moved = 0
    for _ in range(5):
        q, v = q0 + rng.normal(size=7) * 0.1, rng.normal(size=7) * 0.2
        p, R, J, _ = _kin(pm, q, v)
        ref = _reference(p + rng.normal(size=3) * 0.01, R)
        on = _ctrl(sc, mj, pm, q_null=q + rng.normal(size=7) * 0.5, gains={"k_sing": 2.0})
        off = _ctrl(sc, mj, pm, q_null=q, gains={"kp_null": 0.0, "kd_null": 0.0})
        on.compute(q, v, ref, np.zeros(6))
        off.compute(q, v, ref, np.zeros(6))
        assert_close(J @ on.qdd, J @ on.qdd1, atol=1e-6, what="level-1 task acceleration")
        assert_close(J @ on.qdd, J @ off.qdd, atol=1e-6)
        moved += int(np.linalg.norm(on.qdd - off.qdd) > 1e-2)  # level 2 did move the null space
    assert moved == 5


def test_manipulability_gradient_against_finite_differences(setup: tuple) -> None:
    sc, mj, pm = setup
    d = pm.createData()
    fid = pm.getFrameId("eef")

    def jb(q: np.ndarray) -> np.ndarray:
        return pin.computeFrameJacobian(pm, d, q, fid, pin.ReferenceFrame.LOCAL).copy()

    rng = np.random.default_rng(2)
    for _ in range(5):
        q = sc.initial_q(mj) + rng.normal(size=7) * 0.3
        w, grad = manipulability_gradient(jb(q))
        assert w == pytest.approx(np.sqrt(np.linalg.det(jb(q) @ jb(q).T)))
        fd = np.zeros(7)
        for i in range(7):
            dq = np.zeros(7)
            dq[i] = 1e-6
            wp, _ = manipulability_gradient(jb(q + dq))
            wm, _ = manipulability_gradient(jb(q - dq))
            fd[i] = (np.log(wp) - np.log(wm)) / 2e-6
        assert_close(grad, fd, atol=1e-6, rtol=1e-5)


def _simulate(mj, ctrl, q0, ref, n: int) -> dict[str, np.ndarray]:
    d = mujoco.MjData(mj)
    d.qpos[:] = q0
    mujoco.mj_forward(mj, d)
    out: dict[str, list] = {"q": [], "v": [], "tau": [], "qacc": []}
    for _ in range(n):
        tau = ctrl.compute(d.qpos.copy(), d.qvel.copy(), ref, np.zeros(6))
        v_before = d.qvel.copy()
        d.ctrl[:] = tau
        mujoco.mj_step(mj, d)
        out["q"].append(d.qpos.copy())
        out["v"].append(d.qvel.copy())
        out["tau"].append(tau)
        out["qacc"].append((d.qvel - v_before) / DT)
    return {k: np.array(x) for k, x in out.items()}


def test_limits_hold_at_every_step_where_cic_breaks_them(setup: tuple) -> None:
    sc, mj, pm = setup
    q0 = sc.initial_q(mj)
    p, R, _, _ = _kin(pm, q0, np.zeros(7))
    ref = _reference(p + np.array([0.0, 0.25, -0.1]), R)  # far: CIC would rush there
    tau_max = np.array(mj.actuator_ctrlrange[:, 1]) * 0.1
    v_max, a_max = 0.6, 30.0
    q_min, q_max = pm.lowerPositionLimit.copy(), pm.upperPositionLimit.copy()
    q_max[0] = q0[0] + 0.15  # the move turns joint 1 towards +: a position limit on the way
    limits = JointLimits(q_min, q_max, np.full(7, v_max), np.full(7, a_max), tau_max, margin=0.0)
    gains = HqpGains.from_cfg(sc.cfg.controller.impedance, sc.cfg.controller.hqp)
    hqp = HqpController(pm, "eef", gains, limits, q0, DT)
    tol = 1e-6  # the QP's feasibility tolerance
    run = _simulate(mj, hqp, q0, ref, 600)
    assert np.all(np.abs(run["tau"]) <= tau_max + tol)
    assert np.all(np.abs(run["v"]) <= v_max + tol)
    assert np.all(np.abs(run["qacc"]) <= a_max + 1e-4)  # finite-difference of v
    assert np.all(run["q"] <= q_max + tol) and np.all(run["q"] >= q_min - tol)
    assert run["q"][:, 0].max() > q_max[0] - 0.01  # the position limit was reached ...
    assert np.abs(run["v"]).max() > 0.95 * v_max  # ... and the velocity limit
    assert hqp.stats["level1_infeasible"] == 0 and hqp.stats["hold"] == 0
    # The same target under CIC (torque clamped as the loop does) breaks the limits.
    cic = CartesianImpedanceController(pm, "eef", CicGains.from_cfg(sc.cfg.controller.impedance),
                                       q0, DT)  # fmt: skip
    d = mujoco.MjData(mj)
    d.qpos[:] = q0
    mujoco.mj_forward(mj, d)
    v_peak, q1_peak, tau_raw = 0.0, -np.inf, 0.0
    for _ in range(600):
        tau = cic.compute(d.qpos.copy(), d.qvel.copy(), ref, np.zeros(6))
        tau_raw = max(tau_raw, float(np.max(np.abs(tau) / tau_max)))
        d.ctrl[:] = np.clip(tau, -tau_max, tau_max)
        mujoco.mj_step(mj, d)
        v_peak, q1_peak = max(v_peak, float(np.abs(d.qvel).max())), max(q1_peak, d.qpos[0])
    assert tau_raw > 1.0 and v_peak > v_max and q1_peak > q_max[0]


def test_stiffness_softens_under_a_push_and_recovers(setup: tuple) -> None:
    sc, mj, pm = setup
    q = sc.initial_q(mj)
    p, R, _, _ = _kin(pm, q, np.zeros(7))
    ref = _reference(p, R)
    ctrl = _ctrl(sc, mj, pm)
    g = ctrl.gains
    k_nom = ctrl.kp.copy()
    push = np.array([0.0, 0.0, -30.0, 0.0, 0.0, 0.0])  # beyond force_sat along z
    n_soft = round(g.t_soften / DT)
    for _ in range(n_soft):
        ctrl.compute(q, np.zeros(7), ref, push)
    # One time constant: 63 % of the way to k_min along z, nothing on the other axes.
    assert ctrl.kp[2] == pytest.approx(k_nom[2] - 0.632 * (k_nom[2] - g.kp_min), rel=0.01)
    assert_close(np.delete(ctrl.kp, 2), np.delete(k_nom, 2))
    for _ in range(10 * n_soft):
        ctrl.compute(q, np.zeros(7), ref, push)
    assert ctrl.kp[2] == pytest.approx(g.kp_min, rel=1e-3)
    assert ctrl.kd[2] == pytest.approx(g.kd[2] * np.sqrt(g.kp_min / k_nom[2]), rel=1e-3)
    half = push * 0.5  # between the dead band and saturation: a stiffness in between, reached
    for _ in range(round(10 * g.t_restore / DT)):  # from below, with the restoring constant
        ctrl.compute(q, np.zeros(7), ref, half)
    sigma = (15.0 - g.force_dead) / (g.force_sat - g.force_dead)
    assert ctrl.kp[2] == pytest.approx(k_nom[2] - sigma * (k_nom[2] - g.kp_min), rel=1e-3)
    for _ in range(round(10 * g.t_restore / DT)):  # released: back to nominal, slower
        ctrl.compute(q, np.zeros(7), ref, np.zeros(6))
    assert_close(ctrl.kp, k_nom, rtol=1e-3)
    assert np.all(ctrl.kp >= g.kp_min) and np.all(ctrl.kp <= g.kp_max)


def test_preload_adds_the_tool_axis_force(setup: tuple) -> None:
    sc, mj, pm = setup
    q = sc.initial_q(mj)
    p, R, J, _ = _kin(pm, q, np.zeros(7))
    ref = _reference(p, R)
    with_pre = _ctrl(sc, mj, pm, preload_force=5.0)
    without = _ctrl(sc, mj, pm)
    contact = np.concatenate([-5.0 * R[:, 2], np.zeros(3)])  # the socket pushes back
    for _ in range(400):
        t1 = with_pre.compute(q, np.zeros(7), ref, contact)
        t0 = without.compute(q, np.zeros(7), ref, contact)
    assert with_pre.preload_activation == pytest.approx(1.0, abs=1e-6)
    assert_close(t1 - t0, J.T @ np.concatenate([5.0 * R[:, 2], np.zeros(3)]), atol=1e-5)
    t_free = with_pre.compute(q, np.zeros(7), ref, np.zeros(6))  # contact lost: preload fades
    assert with_pre.preload_activation < 1.0 and np.all(np.isfinite(t_free))


def test_infeasible_state_takes_the_fallback_and_counts_it(setup: tuple) -> None:
    sc, mj, pm = setup
    q = sc.initial_q(mj)
    p, R, _, _ = _kin(pm, q, np.zeros(7))
    ctrl = _ctrl(sc, mj, pm, limits={"v_max": 0.5})
    v = np.zeros(7)
    v[3] = 3.0  # far above the velocity limit: braking to 0.5 rad/s needs > the torque limit
    tau = ctrl.compute(q, v, _reference(p, R), np.zeros(6))
    assert ctrl.stats["level1_infeasible"] == 1 and ctrl.stats["task_yield"] == 1
    assert ctrl.stats["hold"] == 0
    assert np.all(np.isfinite(tau))
    assert np.all(np.abs(tau) <= mj.actuator_ctrlrange[:, 1] + 1e-6)
    assert np.abs(tau[3]) == pytest.approx(mj.actuator_ctrlrange[3, 1], rel=1e-6)  # brakes hard


def test_observer_force_source_and_config(setup: tuple) -> None:
    sc, mj, pm = setup
    q = sc.initial_q(mj)
    p, R, J, _ = _kin(pm, q, np.zeros(7))
    cfg = dataclasses.replace(sc.cfg.controller, hqp=dataclasses.replace(
        sc.cfg.controller.hqp, force_source="observer", preload_force=2.0))  # fmt: skip
    ctrl = HqpController.from_cfg(pm, cfg, mj.actuator_ctrlrange[:, 1], q, DT, v_max=1.5)
    assert ctrl.name == "hqp" and ctrl.force_source == "observer" and ctrl.preload_force == 2.0
    assert ctrl.observer is not None
    assert ctrl.observer.gain[0] == sc.cfg.controller.hqp.observer_gain
    tau_ext = J.T @ np.array([1.0, -2.0, 3.0, 0.1, 0.0, -0.1])
    ctrl.observe(q, np.zeros(7), np.zeros(7))  # initialises
    for _ in range(300):  # at rest with an external torque: the momentum balance sees it
        ctrl.observe(q, np.zeros(7), -tau_ext)
    ctrl.compute(q, np.zeros(7), _reference(p, R), np.full(6, 99.0))  # F_ext is ignored
    assert_close(ctrl.F_used, [1.0, -2.0, 3.0, 0.1, 0.0, -0.1], atol=1e-4)
    with pytest.raises(ConfigError, match="force_source 'ft'"):
        _ctrl(sc, mj, pm, force_source="ft")


def test_observer_source_in_closed_loop_with_friction() -> None:
    """FR3 with joint friction, a steady push on the tool: the observer-fed HQP sees the push
    (within 2 %), softens along it, and the F_ext argument (a wrong sensor) is never used."""
    sc = load_scene("fr3_docking")
    mj, pm = sc.build_models()
    q0 = sc.initial_q(mj)
    cfg = dataclasses.replace(sc.cfg.controller, hqp=dataclasses.replace(
        sc.cfg.controller.hqp, force_source="observer"))  # fmt: skip
    ctrl = HqpController.from_cfg(pm, cfg, mj.actuator_ctrlrange[:, 1], q0, DT)
    d = mujoco.MjData(mj)
    d.qpos[:] = q0
    mujoco.mj_forward(mj, d)
    eef, tool = mj.site("eef").id, mj.body("tool").id
    ref = _reference(d.site_xpos[eef].copy(), d.site_xmat[eef].reshape(3, 3).copy())
    push = np.array([8.0, 0.0, 0.0, 0.0, 0.0, 0.0])  # at the tool's centre of mass, world
    ctrl.observe(d.qpos.copy(), d.qvel.copy(), np.zeros(7))
    for _ in range(1500):
        tau = ctrl.compute(d.qpos.copy(), d.qvel.copy(), ref, np.full(6, 50.0))
        d.ctrl[:] = tau
        d.xfrc_applied[tool] = push
        mujoco.mj_step(mj, d)
        ctrl.observe(d.qpos.copy(), d.qvel.copy(), tau, known_dissipation(mj, d))
    moment = np.cross(d.xipos[tool] - d.site_xpos[eef], push[:3])  # about the tool tip
    expected = np.concatenate([push[:3], moment])
    assert np.linalg.norm(ctrl.F_used - expected) <= 0.02 * np.linalg.norm(expected)
    g = ctrl.gains
    sigma = (8.0 - g.force_dead) / (g.force_sat - g.force_dead)
    k_nom = ctrl.adaptation.k_nom
    assert ctrl.kp[0] == pytest.approx(k_nom[0] - sigma * (k_nom[0] - g.kp_min), rel=0.02)
    assert ctrl.kp[1] == pytest.approx(k_nom[1])
    assert ctrl.stats["steps"] == 1500 and ctrl.stats["level1_infeasible"] == 0


def test_torque_rate_limit_and_optional_config_fields(setup: tuple) -> None:
    sc, mj, pm = setup
    q0 = sc.initial_q(mj)
    p, R, _, _ = _kin(pm, q0, np.zeros(7))
    hq = dataclasses.replace(sc.cfg.controller.hqp, torque_rate_limit=2000.0)
    extra = type("Hq", (), {**vars(hq), "velocity_limit": 0.7, "position_margin": 0.05,
                            "brake_acceleration": 5.0, "acceleration_limit": 40.0,
                            "t_soften": 0.05})  # fmt: skip
    cfg = type("Cfg", (), {"impedance": sc.cfg.controller.impedance, "hqp": extra})
    ctrl = HqpController.from_cfg(pm, cfg, mj.actuator_ctrlrange[:, 1], q0, DT)
    lim = ctrl.limits
    assert lim.tau_rate == 2000.0 and lim.margin == 0.05 and lim.brake_acc == 5.0
    assert np.all(lim.v_max == 0.7) and np.all(lim.a_max == 40.0) and ctrl.gains.t_soften == 0.05
    run = _simulate(mj, ctrl, q0, _reference(p + np.array([0.1, 0.1, 0.0]), R), 200)
    steps = np.abs(np.diff(run["tau"], axis=0)).max(axis=1)  # the first torque is free
    broken = int(np.sum(steps > 2000.0 * DT + 1e-6))  # |Δτ| ≤ ρ Δt, except where ...
    assert broken <= ctrl.stats["level1_infeasible"] <= 5  # ... it yielded to a joint limit
    assert np.sum(steps > 0.9 * 2000.0 * DT) >= 10  # the rate limit was active
    assert np.all(np.abs(run["v"]) <= 0.7 + 1e-6)  # the velocity limit never yields


def test_observer_shares_its_dynamics_with_the_controller() -> None:
    """Fed the very arrays the observer was just updated with, ``compute`` reuses its ``M``
    and ``h``; the torque equals the one computed from scratch (copies of the same state)."""
    sc = load_scene("fr3_docking")
    mj, pm = sc.build_models()
    q0 = sc.initial_q(mj)
    cfg = dataclasses.replace(sc.cfg.controller, hqp=dataclasses.replace(
        sc.cfg.controller.hqp, force_source="observer"))  # fmt: skip
    a, b = (HqpController.from_cfg(pm, cfg, mj.actuator_ctrlrange[:, 1], q0, DT) for _ in "ab")
    p, R, _, _ = _kin(pm, q0, np.zeros(7))
    ref = _reference(p + np.array([0.01, -0.02, 0.01]), R)
    rng = np.random.default_rng(1)
    for _ in range(20):
        q = q0 + rng.uniform(-0.1, 0.1, 7)
        v = rng.uniform(-0.5, 0.5, 7)
        tau = rng.normal(size=7)
        for c in (a, b):
            c.observe(q, v, tau)
        assert a.observer is not None and a.observer.q_last is q  # the shared path's condition
        shared = a.compute(q, v, ref, np.zeros(6))  # same arrays: M, h from the observer
        fresh = b.compute(q.copy(), v.copy(), ref, np.zeros(6))  # copies: recomputed
        assert_close(shared, fresh, atol=1e-9)
