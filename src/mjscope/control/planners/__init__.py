"""Position planners (``get_state(t) -> (pos, vel, acc)``) and the motion-reference adapter."""

from mjscope.control.planners.reference import (
    MotionReference,
    ReferenceAdapter,
    aligned_rotation,
    get_motion_reference,
)
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
    "SE3ToppTrajectory",
    "Trajectory",
    "TwoSegmentTrajectory",
    "aligned_rotation",
    "get_motion_reference",
]
