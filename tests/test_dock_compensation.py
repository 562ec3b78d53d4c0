"""Tool-load compensation in the loop, and ``--calibrate``, checked from telemetry."""

from __future__ import annotations

import dataclasses

import mujoco
import numpy as np

from mjscope.dock.calibrate import calibrate
from mjscope.dock.config import FtCfg
from mjscope.dock.env import MujocoEnv
from mjscope.dock.loop import Probe
from mjscope.dock.perturb import TrialScene
from mjscope.dock.run_docking import run_simulation
from mjscope.dock.scene import Scene, load_scene
from mjscope.dock.stages import build_compensator
from tests.utils import assert_close

BIAS = (0.5, -0.3, 0.2, 0.01, -0.02, 0.005)


def test_free_space_wrench_is_compensated_at_full_approach_speed() -> None:
    """Before contact the raw reading carries the tool's inertia (≈ 24 N on the tilted start);
    the compensated wrench stays ≤ 0.5 N (measured: ~1e-13 N)."""
    result = run_simulation("iiwa14_docking_tilted", "hqp", duration=1.7)
    a = result.log.arrays()
    assert a["contact_force"].max() == 0.0  # free space throughout
    raw = np.linalg.norm(a["wrench_raw"][:, :3], axis=1)
    comp = np.linalg.norm(a["wrench"][:, :3], axis=1)
    speed = np.linalg.norm(np.diff(a["eef_pos"], axis=0), axis=1) / 1e-3
    assert speed.max() > 0.01  # the approach really ran at speed [m/s]
    assert raw.max() > 10.0
    assert comp.max() <= 0.5
    assert np.abs(a["wrench"][:, 3:]).max() <= 0.05  # moments too [N·m]


def test_compensated_wrench_is_a_known_external_wrench_while_the_arm_moves() -> None:
    """A constant ``xfrc_applied`` on the tool during an accelerating motion, with a sensor
    bias: the compensated wrench is that external wrench moved to the tip (sign checked)."""
    base = load_scene("iiwa14_docking")
    sc = Scene(dataclasses.replace(base.cfg, ft=FtCfg(bias=BIAS)))
    mj, pm = sc.build_models()
    env = MujocoEnv(mj, sc.initial_q(mj), 0.001)
    probe = Probe(env, sc, build_compensator(sc, pm))
    tool = mj.body("tool").id
    f_ext, t_ext = np.array([3.0, -2.0, 5.0]), np.array([0.1, 0.2, -0.02])
    env.data.xfrc_applied[tool] = np.r_[f_ext, t_ext]
    q, v = env.data.qpos.copy(), env.data.qvel.copy()
    q_home = q.copy()
    worst, raw_dev = 0.0, 0.0
    for k in range(200):
        tau = 300.0 * (q_home + 0.2 * np.sin(0.01 * k + np.arange(7)) - q) - 30.0 * v  # PD
        q_prev, v_prev = q, v
        q, v, _ = env.step(tau)
        comp, raw = probe.wrenches(q_prev, v_prev, v)
        _, _, comp2, raw2, _ = probe.sense(q_prev, v_prev, v)  # the loop's fused form
        assert_close(comp2, comp, atol=1e-12, what="sense: compensated")
        assert_close(raw2, raw, atol=1e-12, what="sense: raw")
        # the reading is of the state before the step: the CoM and tip where they were then
        d = mujoco.MjData(mj)
        d.qpos[:] = q_prev
        mujoco.mj_kinematics(mj, d)
        p_eef = d.site_xpos[mj.site("eef").id]
        r = d.xipos[tool] - p_eef  # lever from the tip to the point of application
        expected = np.r_[f_ext, t_ext + np.cross(r, f_ext)]
        worst = max(worst, float(np.abs(comp - expected).max()))
        raw_dev = max(raw_dev, float(np.abs(raw - expected).max()))
    assert worst < 1e-8  # at 15 rad/s of wrist speed too
    assert raw_dev > 0.5  # without compensation the bias and the inertia show


def test_calibrate_identifies_a_heavier_tool_and_an_unknown_bias() -> None:
    """The plant's tool weighs 0.4 kg, the scene says 0.3; the bias is only in the plant's
    sensor: least squares finds both, the com and the residual drop to ~0."""
    base = load_scene("iiwa14_docking")
    belief = dataclasses.replace(base.cfg, ft=FtCfg(bias=BIAS))
    plant = dataclasses.replace(belief, tool=dataclasses.replace(belief.tool, mass=0.4))
    cal = calibrate(TrialScene(belief, plant), duration=1.0)
    ident = cal.identified
    assert abs(ident.mass - 0.4) < 1e-6
    assert_close(ident.com, np.array([0.0, 0.0, 0.05]), atol=1e-6)
    assert_close(ident.bias, np.array(BIAS), atol=1e-6)
    assert cal.residual_identified < 1e-6 < 0.05 < cal.residual_scene  # 0.1 kg × acceleration
    rows = {q: (a, b) for q, a, b, _ in cal.rows()}
    assert rows["mass"][1] == 0.3 and abs(rows["mass"][0] - 0.4) < 1e-6
