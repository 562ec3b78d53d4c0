"""The track test (seed §9): open ↔ half-grip switching, then settle; PASS if error ≤ 0.02 rad."""

from __future__ import annotations

from typing import NamedTuple

from mjscope.hand.bridge import HandBridge
from mjscope.hand.mapping import open_hand_command
from mjscope.hand.profile import N_SLOTS

HALF_GRIP = [80.0] * N_SLOTS
THRESHOLD_RAD = 0.02


class TrackResult(NamedTuple):
    """Track-test outcome.

    Attributes:
        max_error: Largest |q_sim − q_nominal| over the active joints after settling [rad]
            (the seed's verdict).
        mean_error: Mean of the same [rad].
        passed: ``max_error ≤ threshold`` and no recovery from an invalid state.
        steps: Control steps run (switching + settling).
        threshold: Pass threshold [rad].
        recoveries: Resets to open after a non-finite state during the test.
        switching_max_error: Largest error while the targets switch (every step of the switching
            phases) [rad]: how far a mode lags a step change.
        settle_time_s: Longest time after a switch until the error stays within ``threshold``
            [s]; ``None`` when some switch never settled before the next one.
        control_dt: Control period [s].
    """

    max_error: float
    mean_error: float
    passed: bool
    steps: int
    threshold: float
    recoveries: int
    switching_max_error: float
    settle_time_s: float | None
    control_dt: float


def run_track_test(
    bridge: HandBridge,
    steps: int = 480,
    switch_every: int = 160,
    settle: int = 240,
    threshold: float = THRESHOLD_RAD,
) -> TrackResult:
    """Drive open ↔ half-grip (``[80]*20``) every ``switch_every`` steps, then settle.

    Args:
        bridge: The bridge under test (hard-write or PD).
        steps: Switching steps.
        switch_every: Steps per phase (even phases open, odd half-grip).
        settle: Steps after switching, holding the last target.
        threshold: Pass threshold on the max tracking error [rad].

    Returns:
        The result.
    """
    open_cmd = open_hand_command(bridge.profile)
    start = bridge.recoveries
    switching_max, settle_steps, last_out, settled_all = 0.0, 0, 0, True
    for i in range(steps):
        if i % switch_every == 0:
            if i > 0:  # the phase that ends: when did its error last exceed the threshold?
                settled_all &= last_out < i
                settle_steps = max(settle_steps, last_out - (i - switch_every))
            phase = i // switch_every
            bridge.command_sdk(open_cmd if phase % 2 == 0 else HALF_GRIP)
        bridge.step()
        err = bridge.tracking_error()[0]
        switching_max = max(switching_max, err)
        if err > threshold:
            last_out = i + 1
    phase_start = (steps - 1) // switch_every * switch_every if steps else 0
    for j in range(settle):
        bridge.step()
        if bridge.tracking_error()[0] > threshold:
            last_out = steps + j + 1
    settled_all &= last_out < steps + settle
    settle_steps = max(settle_steps, last_out - phase_start)
    err_max, err_mean = bridge.tracking_error()
    recoveries = bridge.recoveries - start
    passed = err_max <= threshold and recoveries == 0
    dt = bridge.cfg.control_dt
    return TrackResult(
        err_max,
        err_mean,
        passed,
        steps + settle,
        threshold,
        recoveries,
        switching_max,
        settle_steps * dt if settled_all else None,
        dt,
    )
