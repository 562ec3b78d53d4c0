"""The checks package: each rule fires on a model made to trip it, none on a good model.

Every warning rule also has a near miss: a well-made model that the rule used to report
(a false alarm found on Menagerie-style models) and must not report any more.
"""

import mujoco
import pytest

from mjscope.diagnose import RolloutCfg, diagnose
from mjscope.diagnose.checks import static_checks

FLOOR = '<geom name="floor" type="plane" size="2 2 .1"/>'


def xml(body: str, extra: str = "", option: str = "") -> str:
    return (
        f'<mujoco><compiler angle="radian"/><option {option}/>'
        f"<worldbody>{FLOOR}{body}</worldbody>{extra}</mujoco>"
    )


BALL = '<body name="ball" pos="0 0 .1"><freejoint/><geom name="ball" size=".1" {a}/></body>'
GOOD = xml(BALL.format(a=""))


def codes(text: str, steps: int = 300, mutate=None) -> set[str]:
    m = mujoco.MjModel.from_xml_string(text)
    if mutate:
        mutate(m)
    dg = diagnose(m, "t", RolloutCfg(steps=steps))
    return {f.code for f in dg.findings}


BAD = {
    "SOLREF_CLAMPED": xml(BALL.format(a='solref="0.001 1"')),
    "SOLREF_DIRECT": xml(BALL.format(a='solref="-1e6 -200"')),
    "GEOM_NO_COLLISION": xml(BALL.format(a='contype="2" conaffinity="2"')),
    "PARENT_CHILD_EXCLUDED": xml(
        '<body pos="0 0 1"><joint axis="0 1 0"/><geom size=".05"/>'
        '<body pos="0 0 -.2"><joint axis="0 1 0"/><geom size=".05"/></body></body>'
    ),
    "CONDIM6_MAJORITY": xml(BALL.format(a='condim="6"')),
    "ACTUATOR_NO_LIMITS": xml(
        '<body pos="0 0 1"><joint name="h" axis="0 1 0" damping="1"/><geom size=".05"/></body>',
        '<actuator><motor joint="h"/></actuator>',
    ),
    "HIGH_GAIN_NO_DAMPING": xml(
        '<body pos="0 0 1"><joint name="h" axis="0 1 0"/><geom size=".05"/></body>',
        '<actuator><position joint="h" kp="10000" ctrlrange="-1 1" forcerange="-1e4 1e4"/>'
        "</actuator>",
    ),
    "INERTIA_TINY": xml(
        '<body pos="0 0 1"><joint axis="0 1 0"/><geom size=".05" contype="0" conaffinity="0"/>'
        '<inertial pos="0 0 0" mass="1e-7" diaginertia="1e-12 1e-12 1e-12"/></body>'
    ),
    "SELF_COLLISION_INIT": xml(
        '<body pos="0 0 1"><joint axis="0 1 0"/><geom size=".05"/>'
        '<body pos="0 0 -.1"><joint axis="0 1 0"/><geom size=".01"/>'
        '<body pos="0 0 .05"><joint axis="0 1 0"/><geom size=".03"/></body></body></body>'
    ),
    "QPOS0_OUT_OF_RANGE": xml(
        '<body pos="0 0 1"><joint axis="0 1 0" range="0.5 1" limited="true"/>'
        '<geom size=".05"/></body>'
    ),
    "KEYFRAME_OUT_OF_RANGE": xml(
        '<body pos="0 0 1"><joint axis="0 1 0" range="-1 1" limited="true"/>'
        '<geom size=".05"/></body>',
        '<keyframe><key qpos="2"/></keyframe>',
    ),
    "PENETRATION_REST": xml(BALL.format(a='solref="0.3 1"')),
    "PENETRATION_DEEP": xml(BALL.format(a='solref="1 1" solimp="0.1 0.1 0.001"')),
    "DIVERGED": xml(
        '<body pos="0 0 1">'
        '<joint name="s" type="slide" axis="0 0 1" stiffness="1e20" springref="1"/>'
        '<geom size=".05" contype="0" conaffinity="0"/></body>'
    ),
    "TIMESTEP_NONPOSITIVE": xml(BALL.format(a=""), option='timestep="0"'),
    "SOLVER_ITER_CAP": xml(
        BALL.format(a="") + '<body pos=".3 0 .1"><freejoint/><geom size=".1"/></body>',
        option='iterations="1" tolerance="1e-30" solver="CG"',
    ),
}


@pytest.mark.parametrize("code", sorted(BAD))
def test_check_fires_on_bad_model(code):
    steps = 1500 if code.startswith("PENETRATION") else 300
    assert code in codes(BAD[code], steps)


HINGED = '<body pos="0 0 1"><joint axis="0 1 0"/><geom size=".05"/>{inner}</body>'
NEAR_MISS = {
    # refsafe would allow this stiffness at 0.002 s: √k·2h = 0.57, b·h = 0.4
    "SOLREF_DIRECT": xml(BALL.format(a='solref="-20000 -200"')),
    # a visual geom's solref is never used
    "SOLREF_CLAMPED": xml(
        BALL.format(a="")
        + '<body pos=".5 0 .1"><freejoint/>'
        + '<geom size=".05" contype="0" conaffinity="0" solref="0.001 1"/></body>'
    ),
    # a URDF universal joint: a massless link between two hinges of a heavy body
    "INERTIA_TINY": xml(
        HINGED.format(
            inner='<body><joint axis="1 0 0"/>'
            '<inertial pos="0 0 0" mass="1e-7" diaginertia="1e-12 1e-12 1e-12"/>'
            '<body pos="0 0 -.2"><joint axis="0 1 0"/><geom size=".05"/></body></body>'
        )
    ),
    # rubber with a real rolling friction: condim 6 on purpose
    "CONDIM6_MAJORITY": xml(BALL.format(a='condim="6" friction="1 0.02 0.01"')),
    # a soft contact sinks within its solimp width by design (an ANYmal-size rubber foot)
    "PENETRATION_REST": xml(BALL.format(a='solimp="0.015 1 0.031"')),
    "PENETRATION_DEEP": xml(
        '<body pos="0 0 .1"><freejoint/>'
        '<geom name="foot" size=".031" mass="1" solimp="0.015 1 0.031" priority="1"/></body>'
    ),
    # margins make a contact 5 mm before the geoms touch: no overlap
    "SELF_COLLISION_INIT": xml(
        HINGED.format(
            inner='<body pos="0 0 -.1"><joint axis="0 1 0"/><geom size=".01"/>'
            '<body pos="0 0 .005"><joint axis="0 1 0"/><geom size=".04" margin=".01"/>'
            "</body></body>"
        ).replace('<geom size=".05"/>', '<geom size=".05" margin=".01"/>', 1)
    ),
    # qpos0 is not a valid pose, the model's keyframe is
    "QPOS0_OUT_OF_RANGE": xml(
        '<body pos="0 0 1"><joint axis="0 1 0" range="0.5 1" limited="true"/>'
        '<geom size=".05"/></body>',
        '<keyframe><key name="home" qpos="0.7"/></keyframe>',
    ),
}


@pytest.mark.parametrize("code", sorted(NEAR_MISS))
def test_rule_is_quiet_on_its_near_miss(code):
    m = mujoco.MjModel.from_xml_string(NEAR_MISS[code])
    steps = 1500 if code.startswith("PENETRATION") else 300
    dg = diagnose(m, "near miss", RolloutCfg(steps=steps))
    loud = [f for f in dg.findings if f.severity != "info"]
    assert loud == [], loud


def test_qpos0_outside_with_a_valid_keyframe_is_an_info_naming_it():
    m = mujoco.MjModel.from_xml_string(NEAR_MISS["QPOS0_OUT_OF_RANGE"])
    (f,) = [f for f in static_checks(m) if f.code == "QPOS0_OUT_OF_RANGE"]
    assert f.severity == "info" and "keyframe 'home' is inside it" in f.message
    assert "--key auto" in f.fix and "--key home" in f.fix


def test_direct_solref_names_the_refsafe_limits():
    m = mujoco.MjModel.from_xml_string(BAD["SOLREF_DIRECT"])
    (f,) = [f for f in static_checks(m) if f.code == "SOLREF_DIRECT"]
    # h = 0.002 s: √1e6·2h = 4 (> 1); refsafe's limits k ≤ 1/(2h)² = 62500, b ≤ 1/h = 500
    assert "√k·2h=4" in f.message and "k ≤ 6.25e+04 and b ≤ 500" in f.fix


def test_good_model_has_no_findings_above_info():
    m = mujoco.MjModel.from_xml_string(GOOD)
    dg = diagnose(m, "good", RolloutCfg(steps=500))
    assert [f for f in dg.findings if f.severity != "info"] == []


def test_nonphysical_inertia_is_an_error():
    m = mujoco.MjModel.from_xml_string(GOOD)
    assert "INERTIA_NONPHYSICAL" not in {f.code for f in static_checks(m)}
    m.body_inertia[1] = [1.0, 1.0, 5.0]
    found = [f for f in static_checks(m) if f.code == "INERTIA_NONPHYSICAL"]
    assert found and found[0].severity == "error" and "ball" in found[0].element


def test_solref_clamp_names_element_and_effective_value():
    m = mujoco.MjModel.from_xml_string(BAD["SOLREF_CLAMPED"])
    f = next(f for f in static_checks(m) if f.code == "SOLREF_CLAMPED")
    # refsafe replaces timeconst 0.001 by 2×timestep = 2 × MuJoCo's default 0.002 s = 0.004 s.
    assert f.element == "geom 'ball'" and "0.004" in f.message and f.fix


def test_divergence_reports_time_dof_joint():
    m = mujoco.MjModel.from_xml_string(BAD["DIVERGED"])
    dg = diagnose(m, "t", RolloutCfg(steps=100))
    dv = dg.result.divergence
    assert dv is not None and dv["joint"] == "s" and dg.result.steps_done == 1
    assert dv["kind"] in ("BADQACC", "BADQVEL", "BADQPOS") and dv["time"] < 0.01
