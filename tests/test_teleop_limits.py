"""Cartesian limits: the workspace (box minus keep-out cylinders) and the target's speed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjscope.rig import load_rig_cfg
from mjscope.teleop.limits import CartesianLimiter, Workspace
from mjscope.teleop.poses import Pose, quat_angle, rotvec_to_quat
from tests.utils import assert_close

WS = Workspace(
    np.array([-0.9, -0.6, 0.3]),
    np.array([0.9, 0.4, 1.4]),
    np.zeros(2),
    radius=0.15,
    low_height=0.55,
    low_radius=0.25,
)
ID = np.array([1.0, 0.0, 0.0, 0.0])
coord = st.floats(-2.0, 2.0, allow_nan=False)


def test_box_clamp_names_the_limit() -> None:
    p, hit = WS.project(np.array([1.5, 0.0, 2.0]))
    assert_close(p, [0.9, 0.0, 1.4])
    assert hit == ("workspace",)
    p, hit = WS.project(np.array([0.5, 0.0, 1.0]))
    assert hit == ()
    assert_close(p, [0.5, 0.0, 1.0])


def test_cylinders_push_out_to_the_nearest_allowed_point() -> None:
    p, hit = WS.project(np.array([0.05, 0.0, 1.0]))  # inside the torso cylinder
    assert hit == ("cylinder",) and abs(math.hypot(p[0], p[1]) - 0.15) < 1e-6 and p[2] == 1.0
    p, hit = WS.project(np.array([0.2, 0.0, 0.45]))  # low: out 5 cm is nearer than up 10 cm
    assert hit == ("low_cylinder",) and WS.contains(p)
    assert_close(p, [0.25, 0.0, 0.45], 1e-6, what="radially out by 5 cm")
    p, hit = WS.project(np.array([0.2, 0.0, 0.54]))  # 1 cm below the low height: lift
    assert_close(p, [0.2, 0.0, 0.55], 1e-12)
    p, _ = WS.project(np.array([0.0, 0.0, 1.0]))  # on the axis: out towards the box centre
    assert WS.contains(p)


def test_keepout_radius_by_height() -> None:
    assert WS.keepout_radius(0.4) == 0.25 and WS.keepout_radius(0.6) == 0.15
    assert Workspace(WS.lo, WS.hi, np.zeros(2)).contains(np.array([0.0, 0.0, 1.0]))


@settings(max_examples=300, deadline=None)
@given(st.tuples(coord, coord, coord))
def test_projection_is_allowed_and_idempotent(xyz: tuple[float, float, float]) -> None:
    p, _ = WS.project(np.array(xyz))
    assert WS.contains(p)
    again, hit = WS.project(p)
    assert hit == () and np.array_equal(again, p)


@settings(max_examples=300, deadline=None)
@given(st.tuples(coord, coord, coord), st.tuples(coord, coord, coord))
def test_speed_limited_targets_stay_allowed(a: tuple, b: tuple) -> None:
    lim = CartesianLimiter(WS, max_linear_speed=0.3, max_orientation_speed=1.5, dt=1 / 90)
    prev = Pose(WS.project(np.array(a))[0], ID)
    out = lim.limit(Pose(np.array(b), ID), prev)
    assert WS.contains(out.pose.p)
    assert np.linalg.norm(out.pose.p - prev.p) <= 0.3 / 90 + 1e-12


def test_speed_limit_moves_along_the_line_at_the_limit() -> None:
    lim = CartesianLimiter(WS, 0.3, 1.5, 0.01)
    prev = Pose(np.array([0.5, 0.0, 1.0]), ID)
    out = lim.limit(Pose(np.array([0.6, 0.0, 1.0]), ID), prev)
    assert out.clamps == ("linear_speed",)
    assert_close(out.pose.p, [0.503, 0.0, 1.0], 1e-12)


def test_orientation_speed_turns_by_the_limit_towards_the_target() -> None:
    lim = CartesianLimiter(WS, 0.3, 1.5, 0.01)
    prev = Pose(np.array([0.5, 0.0, 1.0]), ID)
    goal = rotvec_to_quat(np.array([0.0, 0.0, 1.0]))
    out = lim.limit(Pose(prev.p, goal), prev)
    assert out.clamps == ("orientation_speed",)
    assert abs(quat_angle(out.pose.q, ID) - 0.015) < 1e-9
    assert abs(quat_angle(out.pose.q, goal) - (1.0 - 0.015)) < 1e-9  # on the geodesic


def test_a_speed_limited_step_into_the_torso_slides_along_it() -> None:
    lim = CartesianLimiter(WS, 0.3, 1.5, 0.1)  # 3 cm per cycle
    prev = Pose(np.array([0.16, 0.0, 1.0]), ID)
    out = lim.limit(Pose(np.array([-0.3, -0.02, 1.0]), ID), prev)  # straight through the axis
    assert WS.contains(out.pose.p) and "linear_speed" in out.clamps
    assert np.linalg.norm(out.pose.p - prev.p) <= 0.03 + 1e-12
    assert out.pose.p[1] < -1e-3  # moved round the cylinder, not stuck


def test_the_packaged_sides_have_sensible_workspaces() -> None:
    rig = load_rig_cfg()
    left, right = (Workspace.from_side(rig.sides[s]) for s in ("left", "right"))
    assert left.contains(np.array([0.34, 0.0, 0.62])) and not left.contains(np.array([-0.3, 0, 1]))
    assert right.contains(np.array([-0.31, 0.0, 0.58])) and not right.contains(
        np.array([0.3, 0, 1])
    )


@pytest.mark.parametrize("bad", [np.array([np.nan, 0.0, 1.0])])
def test_non_finite_points_are_not_allowed(bad: np.ndarray) -> None:
    assert not WS.contains(bad)
