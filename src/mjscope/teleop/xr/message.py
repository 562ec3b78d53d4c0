"""The XRoboToolkit PC-service message: parse it into an :class:`XrFrame`, or write one.

The service's message is ``{"value": "<inner JSON>"}``; the inner object (also accepted alone)
holds ``Controller.left`` / ``Controller.right`` (``pose`` ``"x,y,z,qx,qy,qz,qw"`` or a 7-list,
``trigger``, ``grip``, ``axisX``, ``axisY``, ``axisClick``, ``primaryButton``,
``secondaryButton``, ``menuButton``), ``Head.pose`` and ``timeStampNs``. Poses are in the
headset (XR) frame; the parsed frame is in the robot world frame. Keys the parser does not
know are ignored (newer services add some); a missing controller is ``None``, and so is one
whose pose is all zeros (untracked).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from mjscope.teleop.xr.base import ControllerState, XrFrame
from mjscope.teleop.xr.fields import XrMessageError, controller, pose_xr, world_pose_to_xr

#: PC-service controller key → :func:`~mjscope.teleop.xr.fields.controller` value name.
_BUTTONS = {
    "primaryButton": "primary",
    "secondaryButton": "secondary",
    "menuButton": "menu",
    "axisClick": "axis_click",
}
_MAX_STAMP_NS = 2**63 - 1


def _load_json(data: bytes | str) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as e:  # bad UTF-8, bad JSON, too deep, huge ints
        raise XrMessageError("not_json", f"{type(e).__name__}") from e


def _stamp(obj: dict[str, Any], now_ns: int) -> int:
    stamp = obj.get("timeStampNs")
    if stamp is None:
        return max(1, now_ns)
    if isinstance(stamp, bool) or not isinstance(stamp, (int, float)):
        raise XrMessageError("bad_value", f"timeStampNs must be an integer, got {stamp!r:.40}")
    if not 0 <= stamp <= _MAX_STAMP_NS:
        raise XrMessageError("bad_value", f"timeStampNs out of range: {stamp!r:.40}")
    return int(stamp) or max(1, now_ns)


def _side(obj: Any, name: str) -> ControllerState | None:
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise XrMessageError("bad_value", f"Controller.{name} must be an object")
    if "pose" not in obj:
        raise XrMessageError("missing_field", f"Controller.{name}.pose")
    pose = pose_xr(obj["pose"], f"{name}.pose")
    if pose is None:
        return None
    values = {v: obj[k] for k, v in _BUTTONS.items() if k in obj}
    values.update({k: obj[k] for k in ("grip", "trigger") if k in obj})
    values["axis"] = (obj.get("axisX", 0.0), obj.get("axisY", 0.0))
    return controller(pose, values, name)


def _head(obj: Any) -> np.ndarray | None:
    if obj is None:
        return None
    if not isinstance(obj, dict) or "pose" not in obj:
        raise XrMessageError("missing_field", "Head.pose")
    return pose_xr(obj["pose"], "head.pose")


def frame_from_inner(obj: dict[str, Any], now_ns: int = 0) -> XrFrame:
    """An :class:`XrFrame` from the inner PC-service object.

    Args:
        obj: The decoded inner JSON object.
        now_ns: Stamp [ns] used when the message has no (or a zero) ``timeStampNs``.

    Raises:
        XrMessageError: Malformed message.
    """
    ctrl = obj.get("Controller")
    if ctrl is None:
        raise XrMessageError("missing_field", "Controller")
    if not isinstance(ctrl, dict):
        raise XrMessageError("bad_value", "Controller must be an object")
    frame = XrFrame(
        stamp_ns=_stamp(obj, now_ns),
        left=_side(ctrl.get("left"), "left"),
        right=_side(ctrl.get("right"), "right"),
        head=_head(obj.get("Head")),
    )
    if frame.left is None and frame.right is None and frame.head is None:
        raise XrMessageError("missing_field", "no tracked controller or headset")
    return frame


def parse_pc_message(data: bytes | str, now_ns: int = 0) -> XrFrame:
    """Parse one PC-service message (wrapped in ``{"value": ...}`` or the inner object alone).

    Args:
        data: The message bytes (UTF-8 JSON).
        now_ns: Stamp [ns] for a message without ``timeStampNs``.

    Returns:
        The frame, poses in the world frame.

    Raises:
        XrMessageError: Malformed message; ``reason`` says why.
    """
    obj = _load_json(data)
    if not isinstance(obj, dict):
        raise XrMessageError("not_object", f"the message is a JSON {type(obj).__name__}")
    if "value" in obj:
        inner = obj["value"]
        if isinstance(inner, str):
            inner = _load_json(inner)
        if not isinstance(inner, dict):
            raise XrMessageError("bad_value", "value must hold a JSON object")
        obj = inner
    return frame_from_inner(obj, now_ns)


def _pose_text(pose_world: Any) -> str:
    return ",".join(repr(float(v)) for v in world_pose_to_xr(pose_world))


def _side_json(c: ControllerState) -> dict[str, Any]:
    return {
        "pose": _pose_text(c.pose),
        "trigger": float(c.trigger),
        "grip": float(c.grip),
        "axisX": float(c.axis[0]),
        "axisY": float(c.axis[1]),
        "axisClick": bool(c.axis_click),
        "primaryButton": bool(c.primary),
        "secondaryButton": bool(c.secondary),
        "menuButton": bool(c.menu),
    }


def encode_pc_message(frame: XrFrame, wrap: bool = True) -> str:
    """Write a frame as the PC service would send it (poses back in the XR frame).

    Args:
        frame: The frame (world frame).
        wrap: Wrap the inner JSON as ``{"value": "<inner JSON>"}`` like the service does.

    Returns:
        The JSON text.
    """
    ctrl = {}
    for name in ("left", "right"):
        side = frame.side(name)
        if side is not None:
            ctrl[name] = _side_json(side)
    inner: dict[str, Any] = {"Controller": ctrl, "timeStampNs": int(frame.stamp_ns), "Input": 0}
    if frame.head is not None:
        inner["Head"] = {"pose": _pose_text(frame.head)}
    text = json.dumps(inner)
    return json.dumps({"value": text}) if wrap else text
