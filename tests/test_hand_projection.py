import mujoco
import numpy as np
import pytest

from mjscope.hand._contacts import ContactCheck
from mjscope.hand._groups import joint_groups, separation_rows
from mjscope.hand.bridge import HandBridge, HandBridgeCfg
from mjscope.hand.model import build_hand_model
from mjscope.hand.profile import load_profile
from mjscope.models import build_spec
from mjscope.models.robots.g20_left_constants import MOUNT_POS
from tests.utils import assert_close

P = load_profile()
TOL = 1e-3


def _bridge(source="g20_left", projection=True, collide_all=True, slew=0.0) -> HandBridge:
    hand = build_hand_model(source, P, collide_all=collide_all)
    cfg = HandBridgeCfg(slew_rad_s=slew, self_collision=projection, penetration_tol=TOL)
    return HandBridge(hand, cfg)


def _settle(b: HandBridge, n: int = 3) -> float:
    for _ in range(n):
        b.step()
    return b.projector.depths(b.data.qpos.copy())[1]


def test_fist_on_colliding_model_ends_within_tolerance():
    raw = _bridge(projection=False)
    raw.command_sdk(P.fist_command)
    assert _settle(raw) > 2 * TOL  # the commanded fist does collide (thumb over the fingers)
    b = _bridge()
    b.command_sdk(P.fist_command)
    depth = _settle(b, 5)
    assert depth <= TOL
    assert b.last_projection is not None and b.last_projection.limited  # something stopped
    # only the chains in contact stopped: the fingers reach the fist exactly
    for j in ("index_pip", "middle_mcp_pitch", "ring_pip", "pinky_mcp_pitch"):
        assert b.positions()[j] == pytest.approx(b.goal[j], abs=1e-12)


def _thumb_chain(b: HandBridge) -> int:
    adr = b.hand.qadr["thumb_cmc_yaw"]
    return next(c for c, a in enumerate(b.hand.chain_qadr) if adr in a)


def _thumb_gap(b: HandBridge) -> float:
    """Smallest signed distance between the thumb and the other fingers [m]."""
    m, gc, t = b.model, b.hand.geom_chain, _thumb_chain(b)
    live = [g for g in range(m.ngeom) if m.geom_contype[g] or m.geom_conaffinity[g]]
    thumb = [g for g in live if gc[g] == t]
    other = [g for g in live if gc[g] >= 0 and gc[g] != t]
    return min(mujoco.mj_geomDistance(m, b.data, a, c, 0.05, None) for a in thumb for c in other)


@pytest.mark.parametrize("collide_all", [False, True])
def test_fist_at_default_slew_closes_every_finger_and_opens_exactly(collide_all):
    b = _bridge(collide_all=collide_all, slew=HandBridgeCfg().slew_rad_s)
    b.command_sdk(P.fist_command)
    worst = max(_settle(b, 1) for _ in range(60))  # the fingers need 26 steps of 0.05 rad
    assert worst <= TOL
    q = b.positions()
    for f in ("index", "middle", "ring", "pinky"):  # the thumb yields: every finger closes
        for j in ("mcp_pitch", "pip", "dip"):
            assert q[f"{f}_{j}"] == pytest.approx(b.goal[f"{f}_{j}"], abs=0.05), (f, j)
    assert b.last_projection is not None
    assert b.last_projection.limited == (b.hand.chain_names[_thumb_chain(b)],)
    assert -TOL <= _thumb_gap(b) < 0.5e-3  # the thumb ends where it touches the fingers
    b.command_sdk(P.open_command)
    assert max(_settle(b, 1) for _ in range(60)) <= TOL
    assert b.positions() == b.goal  # back to the open hand exactly


def test_contact_check_caches_poses_and_a_yielding_chain_carries_its_contacts():
    raw = _bridge(projection=False)
    raw.command_sdk(P.fist_command)
    raw.step()  # the commanded fist: the thumb lies in the fingers
    check, q, t = ContactCheck(raw.hand), raw.data.qpos.copy(), _thumb_chain(raw)
    full, worst, count = check.depths(q)
    assert count > 0 and full[t] > TOL and worst == max(full)
    ylds = check.depths(q, yielding=t)[0]
    assert check.evaluations == 1  # the same pose is not evaluated twice
    assert ylds[t] == full[t]  # the thumb carries its contacts with the fingers ...
    assert [c for c in range(len(full)) if ylds[c] < full[c]]  # ... and they no longer count
    assert all(ylds[c] <= full[c] for c in range(len(full)))
    check.clear()
    check.depths(q)
    assert check.evaluations == 2


def test_collision_free_goal_is_applied_exactly():
    b = _bridge()
    half = np.full(20, 200.0)
    b.command_sdk(half)
    b.step()
    assert b.last_projection is not None and b.last_projection.limited == ()
    for j, q in b.positions().items():
        assert q == b.goal[j]  # bit-for-bit
    q_from, q_to = b.data.qpos.copy(), b.data.qpos.copy()
    q_to[0] += 0.01
    res = b.projector.project(q_from, q_to)
    assert np.array_equal(res.qpos, q_to) and res.evaluations == 1


def test_finger_pushed_into_scene_box_stops_at_the_box():
    spec = build_spec("g20_left", mimic_equality=False)
    box = spec.worldbody.add_geom(name="box", type=mujoco.mjtGeom.mjGEOM_BOX)
    box.size = [0.01, 0.0125, 0.035]
    box.pos = list(np.add(MOUNT_POS, (0.03, -0.0275, 0.235)))
    b = _bridge(spec, collide_all=False, slew=5.0)  # the default slew: 0.05 rad per step
    b.set_nominal_targets({"index_mcp_roll": 0.0, "index_mcp_pitch": 1.3})
    depth = _settle(b, 80)  # far longer than the 26 steps the free motion needs
    q = b.positions()["index_mcp_pitch"]
    assert depth <= TOL
    assert 0.1 < q < 0.8  # stopped by the box, well short of the 1.3 rad goal
    m, d = b.model, b.data
    tip, boxid = m.geom("index_distal_geom").id, m.geom("box").id
    gap = mujoco.mj_geomDistance(m, d, tip, boxid, 0.05, None)
    assert -TOL <= gap < 3e-3  # it stops where it touches, not before
    assert b.tracking_error()[0] > 0.5  # and reports that it lags its goal
    other = _bridge(collide_all=False, slew=5.0)  # same command without the box goes all the way
    other.set_nominal_targets({"index_mcp_roll": 0.0, "index_mcp_pitch": 1.3})
    _settle(other, 80)
    assert other.positions()["index_mcp_pitch"] == pytest.approx(1.3)


def test_fist_then_open_never_locks():
    rng = np.random.default_rng(3)
    for collide_all in (False, True):
        b = _bridge(collide_all=collide_all, slew=5.0)
        for cmd in [P.fist_command, *rng.uniform(0, 255, (6, 20))]:
            b.command_sdk(cmd)
            worst = max(_settle(b, 1) for _ in range(40))
            assert worst <= TOL
            b.command_sdk(P.open_command)
            _settle(b, 60)
            assert b.tracking_error()[0] == 0.0  # the open hand is always reached exactly


def test_projection_is_deterministic_and_never_worse_than_tolerance():
    rng = np.random.default_rng(0)
    b = _bridge()
    for _ in range(15):
        b.command_sdk(rng.uniform(0, 255, 20))
        b.step()
        assert b.projector.depths(b.data.qpos.copy())[1] <= TOL
    c = _bridge()
    rng = np.random.default_rng(0)
    for _ in range(15):
        c.command_sdk(rng.uniform(0, 255, 20))
        c.step()
    assert np.array_equal(b.data.qpos, c.data.qpos)


def test_worst_is_the_deepest_depth_and_skipping_a_yielding_chain_leaves_the_others():
    raw = _bridge(projection=False)
    raw.command_sdk(P.fist_command)
    raw.step()
    check, q, t = ContactCheck(raw.hand), raw.data.qpos.copy(), _thumb_chain(raw)
    full, worst, _ = check.depths(q)
    assert check.worst(q) == worst == max(full) > TOL
    ylds = check.depths(q, yielding=t)[0]
    others = max(d for c, d in enumerate(ylds) if c != t)
    assert check.worst(q, skip=t) == others < worst  # the thumb's contacts left out
    assert check.evaluations == 1


def test_separation_rows_match_a_per_contact_jacobian():
    raw = _bridge(projection=False)
    raw.command_sdk(P.fist_command)
    raw.step()
    hand, t = raw.hand, _thumb_chain(raw)
    check, g = ContactCheck(hand), joint_groups(hand)
    members = np.flatnonzero(g.chain == t)
    data = check.load(raw.data.qpos.copy())
    rows, depth = separation_rows(hand.model, data, hand.geom_chain, t, g, members, 0.0)
    m, expect, deep = hand.model, [], []
    jp1, jp2 = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    for con in data.contact[: data.ncon]:  # one contact at a time, as the formula reads
        if t not in hand.geom_chain[con.geom] or -con.dist <= 0.0:
            continue
        mujoco.mj_jac(m, data, jp1, None, con.pos, m.geom_bodyid[con.geom[0]])
        mujoco.mj_jac(m, data, jp2, None, con.pos, m.geom_bodyid[con.geom[1]])
        jn = con.frame[:3] @ (jp2 - jp1)
        expect.append([jn[g.dof[k]] @ g.pattern[k] for k in members])
        deep.append(-con.dist)
    assert len(deep) >= 2 and rows.shape == (len(deep), members.size)
    assert_close(rows, np.array(expect), atol=1e-12, what="separation rate [m/rad]")
    assert_close(depth, np.array(deep), atol=0.0, what="depth [m]")


def test_scene_contacts_without_a_finger_are_not_hand_contacts():
    spec = build_spec("g20_left", mimic_equality=False)
    body = spec.worldbody.add_body(name="crate", pos=[0.5, 0.5, 0.0])  # sunk into the floor
    body.add_freejoint()
    body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.05, 0.05, 0.05])
    b = _bridge(spec, collide_all=False)
    check, q = ContactCheck(b.hand), b.data.qpos.copy()
    assert check.depths(q) == ([0.0] * len(b.hand.chain_qadr), 0.0, 0)
    assert check.worst(q) == 0.0
    assert check.data.ncon > 0  # MuJoCo does report the crate–floor contact
    b.command_sdk(P.fist_command)
    b.step()
    assert b.last_projection is not None and b.last_projection.max_penetration <= TOL
