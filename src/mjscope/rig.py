"""The rig: its arms (sides), their joint names, topics, rates and initial poses.

``dual_arm_rm75.yaml`` is the one source of truth per side, shared by the mirror, the mock
arms and teleop: the joint names carried by the messages, the topics, ``control_rate_hz`` and
``initial_joint_pose_deg`` (the seed's ``initial_joint_pose`` is accepted too). It ships as
package data; a user file given with ``--config`` replaces it (ROS 2 parameter form too).
Unknown keys are errors.
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
    """

    joint_names: tuple[str, ...]
    state_topic: str
    target_topic: str = ""
    command_topic: str = ""
    control_rate_hz: float = 90.0
    initial_joint_pose_deg: tuple[float, ...] = ()
    joint_map: dict[str, str] = field(default_factory=dict)

    def model_joint_names(self) -> tuple[str, ...]:
        """Model joint names, in ``joint_names`` order (after ``joint_map``)."""
        return tuple(self.joint_map.get(n, n) for n in self.joint_names)

    def initial_pose_rad(self) -> np.ndarray:
        """``(n,)`` initial pose [rad] (zeros when none is configured)."""
        if not self.initial_joint_pose_deg:
            return np.zeros(len(self.joint_names))
        return np.deg2rad(np.asarray(self.initial_joint_pose_deg, dtype=float))


@dataclass(frozen=True)
class RigCfg:
    """The arms to mirror, by side name (``left``, ``right``)."""

    sides: dict[str, SideCfg]


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
