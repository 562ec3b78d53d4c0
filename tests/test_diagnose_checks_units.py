"""ANGLE_UNITS: a range in the other unit than its servo's ctrlrange, or more than four turns."""

import mujoco
import pytest

from mjscope.diagnose.checks import static_checks

ARM = """<mujoco><compiler angle="{angle}"/><worldbody><body><joint name="j" axis="0 1 0"
range="{rng}"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".02" mass="1"/></body>
</worldbody><actuator><position name="p" joint="j" kp="10" ctrlrange="{ctl}"/></actuator>
</mujoco>"""


def _units(angle, rng, ctl):
    m = mujoco.MjModel.from_xml_string(ARM.format(angle=angle, rng=rng, ctl=ctl))
    return [f for f in static_checks(m) if f.code == "ANGLE_UNITS"]


@pytest.mark.parametrize(
    ("angle", "rng", "ctl", "word"),
    [
        ("degree", "-1.57 1.57", "-1.57 1.57", "written in radians but read as degrees"),
        ("radian", "-1.57 1.57", "-90 90", "the ctrlrange looks like degrees"),
        ("radian", "-90 90", "-1.57 1.57", "the range looks like degrees"),
        ("radian", "-90 90", "-90 90", "turns"),
    ],
)
def test_wrong_unit_is_found(angle, rng, ctl, word):
    (f,) = _units(angle, rng, ctl)
    assert f.element == "joint 'j'" and word in f.message


@pytest.mark.parametrize(
    ("angle", "rng", "ctl"),
    [("radian", "-1.57 1.57", "-1.57 1.57"), ("degree", "-90 90", "-1.57 1.57")],
)
def test_consistent_units_are_silent(angle, rng, ctl):
    assert _units(angle, rng, ctl) == []
