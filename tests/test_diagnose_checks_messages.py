"""MuJoCo's compiler and runtime messages become findings instead of raw terminal text."""

from mjscope.cli import main
from mjscope.diagnose.checks.messages import message_findings

BALL = """<mujoco>{compiler}<worldbody><geom type="plane" size="1 1 .1"/>
<body pos="0 0 .2"><freejoint/><geom size=".1"/></body></worldbody></mujoco>"""


def test_deprecated_compiler_attribute_is_a_finding_not_stderr(tmp_path, capsys):
    model = tmp_path / "m.xml"
    model.write_text(BALL.format(compiler='<compiler settotalmass="2"/>'))
    main(["diagnose", str(model), "--steps", "10", "--quiet"])
    cap = capsys.readouterr()
    assert "settotalmass" not in cap.err
    (line,) = [x for x in cap.out.splitlines() if "MUJOCO_COMPILER_WARNING" in x]
    assert line.startswith(f"{model}:1: warning:")  # the <compiler> element's line
    assert "compiler 'settotalmass'" in line and "deprecated" in line
    model.write_text(BALL.format(compiler=""))  # the healthy model: no such finding
    main(["diagnose", str(model), "--steps", "10", "--quiet"])
    assert "MUJOCO_COMPILER_WARNING" not in capsys.readouterr().out


def test_runtime_messages_counted_once_each():
    (f,) = message_findings([], ["Nan, Inf or huge value in QACC at DOF 3."] * 2)
    assert f.code == "MUJOCO_RUNTIME_MESSAGE" and f.severity == "info" and f.element == "DOF 3"
    assert "2 times" in f.message
