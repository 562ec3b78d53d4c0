"""The XR input contract: every source (UDP, the XRoboToolkit SDK, a replay file) yields frames.

Poses are in the **robot world frame** with quaternions in **(w, x, y, z)** order: each source
converts the headset frame (XRoboToolkit: position x, y, z and quaternion qx, qy, qz, qw) with
:func:`xr_pose_to_world` before a frame leaves it. Bytes from the network are hostile: a source
bounds sizes, drops a malformed message whole and counts it by reason in ``rejects``.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: Headset (XR) frame → robot world: world x = −xr z, world y = −xr x, world z = xr y.
R_WORLD_XR = np.array([[0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def xr_pose_to_world(pose_xr: npt.ArrayLike) -> np.ndarray:
    """``(7,)`` XR pose ``x, y, z, qx, qy, qz, qw`` → ``(7,)`` world pose ``x, y, z, w, x, y, z``.

    The position is rotated by :data:`R_WORLD_XR`; the orientation is conjugated,
    ``R_w = R_world_xr · R_xr · R_world_xrᵀ`` (quaternion ``q_w = r q_xr r⁻¹``), and returned
    normalised with ``w ≥ 0``.

    Raises:
        ValueError: Not 7 finite numbers, or a zero quaternion.
    """
    p = np.asarray(pose_xr, dtype=float)
    if p.shape != (7,) or not np.all(np.isfinite(p)):
        raise ValueError(f"an XR pose is 7 finite numbers (x y z qx qy qz qw), got {p!r}")
    q_xr = np.array([p[6], p[3], p[4], p[5]])  # (w, x, y, z)
    n = float(np.linalg.norm(q_xr))
    if n < 1e-9:
        raise ValueError("an XR pose has a zero quaternion")
    w, v = q_xr[0] / n, q_xr[1:] / n
    # Conjugating a rotation by R rotates its axis by R and keeps its angle.
    q = np.concatenate([[w], R_WORLD_XR @ v])
    if q[0] < 0.0:
        q = -q
    return np.concatenate([R_WORLD_XR @ p[:3], q])


@dataclass(frozen=True, slots=True)
class ControllerState:
    """One hand controller at one instant.

    Attributes:
        pose: ``(7,)`` position [m] and quaternion (w, x, y, z), robot world frame.
        grip: Grip value, 0 (released) .. 1 (pressed) — the clutch.
        trigger: Trigger value, 0 .. 1 — the gripper.
        primary: X (left) / A (right) button — the reset.
        secondary: Y (left) / B (right) button.
        menu: Menu button.
        axis: Thumbstick (x, y), each −1 .. 1.
        axis_click: Thumbstick pressed.
    """

    pose: np.ndarray
    grip: float = 0.0
    trigger: float = 0.0
    primary: bool = False
    secondary: bool = False
    menu: bool = False
    axis: tuple[float, float] = (0.0, 0.0)
    axis_click: bool = False


@dataclass(frozen=True)
class XrFrame:
    """Both controllers (and the headset) at one source time stamp.

    Attributes:
        stamp_ns: The source's time stamp [ns]; 0 means "no XR data" (the SDK without a service).
        left: Left controller, or ``None`` when the message did not carry it.
        right: Right controller, or ``None``.
        head: ``(7,)`` headset pose (world, w-x-y-z), or ``None``.
    """

    stamp_ns: int
    left: ControllerState | None = None
    right: ControllerState | None = None
    head: np.ndarray | None = None

    def side(self, name: str) -> ControllerState | None:
        """The controller of side ``left`` or ``right``."""
        return self.left if name == "left" else self.right if name == "right" else None


class XrSource(ABC):
    """A source of XR frames, polled once per control cycle.

    Attributes:
        rejects: Malformed messages dropped, by reason (``too_large``, ``not_json``, …).
        received: Messages accepted.
    """

    def __init__(self) -> None:
        self.rejects: Counter[str] = Counter()
        self.received = 0

    @abstractmethod
    def poll(self, now: float) -> XrFrame | None:
        """The newest valid frame since the last poll, or ``None`` when none arrived.

        Args:
            now: The caller's clock [s] (monotonic; a replay source plays against it).
        """

    def wait(self, timeout_s: float) -> None:
        """Wait up to ``timeout_s`` [s] for new data (here: just that long; UDP wakes early)."""
        time.sleep(timeout_s)

    def close(self) -> None:  # noqa: B027  (optional hook)
        """Release sockets or SDK handles."""

    def __enter__(self) -> XrSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
