"""Mock arm sources: publish a side's ``joint_states`` and ``joint_target`` at its control rate.

The initial pose comes from the rig config (degrees → radians), as the seed's mock adapter
does. ``--motion sine`` adds a scripted motion for demos. A ``reset`` string on the side's
command topic returns it to the initial pose at once (no trajectory) and publishes it.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Sequence

import numpy as np

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.base import Transport
from mjscope.exceptions import MjscopeError
from mjscope.mirror.config import SideCfg

logger = logging.getLogger(__name__)

MOTIONS = ("none", "sine")
COMMANDS = ("reset",)
SINE_AMPLITUDE_RAD = math.radians(20.0)  # per joint [rad]
SINE_PERIOD_S = 4.0  # [s]


class MockArm:
    """One side's mock adapter: holds a pose, optionally moves it, publishes it.

    Args:
        transport: Where to publish and listen for commands.
        side: Side name (``left``/``right``), used in logs.
        cfg: The side's config (joint names, topics, initial pose).
        motion: ``none`` (hold the pose) or ``sine`` (scripted motion around it).

    Raises:
        MjscopeError: Unknown ``motion``.
    """

    def __init__(self, transport: Transport, side: str, cfg: SideCfg, motion: str = "none") -> None:
        if motion not in MOTIONS:
            raise MjscopeError(f"unknown motion {motion!r}; use one of {', '.join(MOTIONS)}")
        self.side, self.cfg, self.motion = side, cfg, motion
        self.initial = cfg.initial_pose_rad()  # (7,) [rad]
        self.q = self.initial.copy()  # (7,) [rad]
        self._motion_t0: float | None = None
        self._state = transport.publisher(cfg.state_topic, JointState)
        self._target = (
            transport.publisher(cfg.target_topic, JointState) if cfg.target_topic else None
        )
        self._cmd = transport.subscriber(cfg.command_topic, str, 10) if cfg.command_topic else None
        self.published = 0
        self.resets = 0

    def reset(self, now: float) -> None:
        """Return to the initial pose at once (the scripted motion restarts from it)."""
        self.q = self.initial.copy()
        self._motion_t0 = now
        self.resets += 1
        logger.info("mock %s arm reset to its initial pose", self.side)

    def handle_commands(self, now: float) -> bool:
        """Apply queued commands; returns whether a reset happened."""
        if self._cmd is None:
            return False
        did = False
        for cmd in self._cmd.take():
            if isinstance(cmd, str) and cmd.strip().lower() == "reset":
                self.reset(now)
                did = True
            else:
                logger.warning(
                    "mock %s arm: ignored command %r; known: %s", self.side, cmd, COMMANDS
                )
        return did

    def step(self, now: float) -> None:
        """One control cycle at time ``now`` [s]: commands, motion, publish state and target."""
        self.handle_commands(now)
        if self.motion == "sine":
            if self._motion_t0 is None:
                self._motion_t0 = now
            self.q = self.initial + sine_offsets(now - self._motion_t0, len(self.q))
        self.publish(now)

    def publish(self, now: float) -> None:
        """Publish the current pose on the state and target topics."""
        del now
        msg = JointState(
            stamp=Stamp.now(),
            name=list(self.cfg.joint_names),
            position=[float(v) for v in self.q],
            velocity=[],
            effort=[],
        )
        self._state.publish(msg)
        if self._target is not None:
            self._target.publish(msg)
        self.published += 1


def sine_offsets(t: float, n: int) -> np.ndarray:
    """Scripted motion: ``(n,)`` offsets [rad] at time ``t`` [s], zero at ``t = 0``."""
    phase = np.arange(n) * (2 * math.pi / max(n, 1))
    w = 2 * math.pi / SINE_PERIOD_S
    return SINE_AMPLITUDE_RAD * (np.sin(w * t + phase) - np.sin(phase))


def run_mock_arms(
    arms: Sequence[MockArm],
    duration: float | None,
    stop: threading.Event | None = None,
    clock_rate_hz: float | None = None,
) -> int:
    """Step mock arms at their control rates until ``duration`` [s] passes or ``stop`` is set.

    Args:
        arms: Arms to step (one loop at the highest control rate; each arm at its own).
        duration: Run time [s]; ``None`` runs until ``stop``.
        stop: Set it to end the loop early.
        clock_rate_hz: Loop rate [Hz]; default the arms' highest ``control_rate_hz``.

    Returns:
        Cycles run.
    """
    from loop_rate_limiters import RateLimiter

    rate = RateLimiter(clock_rate_hz or max(a.cfg.control_rate_hz for a in arms), warn=False)

    t0 = time.monotonic()
    cycles = 0
    due = [0.0] * len(arms)  # next publish time of each arm [s]
    while not (stop is not None and stop.is_set()):
        now = time.monotonic() - t0
        if duration is not None and now >= duration:
            break
        for i, a in enumerate(arms):
            if now >= due[i] - 1e-4:  # each arm at its own control_rate_hz
                a.step(now)
                due[i] = max(due[i] + 1.0 / a.cfg.control_rate_hz, now - 1.0)
        cycles += 1
        rate.sleep()
    return cycles
