"""Planners (position ``get_state(t)``, SE(3) ``get_motion_state(t)``) and the reference adapter."""

from mjscope.control.planners.orientation import RockingOrientation
from mjscope.control.planners.reference import (
    MotionReference,
    ReferenceAdapter,
    aligned_rotation,
    get_motion_reference,
    is_se3_planner,
)
from mjscope.control.planners.se3_path import SE3ToppPath
from mjscope.control.planners.se3_topp import SE3ToppTrajectory
from mjscope.control.planners.trajectory import (
    CircleTrajectory,
    Figure8Trajectory,
    QuinticTrajectory,
    Trajectory,
    TwoSegmentTrajectory,
)

__all__ = [
    "CircleTrajectory",
    "Figure8Trajectory",
    "MotionReference",
    "QuinticTrajectory",
    "ReferenceAdapter",
    "RockingOrientation",
    "SE3ToppPath",
    "SE3ToppTrajectory",
    "Trajectory",
    "TwoSegmentTrajectory",
    "aligned_rotation",
    "get_motion_reference",
    "is_se3_planner",
]
