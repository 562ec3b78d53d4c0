"""Grouped findings: one line per code and family on the terminal, every element in JSON."""

import json

from mjscope.cli import main
from mjscope.diagnose.grouping import group_findings

# Three slides driven by position servos with no bound at all: one problem, three elements.
BASE = """<mujoco><worldbody><body><joint name="x" type="slide" axis="1 0 0"/>
<geom type="sphere" size=".1" mass="1"/><body><joint name="y" type="slide" axis="0 1 0"/>
<geom type="sphere" size=".1" mass="1"/><body><joint name="z" type="slide" axis="0 0 1"/>
<geom type="sphere" size=".1" mass="1"/></body></body></body></worldbody><actuator>
<position name="px" joint="x" kp="100" kv="20"/><position name="py" joint="y" kp="100" kv="20"/>
<position name="pz" joint="z" kp="100" kv="20"/></actuator></mujoco>"""


def test_group_findings_counts_and_names_the_family():
    checks = [
        {
            "code": "A",
            "severity": "warning",
            "element": f"actuator '{n}'",
            "message": "m",
            "fix": "f",
        }
        for n in "abcdef"
    ] + [
        {"code": "B", "severity": "info", "element": "option timestep", "message": "x", "fix": "y"}
    ]
    a, b = group_findings(checks)
    assert a["count"] == 6 and a["element"] == "6 actuators: 'a', 'b', 'c', 'd' and 2 more"
    assert len(a["elements"]) == 6 and "first of 6" in a["message"]
    assert b["count"] == 1 and b["element"] == "option timestep" and b["message"] == "x"


def test_cli_one_line_per_family_verbose_per_element_json_all(tmp_path, capsys):
    model, js = tmp_path / "base.xml", tmp_path / "r.json"
    model.write_text(BASE)
    argv = ["diagnose", str(model), "--steps", "20", "--quiet", "--json", str(js)]
    main(argv)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "ACTUATOR_NO_LIMITS" in ln]
    assert len(lines) == 1 and "3 actuators: 'px', 'py', 'pz'" in lines[0]
    main([*argv, "--verbose"])
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "ACTUATOR_NO_LIMITS" in ln]
    assert len(lines) == 3
    rep = json.loads(js.read_text())
    assert sum(c["code"] == "ACTUATOR_NO_LIMITS" for c in rep["checks"]) == 3
    (g,) = [g for g in rep["check_groups"] if g["code"] == "ACTUATOR_NO_LIMITS"]
    assert g["count"] == 3 and g["elements"] == ["actuator 'px'", "actuator 'py'", "actuator 'pz'"]
