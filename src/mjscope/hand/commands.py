"""Untrusted command messages → validated targets, whole or not at all.

Legacy SDK commands (``JointState.position`` = raw 0..255 values) address slots by joint name
(through the SDK→joint map) when names are given, else by index (exactly 20 values). Nominal
commands give radians by joint name, active or mimic, profile or model names. A bad frame raises
:class:`InvalidFrame` with a stable reason and is never partially applied.
"""

from __future__ import annotations

import math

import numpy as np

from mjscope.bridge.messages import JointState, UndecodableSample
from mjscope.bridge.validation import InvalidFrame, validate_joint_state
from mjscope.hand.mapping import RAW_MAX
from mjscope.hand.profile import N_SLOTS, HandProfile

MAX_ABS_RAD = 2.0 * math.pi  # a nominal angle beyond this is a unit mistake, not a target


class CommandParser:
    """Validates command frames for one profile.

    Args:
        profile: The hand profile.
    """

    def __init__(self, profile: HandProfile) -> None:
        self.profile = profile
        self._alias = {j: j for j in profile.all_joints}
        self._alias.update({profile.model_name(j): j for j in profile.all_joints})
        self._slot_of = {s.joint: s.index for s in profile.slots}
        self._slot_keys = [f"slot{i}" for i in range(N_SLOTS)]

    def legacy(self, msg: object) -> np.ndarray:
        """Raw 20-slot values from a legacy command: unaddressed slots are 255.

        Args:
            msg: The received message.

        Returns:
            ``(20,)`` raw values.

        Raises:
            InvalidFrame: Undecodable, bad type, unknown name, wrong length, non-finite or
                outside 0..255.
        """
        if isinstance(msg, UndecodableSample):
            raise InvalidFrame(msg.reason, msg.detail)
        if not isinstance(msg, JointState):
            raise InvalidFrame("bad_type", f"expected JointState, got {type(msg).__name__}")
        vals = np.full(N_SLOTS, RAW_MAX)
        if msg.name:
            expected = [k for k, v in self._alias.items() if v in self._slot_of]
            frame = validate_joint_state(msg, expected, require_all=False, max_joints=N_SLOTS)
            idx = [self._slot_of[self._alias[n]] for n in frame.names]
        else:
            if not isinstance(msg.position, list | tuple) or len(msg.position) != N_SLOTS:
                n = len(msg.position) if isinstance(msg.position, list | tuple) else "?"
                raise InvalidFrame(
                    "wrong_count", f"{n} values without names; send {N_SLOTS} or name the joints"
                )
            named = JointState(msg.stamp, msg.frame_id, self._slot_keys, msg.position)
            frame = validate_joint_state(named, self._slot_keys)
            idx = list(range(N_SLOTS))
        _check_range(frame.position, 0.0, RAW_MAX, "raw value")
        vals[idx] = frame.position
        return vals

    def nominal(self, msg: object) -> dict[str, float]:
        """Radian targets by (profile) joint name from a nominal command.

        Raises:
            InvalidFrame: Undecodable, bad type, unknown name, length mismatch, non-finite or
                |q| > 2π.
        """
        frame = validate_joint_state(msg, list(self._alias), require_all=False, max_joints=64)
        _check_range(frame.position, -MAX_ABS_RAD, MAX_ABS_RAD, "angle [rad]")
        return {self._alias[n]: float(v) for n, v in zip(frame.names, frame.position, strict=True)}


def _check_range(values: np.ndarray, lo: float, hi: float, what: str) -> None:
    bad = (values < lo) | (values > hi)
    if bad.any():
        raise InvalidFrame("out_of_range", f"{what} {values[bad][0]:g} outside [{lo:g}, {hi:g}]")
