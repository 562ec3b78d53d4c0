"""The ``--ctrl`` modes: seeded noise spans the control range."""

import numpy as np
import pytest

from mjscope.diagnose.controls import noise_source
from mjscope.models import load


def test_noise_scaled_to_ctrlrange():
    m = load("quadruped")
    block = noise_source(m, 2000, 0, 1.0)()
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    assert np.all(block >= lo) and np.all(block <= hi)
    assert np.all(block.max(axis=0) - block.min(axis=0) > 0.9 * (hi - lo))


def _fourbar_ctrl(tmp_path, spec, steps=400):
    from mjscope.diagnose import RolloutCfg, run_rollout

    csv = tmp_path / "c.csv"
    m = load("fourbar")
    res = run_rollout(m, RolloutCfg(steps=steps, ctrl=spec, csv=csv, block_rows=128))
    return m, res


def test_sine_is_amp_sin_2pi_hz_t_across_blocks(tmp_path):
    from mjscope.diagnose.controls import ControlPlan, parse_ctrl

    m = load("fourbar")
    import mujoco

    d = mujoco.MjData(m)
    plan = ControlPlan(m, d, parse_ctrl(m, "sine:5:2"), rows=100)
    h = m.opt.timestep
    t = np.arange(250) * h
    got = np.concatenate([plan.block(0), plan.block(100), plan.block(200)])[:250, 0]
    assert np.allclose(got, 5 * np.sin(2 * np.pi * 2 * t), atol=1e-12)
    _, res = _fourbar_ctrl(tmp_path, "sine:5:1")
    assert res.probes["ctrl_used"]["description"] == "sine 5 at 1 Hz (1 actuator)"
    assert abs(max(res.probes["actuator_ctrl_top"]) - 5) < 0.01
    assert abs(min(res.probes["actuator_ctrl_min"]) + 5) < 0.01


def test_sine_without_amplitude_spans_ctrlrange_and_const_is_constant():
    import mujoco

    from mjscope.diagnose.controls import ControlPlan, parse_ctrl

    m = load("quadruped")
    d = mujoco.MjData(m)
    block = ControlPlan(m, d, parse_ctrl(m, "sine"), rows=600).block(0)  # 1.2 s at 1 Hz
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    assert np.allclose(block.max(axis=0), hi, atol=1e-3) and np.allclose(
        block.min(axis=0), lo, atol=1e-3
    )
    plan = ControlPlan(m, d, parse_ctrl(m, "const:-0.3"), rows=10)
    assert plan.constant and np.all(plan.block(0) == -0.3)


def test_yaml_map_per_actuator(tmp_path):
    import mujoco

    from mjscope.diagnose.controls import ControlPlan, hold_ctrl, parse_ctrl

    m = load("quadruped")
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    f = tmp_path / "ctrl.yaml"
    f.write_text('"FR_*": "const:0.1"\nRL_calf: -1.2\ndefault: hold\n')
    specs = parse_ctrl(m, str(f))
    row = ControlPlan(m, d, specs, rows=1).block(0)[0]
    names = [m.actuator(a).name for a in range(m.nu)]
    hold = hold_ctrl(m, d)
    for a, n in enumerate(names):
        want = 0.1 if n.startswith("FR_") else -1.2 if n == "RL_calf" else hold[a]
        assert row[a] == pytest.approx(want), n


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("sin:5", "not one of"),
        ("sine:x", "not a finite"),
        ("const:nan", "not a finite"),
        ("const", "not one of"),
    ],
)
def test_bad_ctrl_specs_are_config_errors(spec, match):
    from mjscope.diagnose.controls import parse_spec
    from mjscope.exceptions import ConfigError

    with pytest.raises(ConfigError, match=match):
        parse_spec(spec)


def test_yaml_key_naming_no_actuator_lists_them(tmp_path):
    from mjscope.diagnose.controls import parse_ctrl
    from mjscope.exceptions import ConfigError

    f = tmp_path / "c.yaml"
    f.write_text("nope: hold\n")
    with pytest.raises(ConfigError, match="'nope' names no actuator; actuators: crank_motor"):
        parse_ctrl(load("fourbar"), str(f))
