"""Equality probe: the violation MuJoCo's solver sees, by name; EQUALITY_VIOLATION."""

import mujoco
import numpy as np

from mjscope.diagnose import RolloutCfg, diagnose
from mjscope.models import build_spec, compile_spec
from tests.test_models_robots_exercises import fourbar_tip_separation
from tests.utils import assert_close

WELD = """<mujoco><worldbody><body name="a" pos="0 0 1"><freejoint/>
<geom size=".1" mass="1"/></body></worldbody>
<equality><weld name="w" body1="a" solref="{tc} 1"/></equality></mujoco>"""


def test_connect_violation_is_the_distance_between_the_two_sites():
    m = compile_spec(build_spec("fourbar", solref_timeconst=0.02))
    dg = diagnose(m, "fourbar", RolloutCfg(steps=600, ctrl="sine:5:1"))
    (q,) = dg.result.probes["equalities"]
    assert (q["name"], q["type"], q["unit"]) == ("closure", "connect", "m")
    # the same rollout by hand: ctrl = 5 sin(2πt), separation of the two tip sites
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    sep = fourbar_tip_separation(m, d, 600)
    assert_close(q["max_position"], max(sep), rtol=1e-6)
    assert_close(q["final_position"], sep[-1], rtol=1e-6)


def test_weld_rotation_is_the_angle_between_the_frames():
    m = mujoco.MjModel.from_xml_string(WELD.format(tc=0.2))
    d = mujoco.MjData(m)
    dg = diagnose(m, "weld", RolloutCfg(steps=50))
    assert dg.result.probes["equalities"][0]["max_rotation_rad"] == 0
    # spun about x at 5 rad/s against a soft weld: the rotation reaches a visible angle
    from mjscope.diagnose.probes import EqualityProbe
    from mjscope.diagnose.recording import Recorder

    probe = EqualityProbe()
    rec = Recorder([probe], None, 100)
    reads = rec.bind(m, d)
    d.qvel[3] = 5.0
    angle = []
    for i in range(60):
        mujoco.mj_step(m, d)
        for r in reads:
            r(i)
        w, x = d.qpos[3], np.linalg.norm(d.qpos[4:7])  # the body's rotation from its start
        angle.append(2 * np.arctan2(x, w))
    rec.flush(60)
    # efc_pos comes from the forward pass inside mj_step: one step behind qpos
    assert_close(probe.rot_last[0], angle[-2], rtol=1e-6)
    assert probe.rot_max[0] > 0.1


def test_soft_closure_raises_equality_violation_and_stiff_does_not():
    found = {}
    for tc in (0.005, 0.1):
        m = compile_spec(build_spec("fourbar", solref_timeconst=tc))
        dg = diagnose(m, "fourbar", RolloutCfg(steps=2000, ctrl="sine:5:1"))
        found[tc] = [f for f in dg.findings if f.code == "EQUALITY_VIOLATION"]
    assert found[0.005] == []
    assert len(found[0.1]) == 1 and found[0.1][0].element == "equality 'closure' (connect)"
