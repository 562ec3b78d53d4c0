"""The clutch: anchors on the first engaged cycle, scaled deltas, world-frame rotation."""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from mjscope.teleop.clutch import Clutch
from mjscope.teleop.poses import Pose, canonical, quat_angle
from tests.utils import assert_close


def _q(rotvec: list[float]) -> np.ndarray:
    x, y, z, w = Rotation.from_rotvec(rotvec).as_quat()
    return canonical(np.array([w, x, y, z]))


EE = Pose(np.array([0.3, -0.1, 0.8]), _q([0.0, 0.4, 0.0]))


def test_first_cycle_anchors_and_gives_the_anchor() -> None:
    c = Clutch(scale=1.5, threshold=0.9)
    calls = []
    ctrl = Pose(np.array([1.0, 2.0, 3.0]), _q([0.3, 0.0, 0.0]))
    t = c.target(ctrl, lambda: calls.append(1) or EE)
    assert_close(t.as_array(), EE.as_array(), 1e-12)
    c.target(ctrl, lambda: calls.append(1) or EE)
    assert calls == [1] and c.engagements == 1 and c.anchored


def test_scaled_translation_and_world_frame_rotation() -> None:
    c = Clutch(scale=1.5, threshold=0.5)
    ctrl0 = Pose(np.array([0.0, 0.0, 1.0]), _q([0.0, 0.0, 0.2]))
    c.target(ctrl0, lambda: EE)
    turn = Rotation.from_rotvec([0.0, 0.0, 0.5])  # a world-z turn of the controller
    q1 = (turn * Rotation.from_quat(np.roll(ctrl0.q, -1))).as_quat()
    ctrl1 = Pose(ctrl0.p + np.array([0.1, 0.0, -0.02]), canonical(np.roll(q1, 1)))
    t = c.target(ctrl1, lambda: EE)
    assert_close(t.p, EE.p + 1.5 * np.array([0.1, 0.0, -0.02]), 1e-12, what="Δp scaled")
    expected = turn * Rotation.from_quat(np.roll(EE.q, -1))  # ΔR applied on the left (world)
    assert quat_angle(t.q, canonical(np.roll(expected.as_quat(), 1))) < 1e-9
    wrong = Rotation.from_quat(np.roll(EE.q, -1)) * turn  # body-frame application differs
    assert quat_angle(t.q, canonical(np.roll(wrong.as_quat(), 1))) > 0.1


def test_release_clears_both_anchors() -> None:
    c = Clutch(scale=1.0, threshold=0.9)
    c.target(Pose(np.zeros(3), _q([0, 0, 0])), lambda: EE)
    c.release()
    assert not c.anchored and c.anchor is None
    other = Pose(np.array([0.5, 0.5, 0.5]), _q([0.1, 0.2, 0.3]))
    t = c.target(Pose(np.ones(3), _q([0.3, 0, 0])), lambda: other)  # re-anchors: no jump
    assert_close(t.as_array(), other.as_array(), 1e-12)
    assert c.engagements == 2


def test_threshold_is_strict() -> None:
    c = Clutch(scale=1.0, threshold=0.9)
    assert not c.pressed(0.9) and c.pressed(0.9001) and not c.pressed(0.0)
