"""The rig: its arms (sides), their joint names, topics, rates and initial poses.

``dual_arm_rm75.yaml`` is the one source of truth per side, shared by the mirror, the mock
arms and teleop: the joint names carried by the messages, the topics, ``control_rate_hz`` and
``initial_joint_pose_deg`` (the seed's ``initial_joint_pose`` is accepted too), and the
teleop keys of each arm: its workspace, Cartesian and joint limits, clutch and safety settings
and the arm controller's address (see :class:`SideCfg`). It ships as package data; a user file
given with ``--config`` replaces it (ROS 2 parameter form too). Unknown keys are errors.

Workspace, world frame [m]: the end effector stays inside the box ``workspace_min`` ..
``workspace_max``, and outside two vertical keep-out cylinders around the torso axis (the
vertical line through ``cyl_axis_xy``): at every height, radius ``cyl_radius_limit`` (the torso
column); below the height ``low_cyl_height``, the wider radius ``low_cyl_radius_limit`` (the
seed's low-position cylinder limit: a low hand keeps further from the body). A radius of 0
switches a cylinder off.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from mjscope.config import from_dict, package_data_path, read_yaml, ros_parameters
from mjscope.exceptions import ConfigError, UnknownNameError

RIG_CONFIG = "dual_arm_rm75.yaml"
SEED_POSE_KEY = "initial_joint_pose"  # the seed's name for initial_joint_pose_deg [deg]
DEFAULT_JOINT_MAX_SPEED = 1.5  # [rad/s], every joint, when joint_max_speed is not given
DEFAULT_JOINT_MAX_ACC = 8.0  # [rad/s²], every joint, when joint_max_acc is not given


@dataclass(frozen=True)
class SideCfg:
    """One arm of the rig.

    Attributes:
        joint_names: Joint names as carried by this side's messages (all must be present).
        state_topic: ``sensor_msgs/JointState`` feedback topic the mirror follows.
        target_topic: Joint targets published by the arm side (not used by the mirror).
        command_topic: ``std_msgs/String`` commands to the mock arm (``reset``).
        control_rate_hz: Nominal publishing rate [Hz].
        initial_joint_pose_deg: Initial pose, one angle per joint [deg].
        joint_map: Message joint name → model joint name, where they differ.
        workspace_min: Teleop: lower corner of the end effector's box, world frame [m].
        workspace_max: Teleop: upper corner of the box [m].
        cyl_axis_xy: Teleop: the torso axis (a vertical line) at this (x, y) [m].
        cyl_radius_limit: Teleop: keep-out radius around the torso axis, all heights [m]; 0 off.
        low_cyl_height: Teleop: below this height [m] the low keep-out cylinder applies.
        low_cyl_radius_limit: Teleop: keep-out radius below ``low_cyl_height`` [m]; 0 off.
        max_linear_speed: Teleop: end-effector target speed limit [m/s].
        max_orientation_speed: Teleop: end-effector target angular speed limit [rad/s].
        joint_max_speed: Teleop: per-joint speed limit [rad/s] (empty: 1.5 for every joint).
        joint_max_acc: Teleop: per-joint acceleration limit [rad/s²] (empty: 8.0 each).
        scale_factor: Teleop: end-effector motion per controller motion (clutch delta scale).
        grip_threshold: Teleop: the arm moves only while the grip is above this (0..1).
        xr_timeout_s: Teleop: no XR data for this long is a safe stop [s].
        feedback_timeout_s: Teleop: no arm feedback for this long is a safe stop [s].
        ee_frame: Teleop: the IK model's end-effector frame ("": the child link of the last
            joint).
        realman_address: Teleop ``--real``: the arm controller, ``HOST:PORT``.
        move_to_initial_pose_on_connect: Teleop ``--real``: move to the initial pose on
            connect (default false: connecting never moves an arm).
        configure_safety_limits: Teleop ``--real``: set the controller's own tool-tip limits
            below on connect (the RealMan controller's configuration; never used by the mock).
        max_line_speed: ``--real`` controller limit: tool-tip speed [m/s].
        max_line_acc: ``--real`` controller limit: tool-tip acceleration [m/s²] (≥ 3 × speed).
        max_angular_speed: ``--real`` controller limit: tool-tip turn rate [rad/s].
        max_angular_acc: ``--real`` controller limit: [rad/s²] (≥ 3 × speed).
    """

    joint_names: tuple[str, ...]
    state_topic: str
    target_topic: str = ""
    command_topic: str = ""
    control_rate_hz: float = 90.0
    initial_joint_pose_deg: tuple[float, ...] = ()
    joint_map: dict[str, str] = field(default_factory=dict)
    workspace_min: tuple[float, float, float] = (-1.0, -1.0, 0.0)
    workspace_max: tuple[float, float, float] = (1.0, 1.0, 2.0)
    cyl_axis_xy: tuple[float, float] = (0.0, 0.0)
    cyl_radius_limit: float = 0.0
    low_cyl_height: float = 0.0
    low_cyl_radius_limit: float = 0.0
    max_linear_speed: float = 0.3
    max_orientation_speed: float = 1.5
    joint_max_speed: tuple[float, ...] = ()
    joint_max_acc: tuple[float, ...] = ()
    scale_factor: float = 1.0
    grip_threshold: float = 0.9
    xr_timeout_s: float = 0.25
    feedback_timeout_s: float = 0.2
    ee_frame: str = ""
    realman_address: str = "192.168.1.18:8080"
    move_to_initial_pose_on_connect: bool = False
    configure_safety_limits: bool = True
    max_line_speed: float = 0.25
    max_line_acc: float = 1.0
    max_angular_speed: float = 0.6
    max_angular_acc: float = 2.0

    def model_joint_names(self) -> tuple[str, ...]:
        """Model joint names, in ``joint_names`` order (after ``joint_map``)."""
        return tuple(self.joint_map.get(n, n) for n in self.joint_names)

    def initial_pose_rad(self) -> np.ndarray:
        """``(n,)`` initial pose [rad] (zeros when none is configured)."""
        if not self.initial_joint_pose_deg:
            return np.zeros(len(self.joint_names))
        return np.deg2rad(np.asarray(self.initial_joint_pose_deg, dtype=float))

    def joint_speed_limits(self) -> np.ndarray:
        """``(n,)`` teleop joint speed limits [rad/s]."""
        return _per_joint(self.joint_max_speed, DEFAULT_JOINT_MAX_SPEED, len(self.joint_names))

    def joint_acc_limits(self) -> np.ndarray:
        """``(n,)`` teleop joint acceleration limits [rad/s²]."""
        return _per_joint(self.joint_max_acc, DEFAULT_JOINT_MAX_ACC, len(self.joint_names))


def _per_joint(values: tuple[float, ...], default: float, n: int) -> np.ndarray:
    return np.asarray(values, dtype=float) if values else np.full(n, default)


@dataclass(frozen=True)
class RigCfg:
    """The rig's arms, by side name (``left``, ``right``).

    Attributes:
        sides: The arms.
        xr_port: Teleop ``--xr udp``: the UDP port XR messages arrive on (``--xr-port``).
    """

    sides: dict[str, SideCfg]
    xr_port: int = 9000


def load_rig_cfg(path: str | Path | None = None) -> RigCfg:
    """Read a rig config (default: the packaged ``dual_arm_rm75.yaml``).

    Raises:
        ConfigError: Missing file, unknown key or an inconsistent side.
    """
    p = Path(path) if path is not None else package_data_path("config", RIG_CONFIG)
    cfg = from_dict(RigCfg, _seed_pose_key(ros_parameters(read_yaml(p), str(p)), str(p)), str(p))
    check_rig_cfg(cfg, str(p))
    return cfg


def _seed_pose_key(data: dict[str, Any], where: str) -> dict[str, Any]:
    """Accept the seed's ``initial_joint_pose`` [deg] as ``initial_joint_pose_deg`` per side."""
    sides = data.get("sides")
    if not isinstance(sides, dict):
        return data
    out = {}
    for name, side in sides.items():
        if isinstance(side, dict) and SEED_POSE_KEY in side:
            side = dict(side)
            pose = side.pop(SEED_POSE_KEY)
            if "initial_joint_pose_deg" in side and side["initial_joint_pose_deg"] != pose:
                raise ConfigError(
                    f"{where}: sides.{name} gives both {SEED_POSE_KEY} and initial_joint_pose_deg "
                    "with different angles; keep one (both are degrees)"
                )
            side["initial_joint_pose_deg"] = pose
        out[name] = side
    return {**data, "sides": out}


def check_rig_cfg(cfg: RigCfg, where: str = "config") -> None:
    """Check every side: names unique, pose length, positive rate, distinct topics.

    Raises:
        ConfigError: Naming the side, the bad value and the fix.
    """
    if not cfg.sides:
        raise ConfigError(f"{where}: 'sides' is empty; configure at least one side")
    if not 0 <= cfg.xr_port <= 65535:
        raise ConfigError(f"{where}: xr_port = {cfg.xr_port} must be 0-65535 (0: any free port)")
    topics: dict[str, str] = {}
    for name, s in cfg.sides.items():
        at = f"{where}: sides.{name}"
        if not s.joint_names or len(set(s.joint_names)) != len(s.joint_names):
            raise ConfigError(f"{at}.joint_names must be non-empty and unique: {s.joint_names}")
        pose = s.initial_joint_pose_deg
        if pose and len(pose) != len(s.joint_names):
            raise ConfigError(
                f"{at}.initial_joint_pose_deg has {len(pose)} angles for "
                f"{len(s.joint_names)} joints; give one angle [deg] per joint"
            )
        if not all(math.isfinite(v) for v in pose):
            raise ConfigError(f"{at}.initial_joint_pose_deg holds a non-finite angle: {pose}")
        if not (math.isfinite(s.control_rate_hz) and s.control_rate_hz > 0):
            raise ConfigError(f"{at}.control_rate_hz = {s.control_rate_hz} must be > 0")
        unknown = sorted(set(s.joint_map) - set(s.joint_names))
        if unknown:
            raise ConfigError(f"{at}.joint_map renames {unknown}, not among joint_names")
        if not s.state_topic.startswith("/"):
            raise ConfigError(f"{at}.state_topic {s.state_topic!r} must start with '/'")
        if s.state_topic in topics:
            raise ConfigError(
                f"{at}.state_topic {s.state_topic!r} is also side {topics[s.state_topic]!r}'s"
            )
        topics[s.state_topic] = name
        check_teleop_keys(s, at)


_POSITIVE = (
    "max_linear_speed",
    "max_orientation_speed",
    "scale_factor",
    "max_line_speed",
    "max_line_acc",
    "max_angular_speed",
    "max_angular_acc",
    "xr_timeout_s",
    "feedback_timeout_s",
)
_NON_NEGATIVE = ("cyl_radius_limit", "low_cyl_radius_limit")


def check_teleop_keys(s: SideCfg, at: str) -> None:
    """Check one side's teleop keys: a box with min < max, positive limits, one per joint.

    Raises:
        ConfigError: Naming the key, the bad value and what is valid.
    """
    lo, hi = np.asarray(s.workspace_min), np.asarray(s.workspace_max)
    box = (*lo, *hi, *s.cyl_axis_xy, s.low_cyl_height)
    if not (all(math.isfinite(v) for v in box) and np.all(lo < hi)):
        raise ConfigError(
            f"{at}: workspace_min {list(s.workspace_min)} must be below workspace_max "
            f"{list(s.workspace_max)} on every "
            "axis (finite numbers, world frame [m])"
        )
    for key in _POSITIVE:
        v = getattr(s, key)
        if not (math.isfinite(v) and v > 0):
            raise ConfigError(f"{at}.{key} = {v} must be a positive number")
    for key in _NON_NEGATIVE:
        v = getattr(s, key)
        if not (math.isfinite(v) and v >= 0):
            raise ConfigError(f"{at}.{key} = {v} must be ≥ 0 [m] (0 switches it off)")
    if not 0.0 < s.grip_threshold < 1.0:
        raise ConfigError(f"{at}.grip_threshold = {s.grip_threshold} must lie between 0 and 1")
    for key in ("joint_max_speed", "joint_max_acc"):
        vals = getattr(s, key)
        if vals and len(vals) != len(s.joint_names):
            raise ConfigError(
                f"{at}.{key} has {len(vals)} values for {len(s.joint_names)} joints; give one "
                "per joint (or none for the default)"
            )
        if not all(math.isfinite(v) and v > 0 for v in vals):
            raise ConfigError(f"{at}.{key} = {list(vals)}: every limit must be > 0")
    if s.realman_address:
        parse_address(s.realman_address, f"{at}.realman_address")


def parse_address(text: str, what: str = "address") -> tuple[str, int]:
    """``"HOST:PORT"`` → ``(host, port)``.

    Raises:
        ConfigError: Not ``HOST:PORT`` with a port in 1..65535.
    """
    host, sep, port = text.rpartition(":")
    if not (sep and host and port.isdigit() and 0 < int(port) < 65536):
        raise ConfigError(f"{what} {text!r} must be HOST:PORT, e.g. 192.168.1.18:8080")
    return host, int(port)


def select_sides(cfg: RigCfg, sides: Sequence[str]) -> RigCfg:
    """Keep only ``sides`` (all when empty), in the order given.

    Raises:
        UnknownNameError: A side is not configured.
    """
    for s in sides:
        if s not in cfg.sides:
            raise UnknownNameError("side", s, cfg.sides, "use --sides with configured sides")
    return replace(cfg, sides={s: cfg.sides[s] for s in sides}) if sides else cfg


def map_prefixes(cfg: RigCfg, rules: Sequence[str]) -> RigCfg:
    """Rename message joints to model joints by prefix rules ``OLD=NEW`` (e.g. ``left_=``).

    Raises:
        ConfigError: A rule is not of the form ``OLD=NEW``.
    """
    for rule in rules:
        if "=" not in rule:
            raise ConfigError(f"--map-prefix {rule!r} needs the form OLD=NEW (e.g. left_=)")
    return replace(cfg, sides={n: _map_side(s, rules) for n, s in cfg.sides.items()})


def _map_side(side: SideCfg, rules: Sequence[str]) -> SideCfg:
    jm = dict(side.joint_map)
    for rule in rules:
        old, new = rule.split("=", 1)
        for n in side.joint_names:
            src = jm.get(n, n)
            if old and src.startswith(old):
                jm[n] = new + src[len(old) :]
    return replace(side, joint_map=jm)
