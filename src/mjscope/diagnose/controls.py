"""The rollout's ``--ctrl`` modes: zero, hold (servo targets at the pose) and seeded noise."""

from __future__ import annotations

from collections.abc import Callable

import mujoco
import numpy as np

CTRL_MODES = ("zero", "hold", "noise")


def hold_ctrl(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """Controls that hold the current pose: servo targets at the current actuator length."""
    ctrl = np.zeros(model.nu)
    for a in range(model.nu):
        g, b = model.actuator_gainprm[a, 0], model.actuator_biasprm[a]
        if model.actuator_biastype[a] == mujoco.mjtBias.mjBIAS_AFFINE and g != 0 and b[1] != 0:
            ctrl[a] = -(b[0] + b[1] * data.actuator_length[a]) / g
    lim = model.actuator_ctrllimited.astype(bool)
    rng = model.actuator_ctrlrange
    ctrl[lim] = np.clip(ctrl[lim], rng[lim, 0], rng[lim, 1])
    return ctrl


def noise_source(
    model: mujoco.MjModel, rows: int, seed: int, scale: float
) -> Callable[[], np.ndarray]:
    """Seeded generator of control blocks ``(rows, nu)`` centred in ``ctrlrange``."""
    rng = np.random.default_rng(seed)
    lim = model.actuator_ctrllimited.astype(bool)
    lo, hi = model.actuator_ctrlrange[:, 0], model.actuator_ctrlrange[:, 1]
    centre = np.where(lim, (lo + hi) / 2, 0.0)
    half = np.where(lim, (hi - lo) / 2, 1.0) * scale

    def draw() -> np.ndarray:
        return centre + half * rng.uniform(-1.0, 1.0, size=(rows, model.nu))

    return draw
