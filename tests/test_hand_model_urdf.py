import dataclasses

import mujoco
import numpy as np
import pytest

from mjscope.bridge.messages import JointState
from mjscope.bridge.transport import make_transport
from mjscope.hand.bridge import TOPIC_CMD, TOPIC_NOMINAL, HandBridge, HandBridgeCfg
from mjscope.hand.model import build_hand_model
from mjscope.hand.profile import load_profile
from mjscope.hand.track import run_track_test
from tests.utils import assert_close, asset

P = load_profile("l20v9_left")


def _urdf() -> str:
    return str(asset("linkerhand_l20_left", "linkerhand_l20_left.urdf"))


def test_real_l20_urdf_runs_the_bridge_by_joint_names():
    hand = build_hand_model(_urdf(), P)
    assert hand.model.nq == 21 and len(hand.chain_names) == 5
    assert hand.excluded_pairs > 0  # mesh pairs overlapping at rest are excluded
    with make_transport("inproc") as bus:
        b = HandBridge(hand, HandBridgeCfg(slew_rad_s=0.0), bus)
        pub = bus.publisher(TOPIC_CMD, JointState)
        names = [s.joint for s in P.slots]
        raw = dict(zip(range(20), P.fist_command, strict=True))
        pub.publish(JointState(name=names, position=[raw[s.index] for s in P.slots]))
        for _ in range(3):
            b.step()
        assert b.rejects.total == 0
        assert b.goal["index_pip"] == pytest.approx(1.08 / 0.8917)
        assert b.goal["index_dip"] == pytest.approx(1.08)  # public ratio 0.8917
        assert b.projector.depths(b.data.qpos.copy())[1] <= 1e-3
        q = b.positions()
        assert q["index_mcp_pitch"] > 1.0 and q["pinky_pip"] > 1.0  # the fingers closed


def test_real_l20_urdf_pd_track_test_and_nominal():
    hand = build_hand_model(_urdf(), P, pd=True, gravity=True)
    assert hand.model.nu == 16 and hand.model.neq == 5
    # Mimic ratios of the public L20 v9 URDF (../shared/assets/linkerhand_l20_left, <mimic>).
    assert np.allclose(sorted(hand.model.eq_data[:, 1]), [0.8917] * 4 + [1.1619])
    with make_transport("inproc") as bus:
        b = HandBridge(hand, HandBridgeCfg(pd_drive=True, plan_nominal=True), bus)
        bus.publisher(TOPIC_NOMINAL, JointState).publish(
            JointState(name=["index_mcp_pitch"], position=[0.8])
        )
        for _ in range(150):
            b.step()
        assert b.positions()["index_mcp_pitch"] == pytest.approx(0.8, abs=0.01)
        assert b.positions()["index_dip"] == pytest.approx(
            0.8917 * b.positions()["index_pip"], abs=0.01
        )
    res = run_track_test(HandBridge(hand, HandBridgeCfg(pd_drive=True, slew_rad_s=0.0)))
    assert res.passed and res.recoveries == 0


def test_profile_name_mapping_for_a_model_that_differs():
    import mujoco

    from mjscope.models import build_spec

    spec = build_spec("g20_left")
    spec.joint("thumb_ip").name = "thumb_dip"  # the LHG20 spelling
    for eq in spec.equalities:
        if eq.name1 == "thumb_ip":
            eq.name1 = "thumb_dip"
    g20 = load_profile()
    from mjscope.exceptions import UnknownNameError

    with pytest.raises(UnknownNameError, match=r"thumb_ip.*joint_names"):
        build_hand_model(spec, g20)
    mapped = dataclasses.replace(g20, joint_names={"thumb_ip": "thumb_dip"})
    spec2 = build_spec("g20_left", mimic_equality=False)
    spec2.joint("thumb_ip").name = "thumb_dip"
    b = HandBridge(build_hand_model(spec2, mapped), HandBridgeCfg(slew_rad_s=0.0))
    assert b.handle_nominal(JointState(name=["thumb_mcp", "thumb_dip"], position=[0.5, 0.3]))
    b.step()
    assert b.state().name.count("thumb_dip") == 1
    assert b.data.qpos[mujoco.mj_name2id(b.model, mujoco.mjtObj.mjOBJ_JOINT, "thumb_dip")] == 0.3


def test_every_pd_actuator_of_a_urdf_hand_has_its_force_range():
    hand = build_hand_model(_urdf(), P, pd=True)
    m = hand.model
    assert m.nu == 16
    by_model_name = {P.model_name(j): j for j in P.active_joints}
    for a in range(m.nu):
        j = by_model_name[mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, m.actuator_trnid[a, 0])]
        effort = P.gains_for(j).max_effort
        assert m.actuator_forcelimited[a], a  # was True for the last actuator only
        assert_close(m.actuator_forcerange[a], [-effort, effort], what=f"actuator {a}")
        assert m.actuator_gear[a, 0] == 1.0 and not m.actuator_ctrllimited[a]
