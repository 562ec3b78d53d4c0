"""ACTUATOR_SATURATED and ACTUATOR_CHATTER: raised by the broken actuator, silent on the healthy."""

import mujoco
import pytest

from mjscope.diagnose import RolloutCfg, diagnose

# A 1 kg, 0.3 m link (I ≈ 0.03 kg·m² about the hinge), no gravity: only the actuator moves it.
ARM = """<mujoco><option gravity="0 0 0" timestep="0.002"/><worldbody><body>
<joint name="j" axis="0 1 0" {jnt}/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".02"
mass="1"/></body></worldbody><actuator><{kind} name="a" joint="j" {act}/></actuator></mujoco>"""
# ω·h = 1.9: √(kp/I)·h = 1.9 → kp = I·(950 rad/s)²
I_HINGE = 1 * 0.3**2 / 3 + 1 * 0.02**2 / 4  # ≈ capsule about its end [kg·m²]
KP = I_HINGE * (1.9 / 0.002) ** 2


def _codes(kind, jnt, act, ctrl):
    m = mujoco.MjModel.from_xml_string(ARM.format(kind=kind, jnt=jnt, act=act))
    dg = diagnose(m, "arm", RolloutCfg(steps=300, ctrl=ctrl))
    return {f.code: f for f in dg.findings}


@pytest.mark.parametrize(("ctrl", "hit"), [("const:1", True), ("const:0.05", False)])
def test_motor_held_at_its_ctrlrange_is_saturated(ctrl, hit):
    found = _codes("motor", "damping='1'", 'ctrlrange="-0.1 0.1"', ctrl)
    assert ("ACTUATOR_SATURATED" in found) == hit
    if hit:
        assert "100% of the 300 steps" in found["ACTUATOR_SATURATED"].message


def test_stiff_undamped_servo_chatters_and_the_damped_one_does_not():
    # start 0.1 rad off target: undamped at ω·h = 1.9 it rings with a period of ~3 steps
    broken = _codes("position", 'ref="0.1"', f'kp="{KP:.6g}"', "const:0")
    assert broken["ACTUATOR_CHATTER"].element == "actuator 'a'", broken
    healthy = _codes("position", 'ref="0.1" damping="50"', f'kp="{KP:.6g}"', "const:0")
    assert "ACTUATOR_CHATTER" not in healthy


def test_flip_count_across_blocks_matches_a_plain_count():
    import numpy as np

    from mjscope.diagnose.probes.actuators import ActuatorProbe

    rng = np.random.default_rng(0)
    force = rng.normal(size=(300, 3))
    force[rng.random((300, 3)) < 0.3] = 0.0  # steps at rest between pushes
    p = ActuatorProbe()
    p.any_limit, p.level0 = False, np.full(3, 1e-3)
    p.force_max = np.full(3, 10.0)  # level: a tenth of it, 1.0
    p.at_limit, p.flips, p.last_sign, p.steps = np.zeros(3, int), np.zeros(3, int), np.zeros(3), 0
    p._limits(force[:137].T)  # (nu, n): one actuator per row
    p._limits(force[137:].T)  # a flip across the block boundary counts once
    expected = []
    for k in range(3):
        s = np.sign(np.where(np.abs(force[:, k]) > 1.0, force[:, k], 0.0))
        s = s[s != 0]
        expected.append(int(np.count_nonzero(s[1:] != s[:-1])))
    assert p.flips.tolist() == expected and p.steps == 300
