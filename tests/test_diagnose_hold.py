"""``--ctrl hold`` holds the start pose for every actuator type (motors, servos, thrusters)."""

import mujoco
import numpy as np

from mjscope.diagnose.rollout import RolloutCfg, run_rollout

ARM = """<mujoco><option timestep="0.002"/><worldbody>
<body name="upper"><joint name="shoulder" axis="0 1 0" damping="0.1"/>
<geom type="capsule" fromto="0 0 0 .4 0 0" size=".03" mass="2"/>
<body name="fore" pos=".4 0 0"><joint name="elbow" axis="0 1 0" damping="0.1"/>
<geom type="capsule" fromto="0 0 0 .3 0 0" size=".025" mass="1"/>
<body name="tip" pos=".3 0 0"><joint name="wrist" axis="0 1 0" damping="0.5"/>
<geom type="sphere" size=".03" mass=".2"/></body></body></body></worldbody>
<actuator><motor name="m_shoulder" joint="shoulder" gear="10" ctrlrange="-3 3"/>
<motor name="m_elbow" joint="elbow" gear="10" ctrlrange="-3 3"/>
<velocity name="v_wrist" joint="wrist" kv="0.01"/></actuator>
<keyframe><key name="bent" qpos="0.4 -0.6 0"/></keyframe></mujoco>"""

DRONE = """<mujoco><option timestep="0.005"/><worldbody><geom type="plane" size="2 2 .1"/>
<body name="drone" pos="0 0 1"><freejoint/><geom type="box" size=".1 .1 .02" mass="1"/>
<site name="s1" pos=".1 .1 0"/><site name="s2" pos="-.1 .1 0"/>
<site name="s3" pos="-.1 -.1 0"/><site name="s4" pos=".1 -.1 0"/></body></worldbody>
<actuator><motor site="s1" gear="0 0 1 0 0 .01" ctrlrange="0 10"/>
<motor site="s2" gear="0 0 1 0 0 -.01" ctrlrange="0 10"/>
<motor site="s3" gear="0 0 1 0 0 .01" ctrlrange="0 10"/>
<motor site="s4" gear="0 0 1 0 0 -.01" ctrlrange="0 10"/></actuator></mujoco>"""


def test_motor_arm_holds_its_keyframe_and_says_how():
    model = mujoco.MjModel.from_xml_string(ARM)
    res = run_rollout(model, RolloutCfg(steps=1500))  # 3 s, from keyframe 'bent' (auto)
    q = res.final_data.qpos
    assert np.allclose(q[:2], [0.4, -0.6], atol=0.01), q  # gravity would swing it down
    per = res.probes["ctrl_used"]["per_actuator"]
    assert per == {
        "m_shoulder": "hold (motor)",
        "m_elbow": "hold (motor)",
        "v_wrist": "hold (velocity)",
    }
    assert "gravity compensation + PD" in res.probes["ctrl_used"]["description"]


def test_motor_arm_with_zero_falls():
    model = mujoco.MjModel.from_xml_string(ARM)
    res = run_rollout(model, RolloutCfg(steps=500, ctrl="zero"))
    assert abs(res.final_data.qpos[0] - 0.4) > 0.3  # the healthy hold above is not trivial


def test_thrusters_on_a_free_body_hover():
    model = mujoco.MjModel.from_xml_string(DRONE)
    res = run_rollout(model, RolloutCfg(steps=600))  # 3 s
    (b,) = res.probes["free_bodies"]
    assert abs(b["z_drop_m"]) < 0.01, b  # a free fall would drop 44 m in 3 s (or land)


def test_cpu_time_per_step_is_sampled_beside_the_wall_time():
    res = run_rollout(mujoco.MjModel.from_xml_string(DRONE), RolloutCfg(steps=320))
    cpu, wall = res.probes["cpu_per_step_s"], res.probes["wall_per_step_s"]
    assert 0 < cpu < 1e-3 and 0 < wall < 1e-3  # 20 sampled steps of a one-body model
