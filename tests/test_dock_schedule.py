"""Stiffness/damping schedules from the scene YAML: interpolation, each controller, the loop."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mjscope.dock.config import ScheduleCfg
from mjscope.dock.env import MujocoEnv
from mjscope.dock.metrics import compute_metrics
from mjscope.dock.run_docking import build_controller, build_reference, run_simulation
from mjscope.dock.scene import Scene, load_scene
from mjscope.dock.scene_checks import validate
from mjscope.dock.stages import GainSchedule
from mjscope.exceptions import ConfigError


def test_schedule_interpolates_and_holds_at_the_ends() -> None:
    s = GainSchedule((1.0, 2.0), (1.0, 0.25), (1.0, 0.5))
    assert s.at(0.0) == (1.0, 1.0) and s.at(1.5) == (0.625, 0.75) and s.at(9.0) == (0.25, 0.5)


@pytest.mark.parametrize("name", ["cic", "se3_lie", "hqp"])
def test_set_gain_scale_equals_a_controller_built_with_scaled_gains(name: str) -> None:
    """Scaling stiffness by 0.3 and damping by 0.6 at run time gives the torque of a
    controller whose scene gains were scaled so (hqp: once its adaptation has settled)."""
    sc = load_scene("iiwa14_docking")
    mj, pm = sc.build_models()
    q0 = sc.initial_q(mj)
    imp, se3 = sc.cfg.controller.impedance, sc.cfg.controller.se3_impedance
    kd = (
        tuple(0.6 * 2 * np.sqrt(k) for k in imp.kp_pos),
        tuple(0.6 * 2 * np.sqrt(k) for k in imp.kp_rot),
    )
    scaled = dataclasses.replace(sc.cfg.controller, impedance=dataclasses.replace(
        imp, kp_pos=tuple(0.3 * k for k in imp.kp_pos), kp_rot=tuple(0.3 * k for k in imp.kp_rot),
        kd_pos=kd[0], kd_rot=kd[1]), se3_impedance=dataclasses.replace(
        se3, kp_pos=tuple(0.3 * k for k in se3.kp_pos), kp_rot=tuple(0.3 * k for k in se3.kp_rot),
        kd_pos=kd[0], kd_rot=kd[1]))  # fmt: skip
    other = Scene(dataclasses.replace(sc.cfg, controller=scaled))
    a, b = build_controller(name, sc, pm, q0), build_controller(name, other, pm, q0)
    a.reset()
    b.reset()
    a.set_gain_scale(0.3, 0.6)  # type: ignore[attr-defined]
    ref = build_reference(sc, *MujocoEnv(mj, q0).eef_pose())(0.5)
    q, v = q0 + 0.05, np.full(7, 0.1)
    for _ in range(2000 if name == "hqp" else 0):  # hqp: kp moves to the new nominal
        a.compute(q, v, ref, np.zeros(6))
    if name != "se3_lie":
        a.integral[:] = 0.0  # type: ignore[attr-defined]  # (the settling calls wound it up)
    ta = a.compute(q, v, ref, np.zeros(6))
    tb = b.compute(q, v, ref, np.zeros(6))
    np.testing.assert_allclose(ta, tb, rtol=1e-6, atol=1e-9)


def test_a_softer_stiffness_after_contact_lowers_the_steady_force() -> None:
    """iiwa14_docking presses with ≈ 6.8 N from a 2 mm reference overshoot; stiffness × 0.25
    from 3.4 s on (damping × 0.5) presses ≈ 4× less, for every controller."""
    base = load_scene("iiwa14_docking")
    sched = ScheduleCfg(times=(3.3, 3.4), stiffness=(1.0, 0.25))
    sc = Scene(dataclasses.replace(base.cfg, controller=dataclasses.replace(
        base.cfg.controller, schedule=sched)))  # fmt: skip
    for name in ("cic", "hqp"):
        f = compute_metrics(run_simulation(sc, name).log, sc, name)["steady_state_force"]
        f0 = compute_metrics(run_simulation(base, name).log, base, name)["steady_state_force"]
        assert 0.2 < f / f0 < 0.35, (name, f, f0)


@pytest.mark.parametrize(
    ("sched", "match"),
    [
        (ScheduleCfg((0.0, 1.0), (1.0,)), "one stiffness"),
        (ScheduleCfg((1.0, 0.5), (1.0, 1.0)), "must increase"),
        (ScheduleCfg((0.0,), (0.0,)), "must be > 0"),
    ],
)
def test_bad_schedules_are_one_line_errors(sched: ScheduleCfg, match: str) -> None:
    base = load_scene("iiwa14_docking").cfg
    cfg = dataclasses.replace(base, controller=dataclasses.replace(base.controller, schedule=sched))
    with pytest.raises(ConfigError, match=match):
        validate(cfg, "s.yaml")
