"""What the emulated controller answers: one handler per JSON command, and the push datagram.

Reply formats are the controller's (``facts/realman_protocol.md`` §3 and §5: everything the
vendor SDK asks on connect, answered as a 3rd-generation controller does). Joints on the wire
are 0.001° integers; joint speed limits 0.001 RPM, accelerations 0.001 RPM/s.
"""

from __future__ import annotations

import ipaddress
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mjscope.teleop.emulator.arm import ArmSpec, SimArm, flange_pose
from mjscope.teleop.realman.messages import ARRIVAL_STATE, PUSH_STATE, TOOL_LIMITS
from mjscope.teleop.realman.protocol import DEG_S_PER_RPM, int_list, wire_int

Reply = dict[str, Any]
LOG_LENGTH = 20000  # pass-through commands and pushes kept for inspection
PUSH_FIELDS = ("joint_speed", "lift_state", "expand_state", "hand_state", "arm_current_status")

#: Tool-tip limits at power-on (``set_arm_init`` defaults), by wire field [0.001 SI].
TOOL_DEFAULTS = {"arm_line_speed": 250, "arm_line_acc": 1600, "arm_angular_speed": 600}
TOOL_DEFAULTS["arm_angular_acc"] = 4000
SOFTWARE_INFO = {
    "algorithm_info": {"version": "1.4.4"},
    "command": "arm_software_info",
    "ctrl_info": {"build_time": "2024/08/28 18:36:18", "version": "V1.6.1"},
    "dynamic_info": {"model_version": "2"},
    "plan_info": {"build_time": "2024/08/28 18:36:33", "version": "V1.6.1"},
}
STATIC_REPLIES: dict[str, Reply] = {
    "get_current_work_frame": {
        "frame_name": "World",
        "pose": [0] * 6,
        "state": "current_work_frame",
    },
    "get_current_tool_frame": {
        "payload": 0,
        "pose": [0] * 6,
        "position": [0, 0, 0],
        "state": "current_tool_frame",
        "tool_name": "Arm_Tip",
    },
    "get_install_pose": {"pose": [0, 0, 0], "state": "install_pose"},
    "get_controller_state": {
        "state": "controller_state",
        "voltage": 24000,
        "current": 1500,
        "temperature": 42000,
        "err_flag": 0,
    },
}


@dataclass
class PushSettings:
    """The realtime push as configured (``set_realtime_push``).

    Attributes:
        ip: Target address (loopback only: the emulator never sends elsewhere).
        port: Target UDP port.
        cycle: Period in units of 5 ms.
        enable: Whether datagrams are sent.
        custom: Optional fields switched on (``joint_speed``, ``arm_current_status`` …).
    """

    ip: str = "127.0.0.1"
    port: int = 8089
    cycle: int = 1
    enable: bool = False
    custom: dict[str, bool] = field(
        default_factory=lambda: {"joint_speed": True, "arm_current_status": True}
    )


class Controller:
    """The controller's state and its answers.

    Args:
        spec: The arm model.
        q0_deg: Power-on joint angles [deg].
        push: The power-on push settings.
        arm_err: Returns an injected error code (0 = none), read on every report.
    """

    def __init__(
        self, spec: ArmSpec, q0_deg: np.ndarray, push: PushSettings, arm_err: Callable[[], int]
    ) -> None:
        self.spec = spec
        self.arm = SimArm(spec, q0_deg)
        self.push = push
        self.tool_limits = dict(TOOL_DEFAULTS)
        self.injected_err = arm_err
        self.counts: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        self.canfd_log: deque[tuple[float, list[int]]] = deque(maxlen=LOG_LENGTH)
        self._handlers: dict[str, Callable[[Reply, float], list[Reply]]] = {
            "movej": self._movej,
            "movej_canfd": self._passthrough,
            "movej_follow": self._passthrough,
            "set_realtime_push": self._set_push,
            "set_joint_max_speed": self._set_joint_limit,
            "set_joint_max_acc": self._set_joint_limit,
            "clear_system_err": self._clear_err,
        }
        for name in ("set_arm_stop", "set_arm_slow_stop", "set_arm_pause", "set_arm_continue"):
            self._handlers[name] = self._stop
        for cmd, fld, _ in TOOL_LIMITS.values():
            self._handlers[cmd] = self._set_tool_limit
            self._handlers[cmd.replace("set_", "get_", 1)] = self._get_tool_limit
            self.tool_limits.setdefault(fld, 0)

    def handle(self, msg: Reply, now: float) -> list[Reply]:
        """The replies to one request (none for pass-through or unknown commands)."""
        name = msg.get("command")
        if not isinstance(name, str):
            self.refused["no_command"] += 1
            return []
        fn = self._handlers.get(name)
        if fn is not None:
            self.counts[name] += 1
            return fn(msg, now)
        query = self._queries().get(name)
        if query is None:
            self.refused["unknown_command"] += 1
            return []
        self.counts[name] += 1
        return [query()]

    def err(self) -> int:
        """The reported error code: an injected one first, then the arm's."""
        return self.injected_err() or self.arm.err

    def joints(self) -> list[int]:
        """Joint angles on the wire [0.001°]."""
        return [round(v * 1000.0) for v in self.arm.q]

    def push_datagram(self) -> Reply:
        """One ``realtime_arm_joint_state`` datagram of the current state."""
        pos, euler, quat = flange_pose(self.arm.q)
        n, err = self.spec.dof, self.err()
        status = {
            "joint_position": self.joints(),
            "joint_current": [round(abs(v) * 2.0) for v in self.arm.v],
            "joint_en_flag": [1] * n,
            "joint_err_code": [0] * n,
            "joint_temperature": [30000] * n,
            "joint_voltage": [48000] * n,
        }
        if self.push.custom.get("joint_speed"):
            status["joint_speed"] = [round(v / DEG_S_PER_RPM * 100.0) for v in self.arm.v]
        msg: Reply = {"state": PUSH_STATE, "arm_err": err, "sys_err": 0, "err": [err]}
        if self.push.custom.get("arm_current_status"):
            msg["arm_current_status"] = self.arm.mode
        msg["joint_status"] = status
        msg["waypoint"] = {"position": pos, "euler": euler, "quat": quat}
        return msg

    def arrival(self) -> Reply:
        """The message a finished ``movej`` sends."""
        return {
            "state": ARRIVAL_STATE,
            "trajectory_state": True,
            "device": 0,
            "trajectory_connect": 0,
        }

    # -- queries ------------------------------------------------------------------------------

    def _queries(self) -> dict[str, Callable[[], Reply]]:
        spec = self.spec
        mdeg = [round(v * 1000) for v in spec.max_pos_deg]
        rpm = [round(v / DEG_S_PER_RPM * 1000) for v in self.arm.vmax]
        rpm_s = [round(v / DEG_S_PER_RPM * 1000) for v in self.arm.amax]
        out: dict[str, Callable[[], Reply]] = {k: _copier(r) for k, r in STATIC_REPLIES.items()}
        out.update(
            get_arm_software_info=lambda: {
                **SOFTWARE_INFO,
                "Product_version": spec.product_version,
            },
            get_arm_current_trajectory=self._trajectory,
            get_realtime_push=self._get_push,
            get_joint_min_pos=lambda: {"min_pos": [-v for v in mdeg], "state": "joint_min_pos"},
            get_joint_max_pos=lambda: {"max_pos": mdeg, "state": "joint_max_pos"},
            get_joint_max_speed=lambda: {"joint_speed": rpm, "state": "joint_max_speed"},
            get_joint_max_acc=lambda: {"joint_acc": rpm_s, "state": "joint_max_acc"},
            get_DH_data=lambda: {
                "command": "get_DH_data",
                **{f"joint_{i + 1}": list(row) for i, row in enumerate(spec.dh)},
            },
            get_current_arm_state=self._arm_state,
            get_joint_degree=lambda: {"state": "joint_degree", "joint": self.joints()},
        )
        return out

    def _arm_state(self) -> Reply:
        pos, euler, _ = flange_pose(self.arm.q)
        body = {"joint": self.joints(), "pose": pos + euler, "err": [self.err()]}
        return {"state": "current_arm_state", "arm_state": body}

    def _trajectory(self) -> Reply:
        kind = "movj" if self.arm.mode == "move_J" else "none"
        return {"state": "arm_current_trajectory", "type": kind, "data": self.joints()}

    def _get_push(self) -> Reply:
        p = self.push
        return {
            "command": "get_realtime_push",
            "custom": dict(p.custom),
            "cycle": p.cycle,
            "enable": p.enable,
            "force_coordinate": 0,
            "ip": p.ip,
            "port": p.port,
        }

    # -- commands -----------------------------------------------------------------------------

    def _target(self, msg: Reply) -> np.ndarray | None:
        joints = int_list(msg.get("joint"), self.spec.dof)
        if joints is None:
            self.refused["bad_joints"] += 1
            return None
        return np.asarray(joints, dtype=float) / 1000.0

    def _movej(self, msg: Reply, now: float) -> list[Reply]:
        target, v = self._target(msg), msg.get("v")
        ok = False
        if target is not None and wire_int(v) and 0 < v <= 100:
            ok = self.arm.command(target, "move_J", v)
        return [{"command": "movej", "receive_state": ok}]

    def _passthrough(self, msg: Reply, now: float) -> list[Reply]:
        target = self._target(msg)
        if target is not None:
            self.canfd_log.append((now, [int(v) for v in msg["joint"]]))
            if not self.arm.command(target, "move_through_joint"):
                self.refused["beyond_limit"] += 1
        return []

    def _stop(self, msg: Reply, now: float) -> list[Reply]:
        name = msg["command"]
        if name in ("set_arm_stop", "set_arm_slow_stop"):
            self.arm.stop(slow=name == "set_arm_slow_stop")
        else:
            self.arm.pause(name == "set_arm_pause")
        return [{"command": name, name.removeprefix("set_"): True}]

    def _set_push(self, msg: Reply, now: float) -> list[Reply]:
        p = self.push
        cycle, port = msg.get("cycle", p.cycle), msg.get("port", p.port)
        ip, enable = msg.get("ip", p.ip), msg.get("enable", p.enable)
        ok = wire_int(cycle) and 1 <= cycle <= 200 and isinstance(enable, bool)
        ok = ok and wire_int(port) and 0 < port < 65536 and loopback(ip)
        if ok:
            p.cycle, p.port, p.ip, p.enable = cycle, port, ip, enable
            custom = msg.get("custom")
            if isinstance(custom, dict):
                known = {k: v for k, v in custom.items() if k in PUSH_FIELDS}
                p.custom.update({k: v for k, v in known.items() if isinstance(v, bool)})
        else:
            self.refused["bad_push_config"] += 1
        return [{"command": "set_realtime_push", "state": ok}]

    def _set_joint_limit(self, msg: Reply, now: float) -> list[Reply]:
        name = msg["command"]
        fld = name.removeprefix("set_")
        pair = int_list(msg.get(fld), 2)
        ok = pair is not None and 1 <= pair[0] <= self.spec.dof and pair[1] > 0
        if pair is not None and ok:
            limits = self.arm.vmax if fld == "joint_max_speed" else self.arm.amax
            limits[pair[0] - 1] = pair[1] / 1000.0 * DEG_S_PER_RPM
        return [{"command": name, fld: ok}]

    def _set_tool_limit(self, msg: Reply, now: float) -> list[Reply]:
        name = msg["command"]
        fld = next(f for c, f, _ in TOOL_LIMITS.values() if c == name)
        value = msg.get(fld)
        ok = wire_int(value) and value > 0
        if wire_int(value) and ok:
            self.tool_limits[fld] = value
        return [{"command": name, fld: ok}]

    def _get_tool_limit(self, msg: Reply, now: float) -> list[Reply]:
        name = msg["command"]
        fld = next(f for c, f, _ in TOOL_LIMITS.values() if c == name.replace("get_", "set_", 1))
        return [{"state": name.removeprefix("get_"), fld: self.tool_limits[fld]}]

    def _clear_err(self, msg: Reply, now: float) -> list[Reply]:
        self.arm.err = 0
        return [{"command": "clear_system_err", "clear_state": True}]


def _copier(reply: Reply) -> Callable[[], Reply]:
    return lambda: dict(reply)


def loopback(ip: Any) -> bool:
    """Whether ``ip`` is an IPv4 loopback address (127.0.0.0/8)."""
    try:
        return isinstance(ip, str) and ipaddress.IPv4Address(ip).is_loopback
    except ValueError:
        return False
