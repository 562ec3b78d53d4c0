"""RM75 and dual-RM75 bundled models: constants, kinematics vs the facts and the real URDF."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from mjscope.models import JointIndex, load
from mjscope.models.robots import dual_rm75_constants as D
from mjscope.models.robots import rm75_constants as C
from tests.utils import assert_close, asset


def _rot(axis: str, a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return {
        "x": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]),
        "y": np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]),
        "z": np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]),
    }[axis]


def _axis_angle(axis: np.ndarray, a: float) -> np.ndarray:
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(a) * K + (1 - math.cos(a)) * K @ K


def fk_from_facts(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hand-written URDF chain from the facts table: origin(xyz, rpy) then rotation about axis."""
    table = [  # xyz, rpy as in facts §1a (π/2 written exactly), axis
        ((0, 0, 0.2405), (-math.pi / 2, 0, 0), (0, -1, 0)),
        ((0, 0, 0), (math.pi / 2, 0, 0), (0, 1, 0)),
        ((0, 0, 0.256), (-math.pi / 2, 0, 0), (0, -1, 0)),
        ((0, 0, 0), (math.pi / 2, 0, 0), (0, 1, 0)),
        ((0, 0, 0.21), (-math.pi / 2, 0, 0), (0, -1, 0)),
        ((0, 0, 0), (math.pi / 2, 0, 0), (0, 1, 0)),
        ((0, 0, 0.144), (0, 0, 0), (0, 0, 1)),
    ]
    R, p = np.eye(3), np.zeros(3)
    for (xyz, (r, pi, y), axis), qi in zip(table, q, strict=True):
        p = p + R @ np.asarray(xyz, float)
        R = R @ _rot("z", y) @ _rot("y", pi) @ _rot("x", r) @ _axis_angle(np.array(axis), qi)
    return p, R


def _flange(model: mujoco.MjModel, q: np.ndarray, body: str) -> tuple[np.ndarray, np.ndarray]:
    data = mujoco.MjData(model)
    JointIndex(model).write_qpos(data.qpos, C.JOINT_NAMES, q)
    mujoco.mj_forward(model, data)
    return data.body(body).xpos.copy(), data.body(body).xmat.reshape(3, 3).copy()


def _random_q(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lim = np.asarray(C.JOINT_LIMITS)
    return rng.uniform(-0.9 * lim, 0.9 * lim, size=(n, 7))


def test_rm75_constants_match_compiled_model() -> None:
    m = load("rm75")
    assert (m.nq, m.nv) == (C.NQ, C.NV)
    assert [m.joint(i).name for i in range(m.njnt)] == list(C.JOINT_NAMES)
    assert_close(m.jnt_range[:, 1], C.JOINT_LIMITS, what="upper limits")
    assert_close(m.jnt_range[:, 0], -np.asarray(C.JOINT_LIMITS), what="lower limits")
    assert_close(m.jnt_actfrcrange[:, 1], C.EFFORT_LIMITS, what="effort")
    masses = [m.body(n).mass[0] for n in C.LINK_NAMES]
    assert_close(masses, C.LINK_MASSES, atol=1e-12, what="link masses")
    assert sum(C.LINK_MASSES) == pytest.approx(3.11, abs=0.01)


def test_rm75_flange_at_zero_is_0_8505_with_identity() -> None:
    p, R = _flange(load("rm75"), np.zeros(7), C.FLANGE_BODY)
    assert_close(p, [0, 0, 0.8505], atol=1e-12, what="flange position")
    assert_close(R, np.eye(3), atol=1e-12, what="flange orientation")


@pytest.mark.parametrize("k", range(6))
def test_rm75_fk_matches_hand_computed_chain(k: int) -> None:
    q = _random_q(6, seed=1)[k]
    p, R = _flange(load("rm75"), q, C.FLANGE_BODY)
    p_ref, R_ref = fk_from_facts(q)
    assert_close(p, p_ref, atol=1e-12, what=f"flange pos at {q}")
    assert_close(R, R_ref, atol=1e-12, what=f"flange rot at {q}")


def test_rm75_single_joint_poses_by_hand() -> None:
    m = load("rm75")
    q = np.zeros(7)
    q[1] = math.pi / 2  # joint2 about Link1's y = base -y... the upper arm tips over
    p, _ = _flange(m, q, C.FLANGE_BODY)
    p_ref, _ = fk_from_facts(q)
    assert_close(p, p_ref, atol=1e-12)
    # Shoulder at 0.2405 m; the 0.61 m above it now lies horizontal.
    assert p[2] == pytest.approx(0.2405, abs=1e-9)
    assert np.hypot(p[0], p[1]) == pytest.approx(0.61, abs=1e-9)


def test_rm75_matches_real_urdf() -> None:
    urdf = asset("rm75", "urdf", "rm_75.urdf")
    real, ours = load(urdf), load("rm75")
    assert [real.joint(i).name for i in range(real.njnt)] == list(C.JOINT_NAMES)
    assert_close(real.jnt_range, ours.jnt_range, atol=1e-12, what="ranges")
    for q in [np.zeros(7), *_random_q(5, seed=2)]:
        p_real, R_real = _flange(real, q, "Link7")
        p_ours, R_ours = _flange(ours, q, "Link7")
        # The URDF writes π/2 as 1.5708 (7e-6 rad off): sub-0.1 mm differences.
        assert_close(p_ours, p_real, atol=1e-4, what=f"flange pos at {q}")
        assert_close(R_ours, R_real, atol=1e-4, what=f"flange rot at {q}")
    masses = [real.body(n).mass[0] for n in C.LINK_NAMES]
    assert_close(masses, C.LINK_MASSES, atol=6e-4, what="URDF masses")


def test_dual_rm75_names_and_base_poses() -> None:
    m = load("dual_rm75")
    assert (m.nq, m.nv) == (D.NQ, D.NV)
    assert sorted(m.joint(i).name for i in range(m.njnt)) == sorted(D.JOINT_NAMES)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    # Facts §2 option A: right base at (−0.125, 0, 0.93), z along −x; left mirrored.
    assert_close(d.body("right_base_link").xpos, [-0.125, 0, 0.93], atol=1e-12)
    assert_close(d.body("left_base_link").xpos, [0.125, 0, 0.93], atol=1e-12)
    assert_close(d.body("right_base_link").xmat.reshape(3, 3)[:, 2], [-1, 0, 0], atol=1e-12)
    assert_close(d.body("left_base_link").xmat.reshape(3, 3)[:, 2], [1, 0, 0], atol=1e-12)
    assert m.body("body_base_link").mass[0] == pytest.approx(D.TORSO_MASS)


@pytest.mark.parametrize("side", D.SIDES)
def test_dual_rm75_each_arm_is_an_rm75_on_its_base(side: str) -> None:
    m = load("dual_rm75")
    idx = JointIndex(m)
    for q in _random_q(3, seed=3):
        d = mujoco.MjData(m)
        idx.write_qpos(d.qpos, D.joint_names(side), q)
        mujoco.mj_forward(m, d)
        base_p = d.body(f"{side}_base_link").xpos
        base_R = d.body(f"{side}_base_link").xmat.reshape(3, 3)
        p_ref, R_ref = fk_from_facts(q)
        assert_close(d.site(f"{side}_flange").xpos, base_p + base_R @ p_ref, atol=1e-12)
        flange_R = d.site(f"{side}_flange").xmat.reshape(3, 3)
        assert_close(flange_R, base_R @ R_ref, atol=1e-12)
