"""The dexterous-hand bridge (``mjscope hand``): SDK/radian commands → MuJoCo hand pose."""

from mjscope.hand.bridge import HandBridge, HandBridgeCfg
from mjscope.hand.mapping import (
    complete_mimic_positions,
    open_hand_command,
    range_to_arc,
    sdk_range_to_full_urdf_positions,
    sdk_range_to_urdf_positions,
    urdf_positions_to_sdk_range,
)
from mjscope.hand.model import HandModel, build_hand_model
from mjscope.hand.profile import HandProfile, load_profile
from mjscope.hand.projection import PenetrationProjector, ProjectionResult
from mjscope.hand.track import TrackResult, run_track_test

__all__ = [
    "HandBridge",
    "HandBridgeCfg",
    "HandModel",
    "HandProfile",
    "PenetrationProjector",
    "ProjectionResult",
    "TrackResult",
    "build_hand_model",
    "complete_mimic_positions",
    "load_profile",
    "open_hand_command",
    "range_to_arc",
    "run_track_test",
    "sdk_range_to_full_urdf_positions",
    "sdk_range_to_urdf_positions",
    "urdf_positions_to_sdk_range",
]
