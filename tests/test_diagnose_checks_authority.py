"""S1.13 "controller output but the joint does not move": each check raised by a broken
actuator and silent on the well-made one."""

import mujoco
import pytest

from mjscope.diagnose import RolloutCfg, diagnose

ARM = """<mujoco><worldbody><body><joint name="j" type="hinge" axis="0 1 0" damping="0.1"
range="-1 1" {jnt}/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".02" mass="1"/></body>
</worldbody><actuator><{kind} name="m" joint="j" {act}/></actuator></mujoco>"""
# A 1 kg, 0.3 m link level at qpos0: gravity needs 1 kg · 9.81 m/s² · 0.15 m = 1.47 N·m.
GOOD = ("motor", "", 'ctrlrange="-2 2"', "const:0.5")
BROKEN = {
    "ACTUATOR_ZERO_GEAR": ("motor", "", 'gear="0" ctrlrange="-2 2"', "const:0.5"),
    "ACTUATOR_NO_GAIN": ("general", "", 'gainprm="0" ctrlrange="-2 2"', "const:1"),
    "ACTUATOR_NO_AUTHORITY": ("motor", "", 'ctrlrange="0 2"', "hold"),
    "ACTUATOR_NO_EFFECT": ("motor", "", 'ctrlrange="0 1"', "const:-1"),
    "CTRL_OUTSIDE_RANGE": ("motor", "", 'ctrlrange="0 1"', "const:-1"),
}
CODES = set(BROKEN)


def _codes(kind, jnt, act, ctrl):
    m = mujoco.MjModel.from_xml_string(ARM.format(kind=kind, jnt=jnt, act=act))
    dg = diagnose(m, "arm", RolloutCfg(steps=200, ctrl=ctrl))
    return {f.code: f for f in dg.findings}


def test_well_made_actuator_raises_none():
    assert not CODES & set(_codes(*GOOD))


@pytest.mark.parametrize("code", sorted(BROKEN))
def test_broken_actuator_raises_its_check_naming_it(code):
    found = _codes(*BROKEN[code])
    assert code in found and found[code].element == "actuator 'm'", found


@pytest.mark.parametrize(
    ("jnt", "act"),
    [
        ("", 'ctrlrange="-1 1" forcerange="-.1 .1"'),
        ('actuatorfrcrange="-.1 .1"', 'ctrlrange="-2 2"'),
    ],
)
def test_force_limits_below_the_gravity_load_leave_no_authority(jnt, act):
    f = _codes("motor", jnt, act, "hold")["ACTUATOR_NO_AUTHORITY"]
    assert "needs -1.47 N·m" in f.message and "[-0.1, 0.1]" in f.message


def test_servo_holding_its_pose_is_no_false_no_effect():
    # A position servo at its target rightly pushes nothing: not ACTUATOR_NO_EFFECT.
    act = 'kp="100" ctrlrange="-1 1" forcerange="-5 5"'
    assert not CODES & set(_codes("position", "", act, "hold"))


def test_no_authority_interval_is_the_clamped_force_and_says_the_direction():
    # a servo whose kp·(ctrlrange − q) spans [−100, −20] N·m, clamped by forcerange to −20:
    # the interval is [−20, −20], and −20 N·m lifts the level link (+ is down here: gravity
    # pushes with +1.47 N·m, so holding needs −1.47)
    act = 'kp="100" ctrlrange="-1 -0.2" forcerange="-20 20"'
    f = _codes("position", "", act, "hold")["ACTUATOR_NO_AUTHORITY"]
    assert "[-20, -20] N·m" in f.message and "pushes the joint (moves −)" in f.message
    g = _codes("motor", "", 'ctrlrange="0 2"', "hold")["ACTUATOR_NO_AUTHORITY"]
    assert "the load wins and the joint sags (moves +)" in g.message
