"""Joint limits checked from telemetry: hqp holds them on every bundled scene; the loop's
torque-rate limit for cic/se3_lie; the checker itself on synthetic data."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from mjscope.dock.limits import RTOL, LimitSet, check_limits, scene_limits
from mjscope.dock.metrics import compute_metrics
from mjscope.dock.run_docking import quick_duration, run_simulation
from mjscope.dock.scene import Scene, load_scene, scene_names


def _limits(nv: int = 2) -> LimitSet:
    one = np.ones(nv)
    return LimitSet(-one, one, 2 * one, 10 * one, 5 * one, 1000.0)


def test_checker_counts_each_kind_beyond_the_relative_tolerance() -> None:
    n, dt = 5, 0.001
    q, v, tau = np.zeros((n, 2)), np.zeros((n, 2)), np.zeros((n, 2))
    q[1, 0] = 1.0 + 2 * RTOL  # position: just beyond
    q[2, 1] = -1.0 - 0.5 * RTOL  # inside the tolerance
    v[3, 1] = 2.0 * (1 + 2 * RTOL)  # velocity beyond; its step from v[2] is 2 / dt: acceleration
    tau[4, 0] = 5.0  # at the limit: saturated, not a violation
    m = check_limits({"q": q, "v": v, "tau": tau}, _limits(), dt)
    assert m["position_violations"] == 1 and m["velocity_violations"] == 1
    assert m["acceleration_violations"] == 2  # into and out of the velocity spike
    assert m["torque_violations"] == 0 and m["torque_saturated_steps"] == 1
    assert m["torque_rate_violations"] == 1  # 5 N·m in one period > 1000 N·m/s · 1 ms
    assert m["limit_violations"] == 3  # steps 1 (q), 2 (a: v2→v3), 3 (v; a: v3→v4; rate)
    assert math.isclose(m["joint_limit_margin"], -2 * RTOL, abs_tol=1e-12)


@pytest.mark.parametrize("name", scene_names())
def test_hqp_never_exceeds_its_limits_on_any_bundled_scene(name: str) -> None:
    """Position, velocity, acceleration and torque, per step from telemetry (1e-6 relative);
    the tilted and limits scenes drive the velocity and acceleration limits to 1.0 exactly,
    FR3's friction loss is a torque the QP cannot predict (its box shrinks by |M⁻¹| u)."""
    sc = load_scene(name)
    result = run_simulation(sc, "hqp", duration=quick_duration(sc))
    assert result.status == "ok"
    m = compute_metrics(result.log, sc, "hqp")
    bad = {k: m[k] for k in m if k.endswith("_violations") and m[k]}
    assert m["limit_violations"] == 0, bad
    assert result.controller_stats["steps"] == result.steps
    if name in ("iiwa14_docking_tilted", "iiwa14_limits"):
        assert m["velocity_ratio"] > 0.999 and m["acceleration_ratio"] > 0.999  # really active


def test_loop_torque_rate_limit_holds_for_cic_and_is_reported() -> None:
    """A step in orientation at t = 0 asks CIC for a torque jump; with a 2000 N·m/s limit the
    torque sent never changes faster, and the limited periods are counted."""
    base = load_scene("iiwa14_docking_tilted")
    imp = dataclasses.replace(base.cfg.controller.impedance, torque_rate_limit=2000.0)
    ctrl = dataclasses.replace(base.cfg.controller, impedance=imp)
    sc = Scene(dataclasses.replace(base.cfg, controller=ctrl))
    for name in ("cic", "se3_lie"):
        result = run_simulation(sc, name, duration=0.3)
        m = compute_metrics(result.log, sc, name)
        assert m["torque_rate_violations"] == 0
        assert m["torque_rate_ratio"] == pytest.approx(1.0, abs=1e-9)  # it did bind
        assert result.controller_stats["rate_limited"] > 10
        free = run_simulation(base, name, duration=0.3)
        assert compute_metrics(free.log, sc, name)["torque_rate_violations"] > 0  # it would jump


def test_scene_limits_come_from_the_model_and_the_hqp_section() -> None:
    sc = load_scene("iiwa14_limits")
    mj = sc.build_mjmodel()
    lim = scene_limits(mj, sc.cfg, "hqp")
    assert np.allclose(lim.q_max, mj.jnt_range[:7, 1]) and np.allclose(
        lim.q_min, mj.jnt_range[:7, 0]
    )
    assert np.allclose(lim.tau_max, mj.actuator_ctrlrange[:7, 1])
    assert np.all(lim.a_max == sc.cfg.controller.hqp.acceleration_limit)


def test_hqp_limits_hold_on_a_noisy_campaign_trial() -> None:
    """Trial 0 of the bundled campaign (F/T noise 0.2 N, a 0.36 kg tool against the model's
    0.3 kg, a start error at the acceleration limit) exceeded 50 rad/s² by 16 % before the
    scene declared ``hqp.wrench_uncertainty``; with it the box keeps the limits."""
    from mjscope.dock.campaign import TrialItem, plan, run_trial
    from mjscope.dock.campaign_plan import CampaignCmdCfg

    p = plan(CampaignCmdCfg(scene="iiwa14_docking_campaign", controllers=("hqp",)))
    row = run_trial(TrialItem(p.scene.cfg, p.campaign, 0, "hqp", None))
    assert row["limit_violations"] == 0 and row["success"]
    unguarded = dataclasses.replace(p.scene.cfg.controller.hqp, wrench_uncertainty=(0.0, 0.0))
    cfg = dataclasses.replace(p.scene.cfg, controller=dataclasses.replace(
        p.scene.cfg.controller, hqp=unguarded))  # fmt: skip
    assert run_trial(TrialItem(cfg, p.campaign, 0, "hqp", None))["limit_violations"] > 0
