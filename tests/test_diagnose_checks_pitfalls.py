"""S1.12 pitfall rules: each raised by a model with the pitfall, silent on the well-made one."""

import mujoco
import pytest

from mjscope.diagnose.checks import static_checks
from mjscope.diagnose.checks.source import source_checks
from mjscope.models import load

BOX = """<mujoco><option timestep="{h}"/><worldbody>
<geom name="floor" type="plane" size="2 2 .1" solref="{solref}"/>
<body name="box" pos="0 0 .2"><freejoint/><geom type="box" size=".05 .05 .05" mass="{mass}"/></body>
</worldbody></mujoco>"""
SERVO = """<mujoco><option timestep="{h}"/><worldbody><body><joint name="j" axis="0 1 0"
damping="1" armature=".01" range="-1 1"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".02"
mass="1"/></body></worldbody><actuator><position name="p" joint="j" kp="{kp}"
ctrlrange="-1 1" forcerange="-50 50"/></actuator></mujoco>"""
GOOD_BOX = {"h": 0.002, "solref": "0.02 1", "mass": 1.0}  # 1 kg in a 10 cm cube: 1000 kg/m³


def _codes(xml: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in static_checks(mujoco.MjModel.from_xml_string(xml)):
        out.setdefault(f.code, []).append(f)
    return out


def test_well_made_box_and_servo_raise_none():
    new = {"CONTACT_UNDERDAMPED", "TIMESTEP_RANGE", "TIMESTEP_VS_DYNAMICS", "MASS_IMPLAUSIBLE"}
    assert not new & set(_codes(BOX.format(**GOOD_BOX)))
    assert not new & set(_codes(SERVO.format(h=0.002, kp=100)))


@pytest.mark.parametrize(("ratio", "severity"), [(0.3, "warning"), (0.8, "info")])
def test_underdamped_contact(ratio, severity):
    (f,) = _codes(BOX.format(**{**GOOD_BOX, "solref": f"0.02 {ratio}"}))["CONTACT_UNDERDAMPED"]
    assert f.severity == severity and f.element == "geom 'floor'" and f"{ratio:g} < 1" in f.message


@pytest.mark.parametrize(("h", "severity"), [(0.02, "warning"), (2e-5, "info")])
def test_timestep_out_of_range(h, severity):
    (f,) = _codes(BOX.format(**{**GOOD_BOX, "h": h}))["TIMESTEP_RANGE"]
    assert f.severity == severity


def test_servo_faster_than_the_timestep():
    # I = 1 kg · (0.3 m)² / 3 + 0.01 armature ≈ 0.04 kg·m²: ω = √(kp/I); kp = 1e5 → ω ≈ 1580 rad/s
    (f,) = _codes(SERVO.format(h=0.002, kp=1e5))["TIMESTEP_VS_DYNAMICS"]
    assert f.element == "actuator 'p'" and "ω·timestep=3.1" in f.message


@pytest.mark.parametrize(
    ("mass", "word"), [(1000.0, "grams given as kilograms"), (1e-4, "kilograms given as grams")]
)
def test_implausible_masses(mass, word):
    (f,) = _codes(BOX.format(**{**GOOD_BOX, "mass": mass}))["MASS_IMPLAUSIBLE"]
    assert f.element == "body 'box'" and word in f.message


def _write(tmp_path, text: str):
    p = tmp_path / "m.xml"
    p.write_text(text)
    return p


def test_deep_and_wide_default_classes(tmp_path):
    deep = "".join(f'<default class="c{k}">' for k in range(5)) + "</default>" * 5
    wide = (
        '<default class="w"><geom '
        + " ".join(
            f'{a}="1"'
            for a in ("condim", "priority", "group", "margin", "gap", "density", "solmix")
        )
        + '/><joint damping="1" armature="1" stiffness="1" frictionloss="1" springref="1" '
        'ref="0"/></default>'
    )
    found = source_checks(
        load("fourbar"),
        _write(tmp_path, f"<mujoco><default>{deep}{wide}</default><worldbody/></mujoco>"),
    )
    deep_f = [f.element for f in found if f.code == "DEFAULT_CLASS_DEEP"]
    wide_f = [f.element for f in found if f.code == "DEFAULT_CLASS_WIDE"]
    assert deep_f == ["default class 'c3'", "default class 'c4'"] and wide_f == [
        "default class 'w'"
    ]
    ok = (
        '<mujoco><default><default class="robot"><default class="visual"><geom group="2"/>'
        "</default></default></default><worldbody/></mujoco>"
    )
    assert source_checks(load("fourbar"), _write(tmp_path, ok)) == []


def test_urdf_without_actuators_or_sensors_says_how_to_add_them():
    from tests.utils import asset

    urdf = asset("rm75", "urdf", "rm_75.urdf")
    found = {f.code: f for f in source_checks(load(str(urdf)), urdf)}
    assert (
        found["URDF_NO_ACTUATORS"].severity == "info"
        and "<actuator>" in found["URDF_NO_ACTUATORS"].fix
    )
    assert "<sensor>" in found["URDF_NO_SENSORS"].fix
    assert source_checks(load("quadruped"), "quadruped") == []


SERVO_IMPLICIT = SERVO.replace(
    '<option timestep="{h}"/>', '<option timestep="{h}" integrator="{i}"/>'
)


def test_timestep_rule_knows_the_integrator_and_its_implicit_damping():
    # Euler: servo damping kv is explicit, limit ≈ 2 → ω·h = 3.1 warns and names euler
    stiff = SERVO_IMPLICIT.format(h=0.002, kp='1e5" kv="500', i="Euler")
    (f,) = _codes(stiff)["TIMESTEP_VS_DYNAMICS"]
    assert "euler integrator" in f.message
    # implicitfast integrates kv = 500 implicitly: (ω·h)² < 4 + 2·h·kv/I = 54 → stable, silent
    assert "TIMESTEP_VS_DYNAMICS" not in _codes(stiff.replace("Euler", "implicitfast"))
    # without damping implicitfast is no better than Euler: still a warning
    bare = SERVO_IMPLICIT.format(h=0.002, kp=1e5, i="implicitfast")
    assert "TIMESTEP_VS_DYNAMICS" in _codes(bare)
