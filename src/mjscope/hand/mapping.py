"""SDK 0–255 slots ↔ joint radians, mimic completion and limit clamping (the seed's §4 chain).

Chain for a legacy command: ``range_to_arc`` (raw → slot radians with the profile's tables,
reserved slots skipped) → ``sdk_range_to_urdf_positions`` (slot radians → driving joints; slots
with a divisor give ``arc / divisor``) → ``complete_mimic_positions`` (``mimic = ratio · driver``)
= ``sdk_range_to_full_urdf_positions``. ``urdf_positions_to_sdk_range`` is the inverse. All
names here are the profile's joint names.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from mjscope.hand.profile import N_SLOTS, HandProfile

RAW_MAX = 255.0


def range_to_arc(values: npt.ArrayLike, profile: HandProfile) -> np.ndarray:
    """Raw slot values → slot radians.

    Args:
        values: ``(20,)`` raw values; clamped to 0..255.
        profile: The hand profile.

    Returns:
        ``(20,)`` radians; reserved slots are 0.
    """
    raw = np.clip(np.asarray(values, dtype=float).reshape(N_SLOTS), 0.0, RAW_MAX)
    arcs = np.zeros(N_SLOTS)
    for s in profile.slots:
        frac = raw[s.index] / RAW_MAX
        if s.direction == -1:
            arcs[s.index] = s.max - frac * (s.max - s.min)
        else:
            arcs[s.index] = s.min + frac * (s.max - s.min)
    return arcs


def sdk_range_to_urdf_positions(values: npt.ArrayLike, profile: HandProfile) -> dict[str, float]:
    """Raw slot values → driving (active) joint positions [rad].

    Args:
        values: ``(20,)`` raw values 0..255.
        profile: The hand profile.

    Returns:
        Active joint name → position [rad] (``arc / divisor`` for mimic-pair slots).
    """
    arcs = range_to_arc(values, profile)
    return {s.joint: float(arcs[s.index] / s.divisor) for s in profile.slots}


def sdk_range_to_full_urdf_positions(
    values: npt.ArrayLike, profile: HandProfile
) -> dict[str, float]:
    """Raw slot values → active and mimic joint positions [rad]."""
    return complete_mimic_positions(sdk_range_to_urdf_positions(values, profile), profile)


def complete_mimic_positions(
    positions: Mapping[str, float], profile: HandProfile
) -> dict[str, float]:
    """Add ``mimic = ratio · driver`` for each mimic joint not already given.

    Args:
        positions: Joint name → position [rad]; mimic values present are kept as they are.
        profile: The hand profile.

    Returns:
        A new mapping with the mimic joints whose driver is present filled in.
    """
    out = dict(positions)
    for m in profile.mimic:
        if m.joint not in out and m.driver in out:
            out[m.joint] = m.ratio * out[m.driver]
    return out


def urdf_positions_to_sdk_range(positions: Mapping[str, float], profile: HandProfile) -> np.ndarray:
    """Driving joint positions → raw slot values (the inverse of the chain).

    Args:
        positions: Joint name → position [rad]; every slot joint must be present.
        profile: The hand profile.

    Returns:
        ``(20,)`` raw values as floats in 0..255 (not rounded, like the SDK); reserved 0.
    """
    raw = np.zeros(N_SLOTS)
    for s in profile.slots:
        arc = float(np.clip(positions[s.joint] * s.divisor, s.min, s.max))
        if s.direction == -1:
            raw[s.index] = RAW_MAX * (s.max - arc) / (s.max - s.min)
        else:
            raw[s.index] = RAW_MAX * (arc - s.min) / (s.max - s.min)
    return raw


def open_hand_command(profile: HandProfile) -> list[float]:
    """The profile's open-hand command (20 raw values)."""
    return [float(v) for v in profile.open_command]


def clamp_to_limits(
    positions: Mapping[str, float],
    limits: Mapping[str, tuple[float, float]],
    margin: float,
) -> dict[str, float]:
    """Clamp targets into ``[lower + margin, upper - margin]`` (the seed's limit margin).

    Args:
        positions: Joint name → target [rad].
        limits: Joint name → (lower, upper) [rad]; joints absent here are not clamped.
        margin: Distance kept from each limit [rad] (shrunk for ranges narrower than 2·margin).

    Returns:
        Clamped targets.
    """
    out = {}
    for name, q in positions.items():
        lim = limits.get(name)
        if lim is not None:
            m = min(margin, 0.5 * (lim[1] - lim[0]))
            q = min(max(q, lim[0] + m), lim[1] - m)
        out[name] = float(q)
    return out
