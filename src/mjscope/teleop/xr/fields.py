"""Checked XR values: poses, analog values and buttons, shared by every source.

A bad value raises :class:`XrMessageError` with a short ``reason`` (one of :data:`REASONS`)
that a source counts in its ``rejects``; a replay file turns it into a ``ConfigError``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from mjscope.exceptions import MjscopeError
from mjscope.teleop.xr.base import R_WORLD_XR, ControllerState, xr_pose_to_world

#: Why a message is dropped (the keys of ``XrSource.rejects``).
REASONS = (
    "too_large",
    "not_json",
    "not_object",
    "missing_field",
    "bad_pose",
    "bad_value",
    "socket_error",
)
#: Largest accepted distance of a tracked pose from the tracking origin [m].
MAX_POSITION_M = 10.0
#: Largest accepted deviation of a quaternion's norm from 1 (before normalising).
QUAT_NORM_TOL = 0.1
#: Slack on analog ranges before a value counts as out of range (then clipped).
RANGE_SLACK = 1e-6


class XrMessageError(MjscopeError):
    """An XR message or value is malformed.

    Attributes:
        reason: One of :data:`REASONS`.
    """

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        super().__init__(f"{reason}: {detail}")


def number(value: Any, name: str, lo: float, hi: float) -> float:
    """A finite number within ``[lo, hi]`` (clipped after a tiny slack).

    Raises:
        XrMessageError: ``bad_value`` — not a number (a bool is not one), not finite, or
            out of range.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise XrMessageError("bad_value", f"{name} must be a number, got {value!r:.40}")
    x = float(value) if isinstance(value, float) or abs(value) < 2**53 else math.inf
    if not math.isfinite(x) or not lo - RANGE_SLACK <= x <= hi + RANGE_SLACK:
        raise XrMessageError("bad_value", f"{name} must be in [{lo}, {hi}], got {value!r:.40}")
    return min(max(x, lo), hi)


def flag(value: Any, name: str) -> bool:
    """A button: ``true``/``false`` (or 0/1).

    Raises:
        XrMessageError: ``bad_value`` — anything else.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise XrMessageError("bad_value", f"{name} must be true or false, got {value!r:.40}")


def seven(value: Any, name: str) -> np.ndarray:
    """``(7,)`` finite numbers from a ``"a,b,c,d,e,f,g"`` string or a 7-list.

    Raises:
        XrMessageError: ``bad_pose`` — another shape, a non-number or a non-finite one.
    """
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or len(items) != 7:
        raise XrMessageError("bad_pose", f"{name} must be 7 numbers, got {value!r:.80}")
    out = np.empty(7)
    for i, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, (int, float, str)):
            raise XrMessageError("bad_pose", f"{name}[{i}] is not a number: {item!r:.40}")
        try:
            out[i] = float(item)
        except (ValueError, OverflowError) as e:
            raise XrMessageError("bad_pose", f"{name}[{i}] is not a number: {item!r:.40}") from e
    if not np.all(np.isfinite(out)):
        raise XrMessageError("bad_pose", f"{name} has a non-finite number: {value!r:.80}")
    return out


def _check_pose(p: np.ndarray, quat: np.ndarray, name: str) -> None:
    if float(np.linalg.norm(p[:3])) > MAX_POSITION_M:
        raise XrMessageError("bad_pose", f"{name} position is beyond {MAX_POSITION_M} m: {p[:3]}")
    if abs(float(np.linalg.norm(quat)) - 1.0) > QUAT_NORM_TOL:
        raise XrMessageError("bad_pose", f"{name} quaternion is not unit: {quat}")


def pose_xr(value: Any, name: str) -> np.ndarray | None:
    """An XR-frame pose (x, y, z, qx, qy, qz, qw) → ``(7,)`` world pose (x, y, z, w, x, y, z).

    Returns:
        The world pose, or ``None`` for the all-zero pose (an untracked device).

    Raises:
        XrMessageError: ``bad_pose``.
    """
    p = seven(value, name)
    if not np.any(p):
        return None
    _check_pose(p, p[3:], name)
    return xr_pose_to_world(p)


def pose_world(value: Any, name: str) -> np.ndarray | None:
    """A world-frame pose (x, y, z, w, x, y, z) → normalised ``(7,)`` with ``w ≥ 0``.

    Returns:
        The pose, or ``None`` for the all-zero pose.

    Raises:
        XrMessageError: ``bad_pose``.
    """
    p = seven(value, name)
    if not np.any(p):
        return None
    _check_pose(p, p[3:], name)
    q = p[3:] / np.linalg.norm(p[3:])
    return np.concatenate([p[:3], -q if q[0] < 0.0 else q])


def world_pose_to_xr(pose_world: npt.ArrayLike) -> np.ndarray:
    """Inverse of :func:`~mjscope.teleop.xr.base.xr_pose_to_world`.

    Args:
        pose_world: ``(7,)`` world pose x, y, z, w, x, y, z.

    Returns:
        ``(7,)`` XR pose x, y, z, qx, qy, qz, qw (quaternion as given, not re-signed).
    """
    p = np.asarray(pose_world, dtype=float)
    v = R_WORLD_XR.T @ p[4:7]
    return np.concatenate([R_WORLD_XR.T @ p[:3], v, p[3:4]])


def controller(pose: np.ndarray, values: dict[str, Any], name: str) -> ControllerState:
    """A :class:`ControllerState` from a world pose and the checked analog/button values.

    Args:
        pose: ``(7,)`` world pose.
        values: Any of ``grip``, ``trigger`` (0..1), ``axis`` ((x, y), each −1..1), ``primary``,
            ``secondary``, ``menu``, ``axis_click`` (bools); missing ones default to released.
        name: The controller, for messages.

    Raises:
        XrMessageError: ``bad_value``.
    """
    axis = values.get("axis", (0.0, 0.0))
    if not isinstance(axis, (list, tuple)) or len(axis) != 2:
        raise XrMessageError("bad_value", f"{name}.axis must be 2 numbers, got {axis!r:.40}")
    return ControllerState(
        pose=pose,
        grip=number(values.get("grip", 0.0), f"{name}.grip", 0.0, 1.0),
        trigger=number(values.get("trigger", 0.0), f"{name}.trigger", 0.0, 1.0),
        primary=flag(values.get("primary", False), f"{name}.primary"),
        secondary=flag(values.get("secondary", False), f"{name}.secondary"),
        menu=flag(values.get("menu", False), f"{name}.menu"),
        axis=(
            number(axis[0], f"{name}.axis[0]", -1.0, 1.0),
            number(axis[1], f"{name}.axis[1]", -1.0, 1.0),
        ),
        axis_click=flag(values.get("axis_click", False), f"{name}.axis_click"),
    )
