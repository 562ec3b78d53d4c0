"""The RealMan JSON messages the adapter sends, and the parsers for what comes back.

Field names and units follow ``facts/realman_protocol.md`` §3; joint lists are integers in
0.001°. Parsers never raise on bad input: they return ``None`` or a reason string.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from mjscope.teleop.realman.protocol import MAX_DATAGRAM_BYTES, decode, first_error, int_list

PUSH_STATE = "realtime_arm_joint_state"
ARRIVAL_STATE = "current_trajectory_state"

#: Tool-tip limit commands: keyword of :meth:`configure_limits` → (command, field, wire scale).
TOOL_LIMITS = {
    "line_speed_m_s": ("set_arm_max_line_speed", "arm_line_speed", 1000.0),
    "line_acc_m_s2": ("set_arm_max_line_acc", "arm_line_acc", 1000.0),
    "angular_speed_rad_s": ("set_arm_max_angular_speed", "arm_angular_speed", 1000.0),
    "angular_acc_rad_s2": ("set_arm_max_angular_acc", "arm_angular_acc", 1000.0),
}


class JointReport(NamedTuple):
    """Joint angles reported by the controller.

    Attributes:
        joints: Joint angles [0.001°], one per joint.
        err: The first non-zero error code (arm, system or ``err`` list), 0 when none.
        status: ``arm_current_status`` of a push (``idle``, ``move_J`` …), ``""`` otherwise.
    """

    joints: list[int]
    err: int
    status: str


def command(name: str, **fields: Any) -> dict[str, Any]:
    """``{"command": name, **fields}``."""
    return {"command": name, **fields}


def movej_canfd(joints: list[int], follow: bool) -> dict[str, Any]:
    """Joint pass-through (no reply), byte for byte what the vendor SDK sends."""
    return command("movej_canfd", joint=joints, follow=follow, expand=0, trajectory_mode=0, radio=0)


def movej(joints: list[int], speed_percent: int) -> dict[str, Any]:
    """A planned joint move at ``speed_percent`` of the joints' limits, no blending."""
    return command("movej", joint=joints, v=speed_percent, r=0, trajectory_connect=0)


def set_realtime_push(ip: str, port: int, cycle: int) -> dict[str, Any]:
    """Point the realtime push at ``ip:port`` every ``cycle`` × 5 ms."""
    custom = {"joint_speed": True, "arm_current_status": True}
    return command(
        "set_realtime_push",
        cycle=cycle,
        enable=True,
        port=port,
        ip=ip,
        force_coordinate=0,
        custom=custom,
    )


def confirmed(reply: dict[str, Any], field: str) -> bool:
    """Whether a set-command's reply says ``field: true``."""
    return reply.get(field) is True


def parse_arm_state(msg: dict[str, Any], n: int) -> JointReport | None:
    """A ``current_arm_state`` reply (``err`` list, or the 3rd-gen ``arm_err``/``sys_err``)."""
    body = msg.get("arm_state")
    if msg.get("state") != "current_arm_state" or not isinstance(body, dict):
        return None
    joints = int_list(body.get("joint"), n)
    err = _error_of(body)
    if joints is None or err is None:
        return None
    return JointReport(joints, err, "")


def parse_push(data: bytes, n: int) -> JointReport | str:
    """One realtime push datagram.

    Returns:
        The report, or the reason it was refused: ``oversized``, ``not_utf8``, ``not_json``,
        ``too_deep``, ``not_object``, ``wrong_state`` or ``bad_field``.
    """
    if len(data) > MAX_DATAGRAM_BYTES:
        return "oversized"
    msg, why = decode(data.removesuffix(b"\r\n"))
    if msg is None:
        return why
    if msg.get("state") != PUSH_STATE:
        return "wrong_state"
    status = msg.get("joint_status")
    joints = int_list(status.get("joint_position"), n) if isinstance(status, dict) else None
    err = _error_of(msg)
    current = msg.get("arm_current_status", "")
    if joints is None or err is None or not isinstance(current, str):
        return "bad_field"
    return JointReport(joints, err, current[:32])


def _error_of(body: dict[str, Any]) -> int | None:
    """The first non-zero of ``arm_err``, ``sys_err`` and ``err`` (absent = 0); None if bad."""
    codes = [first_error(body.get(k, 0)) for k in ("arm_err", "sys_err", "err")]
    if any(c is None for c in codes):
        return None
    return next((c for c in codes if c), 0)
