"""One command applied once: ``open``, ``fist`` or a pose file, run until the pose settles."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mjscope.bridge.messages import JointState
from mjscope.bridge.validation import InvalidFrame
from mjscope.config import read_yaml
from mjscope.exceptions import ConfigError
from mjscope.hand.bridge import HandBridge
from mjscope.hand.commands import CommandParser
from mjscope.hand.profile import N_SLOTS, HandProfile

MAX_SETTLE_STEPS = 2000  # bounded: 20 s of control at 100 Hz


def parse_command(text: str, profile: HandProfile) -> np.ndarray | dict[str, float]:
    """``open``, ``fist`` or a YAML/JSON file: ``{sdk: [20 raw values]}`` or ``{joint: rad}``.

    Returns:
        ``(20,)`` raw values, or joint targets [rad] by profile name.

    Raises:
        ConfigError: Unknown word, unreadable file or bad content.
    """
    if text in ("open", "fist"):
        return np.array(profile.open_command if text == "open" else profile.fist_command, float)
    if not Path(text).is_file():
        raise ConfigError(f"--command {text!r}: use open, fist or an existing YAML/JSON file")
    data = read_yaml(text)
    if not data:
        raise ConfigError(f"{text}: empty command; give sdk: [{N_SLOTS} values] or joint: rad")
    if "sdk" in data:
        vals = data["sdk"]
        if not isinstance(vals, list) or len(vals) != N_SLOTS or not _numbers(vals):
            raise ConfigError(f"{text}: sdk must be a list of {N_SLOTS} numbers in 0..255")
        raw = np.array(vals, float)
        if ((raw < 0.0) | (raw > 255.0)).any():
            bad = raw[(raw < 0.0) | (raw > 255.0)][0]
            raise ConfigError(f"{text}: sdk value {bad:g} outside 0..255; fix the file")
        return raw
    return _nominal(text, data, profile)


def _nominal(text: str, data: dict[str, Any], profile: HandProfile) -> dict[str, float]:
    """Joint targets from a ``{joint: rad}`` file, checked as the bus checks a nominal frame."""
    for k, v in data.items():
        if not _numbers([v]):
            raise ConfigError(f"{text}: {k}: {v!r} is not a finite number; give radians")
    msg = JointState(name=[str(k) for k in data], position=[float(v) for v in data.values()])
    try:
        return CommandParser(profile).nominal(msg)
    except InvalidFrame as e:
        hint = f"use joints from {', '.join(profile.all_joints)}" if e.reason == "unknown" else ""
        raise ConfigError(f"{text}: {e}; fix the file{'; ' + hint if hint else ''}") from e


def _numbers(vals: list[Any]) -> bool:
    return all(
        isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v) for v in vals
    )


def apply_command(bridge: HandBridge, command: np.ndarray | dict[str, float]) -> dict[str, Any]:
    """Set a goal and run control steps until the applied pose stops changing.

    Args:
        bridge: The bridge.
        command: Raw slot values or joint targets [rad].

    Returns:
        Report: applied pose [rad], goal [rad], max penetration [m], contact count, steps.
    """
    if isinstance(command, dict):
        bridge.set_nominal_targets(command)
    else:
        bridge.command_sdk(command)
    prev, steps = None, 0
    while steps < MAX_SETTLE_STEPS:
        bridge.step()
        steps += 1
        pose = np.array(list(bridge.positions().values()))
        if prev is not None and np.max(np.abs(pose - prev)) < 1e-6:
            break
        prev = pose
    depth = bridge.projector.depths(bridge.data.qpos.copy())
    return {
        "applied": bridge.positions(),
        "goal": dict(bridge.goal),
        "max_penetration_m": depth[1],
        "contacts": depth[2],
        "limited_chains": list(bridge.last_projection.limited) if bridge.last_projection else [],
        "tracking_error_rad": bridge.tracking_error(),
        "steps": steps,
    }
