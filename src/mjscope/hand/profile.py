"""Hand profiles: the 20 SDK slots, mimic rules, commands and PD gains, from YAML.

A profile is package data (``mjscope/hand/profiles/<name>.yaml``, ``g20_left`` by default) or a
user file. It is validated on load: every problem is one :class:`ConfigError` naming the bad
value and the fix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path

from mjscope.config import from_dict, read_yaml
from mjscope.exceptions import ConfigError

N_SLOTS = 20
DEFAULT_PROFILE = "g20_left"


@dataclass(frozen=True)
class SlotCfg:
    """One SDK command slot.

    Attributes:
        index: Slot index 0..19.
        joint: Driven joint (profile name).
        min: Radian value at one end of the slot's range [rad].
        max: Radian value at the other end [rad].
        direction: -1 (255 → min, 0 → max) or 1 (0 → min, 255 → max).
        divisor: The decoded value is divided by it (slots driving a mimic pair).
    """

    index: int
    joint: str
    min: float
    max: float
    direction: int = -1
    divisor: float = 1.0


@dataclass(frozen=True)
class MimicCfg:
    """``joint = ratio · driver``."""

    joint: str
    driver: str
    ratio: float


@dataclass(frozen=True)
class GainsCfg:
    """PD gains: stiffness [N·m/rad], damping [N·m·s/rad], max effort [N·m]."""

    stiffness: float
    damping: float
    max_effort: float


@dataclass(frozen=True)
class GainsTableCfg:
    """Default gains plus per-joint overrides (profile joint names)."""

    default: GainsCfg = GainsCfg(15.0, 2.5, 8.0)
    joints: dict[str, GainsCfg] = field(default_factory=dict)


@dataclass(frozen=True)
class HandProfile:
    """A hand profile (see ``profiles/g20_left.yaml``).

    Attributes:
        name: Profile name.
        description: One line.
        slots: The used SDK slots.
        reserved: Slot indices that drive nothing.
        mimic: Mimic rules.
        open_command: 20 raw values of the open hand.
        fist_command: 20 raw values of the fist.
        limit_margin: Targets are clamped to the joint limits minus this [rad].
        gains: PD gains.
        joint_names: Profile joint name → model joint name, where a model differs.
    """

    name: str
    slots: tuple[SlotCfg, ...]
    mimic: tuple[MimicCfg, ...]
    open_command: tuple[float, ...]
    fist_command: tuple[float, ...]
    description: str = ""
    reserved: tuple[int, ...] = (11, 12, 13, 14)
    limit_margin: float = 0.05
    gains: GainsTableCfg = GainsTableCfg()
    joint_names: dict[str, str] = field(default_factory=dict)

    @cached_property
    def active_joints(self) -> tuple[str, ...]:
        """Driven joints in slot order (profile names)."""
        return tuple(s.joint for s in sorted(self.slots, key=lambda s: s.index))

    @cached_property
    def mimic_joints(self) -> tuple[str, ...]:
        """Mimic joints (profile names)."""
        return tuple(m.joint for m in self.mimic)

    @cached_property
    def all_joints(self) -> tuple[str, ...]:
        """Active then mimic joints (profile names)."""
        return self.active_joints + self.mimic_joints

    def model_name(self, joint: str) -> str:
        """Model joint name for a profile joint name."""
        return self.joint_names.get(joint, joint)

    def gains_for(self, joint: str) -> GainsCfg:
        """PD gains of an active joint."""
        return self.gains.joints.get(joint, self.gains.default)


def load_profile(name_or_path: str | Path = DEFAULT_PROFILE) -> HandProfile:
    """Load and validate a profile: a bundled name (``g20_left``) or a YAML file.

    Raises:
        ConfigError: Unknown name, unreadable file or invalid content.
    """
    text = str(name_or_path)
    if text.endswith((".yaml", ".yml")) or "/" in text:
        data, where = read_yaml(text), text
    else:
        path = Path(
            str(resources.files("mjscope.hand").joinpath("profiles").joinpath(f"{text}.yaml"))
        )
        if not path.is_file():
            raise ConfigError(
                f"unknown hand profile {text!r}; bundled: {', '.join(bundled_profiles())}; "
                "or pass a YAML file"
            )
        data, where = read_yaml(path), f"profile {text}"
    profile = from_dict(HandProfile, data, where)
    validate_profile(profile, where)
    return profile


def bundled_profiles() -> list[str]:
    """Names of the bundled profiles."""
    folder = Path(str(resources.files("mjscope.hand").joinpath("profiles")))
    return sorted(p.stem for p in folder.glob("*.yaml"))


def validate_profile(p: HandProfile, where: str = "profile") -> None:
    """Check a profile's consistency.

    Raises:
        ConfigError: The first problem found, with the fix.
    """
    _check_slots(p, where)
    _check_mimic(p, where)
    for key, cmd in (("open_command", p.open_command), ("fist_command", p.fist_command)):
        if len(cmd) != N_SLOTS or not all(0.0 <= v <= 255.0 for v in cmd):
            raise ConfigError(f"{where}: {key} must be {N_SLOTS} values in 0..255, got {cmd}")
    if not 0.0 <= p.limit_margin < 0.5:
        raise ConfigError(f"{where}: limit_margin {p.limit_margin} must be in [0, 0.5) rad")
    for joint, g in (("default", p.gains.default), *p.gains.joints.items()):
        if joint != "default" and joint not in p.active_joints:
            raise ConfigError(
                f"{where}: gains for {joint!r}, which no slot drives; "
                f"use one of {', '.join(p.active_joints)}"
            )
        if not all(0 < v < math.inf for v in (g.stiffness, g.damping, g.max_effort)):
            raise ConfigError(f"{where}: gains of {joint!r} must all be finite and > 0, got {g}")


def _check_slots(p: HandProfile, where: str) -> None:
    seen: dict[int, str] = {}
    for s in p.slots:
        if not 0 <= s.index < N_SLOTS or s.index in seen or s.index in p.reserved:
            raise ConfigError(
                f"{where}: slot index {s.index} ({s.joint}) is out of 0..19, repeated or "
                "reserved; give each slot index once"
            )
        seen[s.index] = s.joint
        if not (math.isfinite(s.min) and math.isfinite(s.max) and s.min < s.max):
            raise ConfigError(
                f"{where}: slot {s.index} needs finite min < max, got {s.min}, {s.max}"
            )
        if s.direction not in (-1, 1):
            raise ConfigError(
                f"{where}: slot {s.index} direction {s.direction} must be -1 or 1 "
                "(the SDK's 0 is 1 here)"
            )
        if not s.divisor > 0:
            raise ConfigError(f"{where}: slot {s.index} divisor {s.divisor} must be > 0")
    missing = sorted(set(range(N_SLOTS)) - set(seen) - set(p.reserved))
    if missing or any(not 0 <= r < N_SLOTS for r in p.reserved):
        raise ConfigError(
            f"{where}: slots {missing} are neither defined nor reserved; "
            "every index 0..19 must be a slot or reserved"
        )
    joints = [s.joint for s in p.slots]
    if len(set(joints)) != len(joints):
        raise ConfigError(f"{where}: a joint is driven by two slots: {sorted(joints)}")


def _check_mimic(p: HandProfile, where: str) -> None:
    active = set(p.active_joints)
    for m in p.mimic:
        if m.driver not in active:
            raise ConfigError(
                f"{where}: mimic {m.joint!r} follows {m.driver!r}, which no slot drives; "
                f"use one of {', '.join(p.active_joints)}"
            )
        if m.joint in active or not m.ratio > 0:
            raise ConfigError(f"{where}: mimic {m.joint!r} must be undriven and have ratio > 0")
    ratio = {m.driver: m.ratio for m in p.mimic}
    for s in p.slots:
        if s.divisor != 1.0 and not math.isclose(s.divisor, ratio.get(s.joint, math.nan)):
            raise ConfigError(
                f"{where}: slot {s.index} divisor {s.divisor} must equal the mimic ratio of the "
                f"joint following {s.joint!r} ({ratio.get(s.joint, 'none')}); set them equal"
            )
