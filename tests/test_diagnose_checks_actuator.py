"""ACTUATOR_NO_LIMITS: reported only when the force MuJoCo computes has no bound at all."""

from __future__ import annotations

import mujoco
import pytest

from mjscope.diagnose.checks.actuator import actuator_rules
from mjscope.diagnose.checks.actuator_force import driven_joints, unbounded_reasons

ARM = """<mujoco><compiler angle="radian"/><worldbody>
<body name="l1"><joint name="j1" axis="0 1 0" {j1}/>
<geom type="capsule" size=".05" fromto="0 0 0 0 0 .3"/>
<site name="s0" pos="0 0 .05"/>
<body name="l2" pos="0 0 .3"><joint name="j2" axis="0 1 0" {j2}/>
<geom type="capsule" size=".04" fromto="0 0 0 0 0 .3"/><site name="tip" pos="0 0 .3"/></body></body>
</worldbody>{extra}<actuator>{act}</actuator></mujoco>"""


def reasons(act: str, j1: str = 'range="-1 1"', j2: str = 'range="-1 1"', extra: str = ""):
    m = mujoco.MjModel.from_xml_string(ARM.format(act=act, j1=j1, j2=j2, extra=extra))
    return unbounded_reasons(m, 0)


BOUNDED = {
    "motor bounded by ctrlrange × gear": '<motor joint="j1" gear="50" ctrlrange="-1 1"/>',
    "motor with forcerange only": '<motor joint="j1" forcerange="-5 5"/>',
    "position servo, ctrlrange, limited joint": '<position joint="j1" kp="100" ctrlrange="-1 1"/>',
    "position servo with kv, forcerange, no ctrlrange": (
        '<position joint="j1" kp="500" kv="10" forcerange="-30 30"/>'
    ),
    "velocity servo with ctrlrange": '<velocity joint="j1" kv="20" ctrlrange="-2 2"/>',
    "integrator with actrange": (
        '<general joint="j1" dyntype="integrator" actlimited="true" actrange="-1 1" '
        'gainprm="10" ctrlrange="-1 1"/>'
    ),
    "filtered control": '<general joint="j1" dyntype="filter" dynprm=".05" ctrlrange="-1 1"/>',
    "site transmission with ctrlrange": '<motor site="tip" gear="0 0 1 0 0 0" ctrlrange="-3 3"/>',
    "adhesion (body transmission)": '<adhesion body="l2" ctrlrange="0 1" gain="10"/>',
}


@pytest.mark.parametrize("case", sorted(BOUNDED))
def test_bounded_forces_are_not_reported(case):
    assert reasons(BOUNDED[case]) == []


def test_joint_actuatorfrcrange_bounds_a_bare_motor():
    act = '<motor joint="j1"/>'
    assert reasons(act, j1='range="-1 1" actuatorfrcrange="-87 87"') == []
    why = reasons(act)
    assert why[:2] == ["no forcerange", "no actuatorfrcrange on joint 'j1'"]
    assert "no ctrlrange" in why[2]


def test_tendon_and_site_transmissions_need_every_driven_joint_bounded():
    tendon = '<tendon><fixed name="t"><joint joint="j1" coef="1"/><joint joint="j2" coef="1"/>'
    tendon += "</fixed></tendon>"
    act = '<motor tendon="t"/>'
    both = 'range="-1 1" actuatorfrcrange="-9 9"'
    assert reasons(act, j1=both, j2=both, extra=tendon) == []
    assert "on joint 'j2'" in reasons(act, j1=both, extra=tendon)[1]
    site = '<motor site="tip" gear="1 0 0 0 0 0"/>'
    assert reasons(site, j1=both, j2=both) == []
    assert reasons(site, j1=both)[1] == "no actuatorfrcrange on joint 'j2'"


def test_site_with_refsite_drives_only_the_joints_between_them():
    m = mujoco.MjModel.from_xml_string(
        ARM.format(
            act='<motor site="tip" refsite="s0" gear="1 0 0 0 0 0"/>', j1="", j2="", extra=""
        )
    )
    assert [m.joint(j).name for j in driven_joints(m, 0)] == ["j2"]


UNBOUNDED = {
    "motor without any limit": ('<motor joint="j1"/>', "no ctrlrange"),
    "position servo on an unlimited hinge": (
        '<position joint="j1" kp="100" ctrlrange="-1 1"/>',
        "joint 'j1' has no range",
    ),
    "integrator without actrange": (
        '<general joint="j1" dyntype="integrator" gainprm="10" ctrlrange="-1 1"/>',
        "integrator activation without actrange",
    ),
    "gain growing with velocity": (
        '<general joint="j1" gaintype="affine" gainprm="1 0 3" ctrlrange="-1 1"/>',
        "gain grows with the velocity",
    ),
    "bias pushing with velocity": (
        '<general joint="j1" biastype="affine" biasprm="0 0 2" ctrlrange="-1 1"/>',
        "biasprm[2]=2 > 0",
    ),
}


@pytest.mark.parametrize("case", sorted(UNBOUNDED))
def test_unbounded_forces_are_reported_with_the_reason(case):
    act, reason = UNBOUNDED[case]
    j1 = "" if "unlimited" in case else 'range="-1 1"'
    why = reasons(act, j1=j1)
    assert why and any(reason in w for w in why), why


def test_finding_names_the_actuator_and_the_fix():
    m = mujoco.MjModel.from_xml_string(
        ARM.format(act='<motor name="shoulder" joint="j1"/>', j1="", j2="", extra="")
    )
    (f,) = [f for f in actuator_rules(m) if f.code == "ACTUATOR_NO_LIMITS"]
    assert f.element == "actuator 'shoulder'" and f.severity == "warning"
    assert f.message.startswith("its force has no bound: no forcerange;")
    assert "actuatorfrcrange" in f.fix and "forcerange" in f.fix
