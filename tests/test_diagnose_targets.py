"""``--set`` targets: equality, actuator and body, besides option and geom."""

import numpy as np
import pytest

from mjscope.diagnose.targets import applier, parse_set
from mjscope.exceptions import ConfigError
from mjscope.models import build_spec, compile_spec


def _apply(model: str, text: str):
    sw = parse_set(text)
    spec = build_spec(model)
    applier(sw, sw.values[0])(spec)
    return compile_spec(spec)


def test_equality_solref():
    m = _apply("fourbar", "equality:closure.solref=0.1 1")
    assert m.eq_solref[0].tolist() == [0.1, 1.0]


def test_actuator_kp_sets_gain_and_bias_and_gear_on_a_glob():
    m = _apply("quadruped", "actuator:*_calf.kp=90")
    calf = [a for a in range(m.nu) if m.actuator(a).name.endswith("_calf")]
    assert len(calf) == 4
    for a in range(m.nu):
        kp = 90.0 if a in calf else 60.0
        assert m.actuator_gainprm[a, 0] == kp and m.actuator_biasprm[a, 1] == -kp
    m = _apply("fourbar", "actuator:crank_motor.gear=2")
    assert m.actuator_gear[0, 0] == 2


def test_body_mass_scales_the_inertia_and_keeps_the_com():
    ref = compile_spec(build_spec("gripper_cylinder"))
    m = _apply("gripper_cylinder", "body:cylinder.mass=0.4")
    b = m.body("cylinder").id
    assert m.body_mass[b] == pytest.approx(0.4)
    assert np.allclose(m.body_inertia[b], 4 * ref.body_inertia[b])
    assert np.allclose(m.body_ipos[b], ref.body_ipos[b])


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            "equality:nope.solref=0.1 1",
            "no equality matches 'nope'; named equalitys: \\['closure'\\]",
        ),
        ("actuator:crank_motor.kp=x", "not numeric"),
        ("body:crank.mass=0", "must be > 0"),
        ("equality:closure.data=1", "not one of solref, solimp, active"),
    ],
)
def test_bad_targets_are_config_errors(text, match):
    with pytest.raises(ConfigError, match=match):
        _apply("fourbar", text)
