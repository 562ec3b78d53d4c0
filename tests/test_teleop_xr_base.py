"""Headset frame → robot world: the facts' axis mapping, quaternion order, scipy as reference."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mjscope.teleop.xr import R_WORLD_XR, ControllerState, XrFrame, world_pose_to_xr
from mjscope.teleop.xr import xr_pose_to_world as to_world
from tests.utils import assert_close

IDENTITY_XR = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]  # x y z qx qy qz qw


@pytest.mark.parametrize(
    ("xr", "world"),
    [
        ((0.0, 0.0, -1.0), (1.0, 0.0, 0.0)),  # world x = -xr z (forward)
        ((-1.0, 0.0, 0.0), (0.0, 1.0, 0.0)),  # world y = -xr x (left)
        ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),  # world z = xr y (up)
        ((0.1, 0.2, 0.3), (-0.3, -0.1, 0.2)),
    ],
)
def test_position_axis_mapping_from_the_facts(xr, world):
    out = to_world([*xr, 0.0, 0.0, 0.0, 1.0])
    assert_close(out[:3], world, atol=1e-15, what="position")
    assert_close(out[3:], [1.0, 0.0, 0.0, 0.0], atol=1e-15, what="identity quaternion (w first)")


def test_rotation_about_xr_up_is_rotation_about_world_z():
    # 90 deg about the headset's y (up) axis, XR order (qx, qy, qz, qw).
    s = np.sqrt(0.5)
    out = to_world([0.0, 0.0, 0.0, 0.0, s, 0.0, s])
    assert_close(out[3:], [s, 0.0, 0.0, s], atol=1e-12, what="w x y z")


def test_against_scipy_for_random_poses():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = rng.uniform(-2.0, 2.0, 3)
        r_xr = Rotation.random(random_state=rng)
        q_xyzw = r_xr.as_quat()  # scipy: (x, y, z, w), the XR order
        out = to_world([*p, *q_xyzw])
        assert_close(out[:3], R_WORLD_XR @ p, atol=1e-12, what="position")
        expected = R_WORLD_XR @ r_xr.as_matrix() @ R_WORLD_XR.T
        got = Rotation.from_quat([*out[4:], out[3]]).as_matrix()
        assert_close(got, expected, atol=1e-12, what="R_w = R R_xr R^T")
        assert out[3] >= 0.0
        assert abs(np.linalg.norm(out[3:]) - 1.0) < 1e-12


def test_non_unit_quaternion_is_normalised():
    out = to_world([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -2.0])
    assert_close(out[3:], [1.0, 0.0, 0.0, 0.0], atol=1e-15, what="w >= 0 and unit")


def test_world_pose_to_xr_inverts_the_conversion():
    rng = np.random.default_rng(1)
    for _ in range(100):
        q = Rotation.random(random_state=rng).as_quat()
        q = q if q[3] >= 0 else -q
        xr = np.concatenate([rng.uniform(-1, 1, 3), q])
        assert_close(world_pose_to_xr(to_world(xr)), xr, atol=1e-12, what="round trip")


@pytest.mark.parametrize(
    "bad",
    [[0.0] * 6, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, float("nan")], [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0]],
)
def test_bad_poses_raise(bad):
    with pytest.raises(ValueError, match="pose"):
        to_world(bad)


def test_frame_side_lookup():
    c = ControllerState(pose=to_world(IDENTITY_XR))
    frame = XrFrame(stamp_ns=5, left=c)
    assert frame.side("left") is c
    assert frame.side("right") is None
    assert frame.side("up") is None
