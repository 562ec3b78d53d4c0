"""``--key auto|NAME|INDEX|none`` and the overlap floor of the initial-state rules."""

import mujoco
import pytest

from mjscope.diagnose.checks.initial_state import self_collision_rule
from mjscope.diagnose.diagnosis import start_checks
from mjscope.diagnose.episode import reset, resolve_key
from mjscope.exceptions import ConfigError

# Two links of one arm: at qpos0 the far one overlaps the first by 12 mm, the keyframe 'open'
# slides it 5 cm clear.
ARM = """<mujoco><worldbody><body name="a"><joint name="j0" axis="0 0 1"/>
<geom name="ga" type="box" size=".1 .02 .02" pos=".1 0 0"/>
<body name="b" pos=".2 0 0"><joint name="j1" axis="0 0 1"/>
<geom type="sphere" size=".01" contype="0" conaffinity="0"/>
<body name="c" pos="0 0 0"><joint name="j2" type="slide" axis="1 0 0"/>
<geom name="gc" type="box" size=".1 .02 .02" pos="{x} 0 0"/></body></body></body></worldbody>
<keyframe><key name="open" qpos="0 0 0"/><key name="shut" qpos="0 0 0"/></keyframe></mujoco>"""


def _model(x: float) -> mujoco.MjModel:
    xml = ARM.format(x=x).replace(
        '<key name="open" qpos="0 0 0"/>', '<key name="open" qpos="0 0 0.05"/>'
    )
    return mujoco.MjModel.from_xml_string(xml)


def test_resolve_key_auto_name_index_none():
    m = _model(0.088)
    assert resolve_key(m, "auto") == 0 and resolve_key(m, "shut") == 1 and resolve_key(m, "1") == 1
    assert resolve_key(m, "none") is None and resolve_key(m, None) is None
    with pytest.raises(ConfigError, match=r"'nope' not in the model.*auto"):
        resolve_key(m, "nope")
    assert resolve_key(mujoco.MjModel.from_xml_string("<mujoco/>"), "auto") is None


def test_overlap_only_at_qpos0_is_an_info_naming_the_keyframe():
    m = _model(0.088)  # gc's far end sits 12 mm inside ga at qpos0
    (f,) = [f for f in start_checks(m, 0) if f.code == "SELF_COLLISION_INIT"]
    assert f.severity == "info" and "only at qpos0" in f.message and "keyframe 'open'" in f.message
    (g,) = [f for f in start_checks(m, None) if f.code == "SELF_COLLISION_INIT"]
    assert g.severity == "warning" and "12 mm" in g.message


@pytest.mark.parametrize(
    ("x", "severity"), [(0.0999999999, None), (0.0996, "info"), (0.088, "warning")]
)
def test_self_collision_floor_and_solimp_allowance(x, severity):
    # a 1e-10 m touch is round-off; 0.4 mm rests within the default 1 mm solimp width; 12 mm is real
    m = mujoco.MjModel.from_xml_string(ARM.format(x=x))
    d = mujoco.MjData(m)
    reset(m, d, "none")
    found = self_collision_rule(m, d)
    assert [f.severity for f in found] == ([severity] if severity else [])


def test_a_persisting_initial_overlap_is_one_warning():
    from mjscope.diagnose.checks.base import Finding
    from mjscope.diagnose.diagnosis import _persisting_overlaps

    pair, other = "geoms 'a' / 'b'", "geoms 'c' / 'd'"
    found = _persisting_overlaps(
        [
            Finding("SELF_COLLISION_INIT", "warning", pair, "12 mm", "f"),
            Finding("PENETRATION_REST", "warning", pair, "12 mm at the end", "f"),
            Finding("PENETRATION_REST", "warning", other, "9 mm at the end", "f"),
        ]
    )
    assert [f.severity for f in found] == ["warning", "info", "warning"]
    assert "persists" in found[1].message


def test_from_qpos0_an_overlap_the_keyframe_avoids_names_it(tmp_path, capsys):
    from mjscope.cli import main

    model = tmp_path / "arm.xml"
    model.write_text(
        ARM.format(x=0.088).replace(
            '<key name="open" qpos="0 0 0"/>', '<key name="open" qpos="0 0 0.05"/>'
        )
    )
    main(["diagnose", str(model), "--steps", "20", "--key", "none", "--quiet"])
    out = capsys.readouterr().out
    assert "SELF_COLLISION_INIT" in out
    assert "fix: move the initial pose apart" in out and "keyframe 'open' (--key auto)" in out
