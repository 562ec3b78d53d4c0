"""SE3ToppPath: segments one after another, continuous at the joins, twists match T, validation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mjscope.control.planners import ReferenceAdapter, SE3ToppPath, SE3ToppTrajectory
from mjscope.dock.env import MujocoEnv
from mjscope.dock.run_docking import build_reference
from mjscope.dock.scene import dock_rotation, load_scene
from mjscope.exceptions import ConfigError
from tests.utils import assert_close

BOUNDS = {"a_max": 0.5, "w_max": 0.8, "alpha_max": 2.0}


def pose(rotvec, pos) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = Rotation.from_rotvec(rotvec).as_matrix()
    T[:3, 3] = pos
    return T


POSES = [pose([0, 0, 0], [0.5, 0, 0.4]), pose([0.3, -0.2, 0.1], [0.6, 0.05, 0.2]),
         pose([0.3, -0.2, 0.1], [0.6, 0.05, 0.15])]  # fmt: skip


def make(t0: float = 0.2) -> SE3ToppPath:
    return SE3ToppPath(POSES, [0.12, 0.02], **BOUNDS, t0=t0)


def test_segments_follow_each_other_with_their_own_bounds() -> None:
    path = make()
    a = SE3ToppTrajectory(POSES[0], POSES[1], 0.12, **BOUNDS, hold_before=0.2)
    b = SE3ToppTrajectory(POSES[1], POSES[2], 0.02, **BOUNDS, hold_before=a.t_end)
    assert_close(path.starts, [a.t_start, b.t_start], atol=1e-12, what="segment starts")
    assert path.duration == pytest.approx(b.t_end)
    ts = np.linspace(0.0, path.duration + 0.5, 3001)
    T, V, Vdot = path.get_motion_states(ts)
    seg = path.segments(ts)
    assert seg[0] == 0 and seg[-1] == 1 and set(np.unique(seg)) == {0, 1}
    for part, i in ((a, 0), (b, 1)):
        m = seg == i
        Tp, Vp, Vdp = part.get_motion_states(ts[m])
        assert_close(T[m], Tp, atol=1e-12, what=f"segment {i} pose")
        assert_close(V[m], Vp, atol=1e-12, what=f"segment {i} twist")
        assert_close(Vdot[m], Vdp, atol=1e-12, what=f"segment {i} twist rate")
    # the insertion's slower speed bound holds on its segment, the approach's on the first
    speed = np.linalg.norm(V[:, :3], axis=1)
    assert speed[seg == 1].max() <= 0.02 * (1 + 1e-9) and speed[seg == 0].max() > 0.05


def test_boundaries_and_continuity_at_the_join() -> None:
    path = make()
    assert_close(path.get_motion_state(0.0)[0], POSES[0], atol=1e-12, what="start pose")
    assert_close(path.get_motion_state(path.duration + 1.0)[0], POSES[2], atol=1e-12,
                 what="goal pose")  # fmt: skip
    join = path.starts[1]
    (Tm, Vm, _), (Tp, Vp, _) = path.get_motion_state(join - 1e-9), path.get_motion_state(join)
    assert_close(Tm, Tp, atol=1e-8, what="pose across the join")
    assert_close(Vm, Vp, atol=1e-7, what="twist across the join (both at rest)")
    assert_close(Vp, np.zeros(6), atol=1e-7, what="rest at the join")


def test_twist_and_world_state_against_finite_differences() -> None:
    path = make()
    h = 1e-6
    for t in np.linspace(0.25, path.duration - 0.05, 37):
        T, V, _ = path.get_motion_state(t)
        Vhat = np.linalg.inv(T) @ (
            path.get_motion_state(t + h)[0] - path.get_motion_state(t - h)[0]
        )
        Vhat /= 2 * h
        fd = np.concatenate([Vhat[:3, 3], [Vhat[2, 1], Vhat[0, 2], Vhat[1, 0]]])
        assert_close(fd, V, atol=1e-6, what=f"body twist at t={t}")
        pos, vel, _ = path.get_state(t)
        assert_close(pos, T[:3, 3], atol=1e-12, what="world position")
        fd_vel = (path.get_state(t + h)[0] - path.get_state(t - h)[0]) / (2 * h)
        assert_close(fd_vel, vel, atol=1e-6, what=f"world velocity at t={t}")


def test_reference_adapter_passes_the_path_through() -> None:
    path = make()
    ref = ReferenceAdapter(path)
    ts = np.arange(0, 4000) * 1e-3
    batch = ref.batch(ts)
    T, V, Vdot = path.get_motion_states(ts)
    for k in (0, 500, 1900, 3999):
        assert_close(batch[k].T_d, T[k], atol=0, what="T_d")
        assert_close(batch[k].V_d, V[k], atol=0, what="V_d")
        assert_close(ref(float(ts[k])).Vdot_d, Vdot[k], atol=1e-15, what="Vdot_d per instant")
        assert batch[k].segment == path.segment(float(ts[k]))


def test_docking_scene_plans_pre_dock_then_insertion() -> None:
    sc = load_scene("iiwa14_docking_topp")
    mj_model, _ = sc.build_models()
    env = MujocoEnv(mj_model, sc.initial_q(mj_model), sc.cfg.control_period)
    p0, R0 = env.eef_pose()
    ref = build_reference(sc, p0, R0)
    path = ref.planner
    assert isinstance(path, SE3ToppPath) and len(path.parts) == 2
    dock = sc.cfg.dock
    assert dock is not None
    axis, mouth = dock_rotation(dock)[:, 2], np.asarray(dock.pos)
    pre, goal = path.parts[0].T1, path.parts[1].T1
    assert_close(pre[:3, 3], mouth + sc.cfg.planner.standoff * axis, atol=1e-12, what="pre-dock")
    assert_close(goal[:3, 3], mouth - 0.032 * axis, atol=1e-12, what="commanded depth")
    # the tool turns on the way to the pre-dock pose (≥ 20°) and not during the insertion
    assert path.parts[0].length_ang > np.deg2rad(20) and path.parts[1].length_ang < 1e-9
    assert_close(pre[:3, 3], ref(path.starts[1]).pos, atol=1e-9, what="reference at the join")


@pytest.mark.parametrize(
    ("poses", "v", "match"),
    [
        (POSES[:1], 0.1, "at least two poses"),
        (POSES, [0.1], "1 speeds for 2 segments"),
        (POSES, 0.0, "v_max"),
    ],
)
def test_invalid_paths(poses, v, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        SE3ToppPath(poses, v, **BOUNDS)


def test_negative_start_time_is_rejected() -> None:
    with pytest.raises(ConfigError, match="t0 must be >= 0"):
        SE3ToppPath(POSES, 0.1, **BOUNDS, t0=-1.0)


@pytest.mark.parametrize(
    ("planner", "match"),
    [
        ({"kind": "se3_topp", "insert_v_max": 0.0}, "planner.insert_v_max must be > 0"),
        ({"kind": "se3_topp", "w_max": -1.0}, "planner.w_max"),
    ],
)
def test_scene_rejects_bad_se3_topp_bounds(tmp_path, planner: dict, match: str) -> None:
    import yaml

    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump({"robot": "iiwa14", "dock": {}, "planner": planner}))
    with pytest.raises(ConfigError, match=match):
        load_scene(p)
