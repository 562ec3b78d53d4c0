import mujoco
import numpy as np
import pytest

from mjscope.models import JointIndex, build_spec, compile_spec, load
from mjscope.models.robots import g20_left_constants as c


@pytest.fixture(scope="module")
def model() -> mujoco.MjModel:
    return load("g20_left")


def test_dimensions_match_constants(model):
    assert (model.nq, model.nv, model.nu, model.neq) == (c.NQ, c.NV, c.NU, c.NEQ)
    assert JointIndex(model).names == list(c.JOINT_NAMES)
    assert len(c.ACTIVE_JOINT_NAMES) == 16 and len(c.MIMIC_JOINT_NAMES) == 5


def test_joint_axes_limits_and_tree_match_constants(model):
    for j in c.JOINTS:
        jid = model.joint(j.name).id
        assert np.allclose(model.jnt_range[jid], [j.lower, j.upper]), j.name
        axis = np.asarray(j.axis, float) / np.linalg.norm(j.axis)
        assert np.allclose(model.jnt_axis[jid], axis), j.name
        body = model.jnt_bodyid[jid]
        assert model.body(body).name == j.child
        assert model.body(model.body_parentid[body]).name == j.parent


def test_zero_pose_matches_urdf_forward_kinematics(model):
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    rel = lambda name: (data.xpos[model.body(name).id] - c.MOUNT_POS) * 1000  # noqa: E731
    # facts/g20_hand.md §9 (mm, palm frame)
    assert np.allclose(rel("middle_distal"), [-19.3, -5.1, 240.3], atol=0.1)
    assert np.allclose(rel("thumb_distal"), [22.4, -125.1, 57.5], atol=0.1)
    assert np.allclose(rel("pinky_metacarpals"), [-28.7, 38.1, 150.3], atol=0.1)
    assert data.ncon == 0  # open and collision free at rest


def test_palm_fixed_at_mount_and_selective_collision(model):
    palm = model.body(c.ROOT_BODY)
    assert np.allclose(palm.pos, c.MOUNT_POS) and model.body_jntnum[palm.id] == 0
    colliding = {
        model.body(model.geom_bodyid[g]).name for g in range(model.ngeom) if model.geom_contype[g]
    }
    assert colliding == {"world", c.ROOT_BODY, "thumb_distal", *(f"{f}_distal" for f in c.FINGERS)}
    allm = compile_spec(build_spec("g20_left", collide_all=True))
    hand_geoms = [g for g in range(allm.ngeom) if allm.geom_bodyid[g] > 0]
    assert all(allm.geom_contype[g] == 1 for g in hand_geoms)


def test_mimic_equalities_and_actuators(model):
    for e in range(model.neq):
        mimic = model.joint(model.eq_obj1id[e]).name
        driver, ratio = c.MIMIC[mimic]
        assert model.joint(model.eq_obj2id[e]).name == driver
        assert model.eq_data[e, 1] == pytest.approx(ratio)
    for a in range(model.nu):
        joint = model.joint(model.actuator_trnid[a, 0]).name
        kp = (c.THUMB_GAINS if joint.startswith("thumb") else c.FINGER_GAINS)[0]
        assert joint in c.ACTIVE_JOINT_NAMES and model.actuator_gainprm[a, 0] == kp
    bare = compile_spec(build_spec("g20_left", actuators=False, mimic_equality=False))
    assert (bare.nu, bare.neq) == (0, 0)
    custom = compile_spec(build_spec("g20_left", mimic_ratios={"thumb_ip": 1.1619}))
    assert custom.eq_data[0, 1] == pytest.approx(1.1619)
