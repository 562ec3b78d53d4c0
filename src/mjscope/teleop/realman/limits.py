"""The controller's own motion limits, as the set-commands that configure them.

Joint limits go out per joint as ``[joint_no, value]`` in 0.001 RPM (speed) and 0.001 RPM/s
(acceleration); the acceleration/speed ratio must be ≥ 1.5 [1/s]. Tool-tip limits go out in
0.001 m/s (m/s²) and 0.001 rad/s (rad/s²), with acceleration/speed ≥ 3 [1/s]. No other
speed/acceleration limits exist in the protocol (there is no ``configure_safety_limits``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from mjscope.exceptions import ConfigError
from mjscope.teleop.realman.messages import TOOL_LIMITS, command
from mjscope.teleop.realman.protocol import deg_s_to_wire_speed

JOINT_ACC_SPEED_RATIO = 1.5  # minimum joint acceleration / speed [1/s]
TOOL_ACC_SPEED_RATIO = 3.0  # minimum tool-tip acceleration / speed [1/s]


class SetCommand(NamedTuple):
    """One set-command and how its reply confirms it.

    Attributes:
        msg: The request.
        field: The reply's field that must be ``true``.
    """

    msg: dict[str, Any]
    field: str


def joint_limit_commands(
    n: int,
    speed_rad_s: float | Sequence[float] | None,
    acc_rad_s2: float | Sequence[float] | None,
) -> list[SetCommand]:
    """``set_joint_max_speed`` / ``set_joint_max_acc`` for every joint.

    Raises:
        ConfigError: A value that is not positive, a wrong count, or acc/speed < 1.5.
    """
    speed = _per_joint(speed_rad_s, n, "joint_max_speed_rad_s")
    acc = _per_joint(acc_rad_s2, n, "joint_max_acc_rad_s2")
    if speed is not None and acc is not None and np.any(acc < JOINT_ACC_SPEED_RATIO * speed):
        raise ConfigError(
            f"joint_max_acc_rad_s2 {acc.tolist()} must be ≥ {JOINT_ACC_SPEED_RATIO} × "
            f"joint_max_speed_rad_s {speed.tolist()} (the controller's rule)"
        )
    out = []
    for name, values in (("set_joint_max_speed", speed), ("set_joint_max_acc", acc)):
        field = name.removeprefix("set_")
        for j, v in enumerate(values if values is not None else []):
            wire = deg_s_to_wire_speed(math.degrees(float(v)))
            out.append(SetCommand(command(name, **{field: [j + 1, wire]}), field))
    return out


def tool_limit_commands(values: dict[str, float | None]) -> list[SetCommand]:
    """The tool-tip limit commands for the given keywords of :data:`TOOL_LIMITS`.

    Raises:
        ConfigError: A value that is not positive, or acceleration/speed < 3.
    """
    given = {k: v for k, v in values.items() if v is not None}
    for k, v in given.items():
        if not (math.isfinite(v) and v > 0):
            raise ConfigError(f"{k} = {v} must be a positive number")
    for speed, acc in (
        ("line_speed_m_s", "line_acc_m_s2"),
        ("angular_speed_rad_s", "angular_acc_rad_s2"),
    ):
        if speed in given and acc in given and given[acc] < TOOL_ACC_SPEED_RATIO * given[speed]:
            raise ConfigError(
                f"{acc} = {given[acc]} must be ≥ {TOOL_ACC_SPEED_RATIO} × {speed} = "
                f"{given[speed]} (the controller's rule)"
            )
    out = []
    for k, v in given.items():
        name, field, scale = TOOL_LIMITS[k]
        out.append(SetCommand(command(name, **{field: round(v * scale)}), field))
    return out


def _per_joint(value: float | Sequence[float] | None, n: int, what: str) -> np.ndarray | None:
    if value is None:
        return None
    arr = np.broadcast_to(np.asarray(value, dtype=float), (n,)) if np.ndim(value) == 0 else None
    if arr is None:
        arr = np.asarray(value, dtype=float)
        if arr.shape != (n,):
            raise ConfigError(f"{what} has {arr.size} values for {n} joints; give 1 or {n}")
    if not np.all(np.isfinite(arr) & (arr > 0)):
        raise ConfigError(f"{what} = {arr.tolist()} must be positive numbers")
    return arr
