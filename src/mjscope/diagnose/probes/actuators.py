"""Actuator probe: per actuator the largest |ctrl| and |actuator_force| over the run.

What S1.13's "controller output but the joint does not move" asks to read: is there a
control, does the actuator turn it into a force. Gathered raw per step, reduced per block.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.probes.base import Probe


class ActuatorProbe(Probe):
    """Per actuator: largest |ctrl| and |actuator_force|, smallest and largest ctrl."""

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        self.ctrl_max = np.zeros(model.nu)
        self.force_max = np.zeros(model.nu)
        self.ctrl_lo = np.full(model.nu, np.inf)
        self.ctrl_hi = np.full(model.nu, -np.inf)

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        return [self.data.ctrl, self.data.actuator_force] if self.model.nu else []  # (nu,) each

    def flush(self, n: int, start: int, raw: np.ndarray) -> None:  # noqa: D102
        if n == 0 or raw.shape[1] == 0:
            return
        v = raw.reshape(n, 2, self.model.nu)
        a = np.abs(v).max(axis=0)
        np.fmin(self.ctrl_lo, v[:, 0].min(axis=0), out=self.ctrl_lo)
        np.fmax(self.ctrl_hi, v[:, 0].max(axis=0), out=self.ctrl_hi)
        np.fmax(self.ctrl_max, a[0], out=self.ctrl_max)
        np.fmax(self.force_max, a[1], out=self.force_max)

    def summary(self) -> dict[str, Any]:  # noqa: D102
        return {
            "actuator_ctrl_max": self.ctrl_max.tolist(),
            "actuator_force_max": self.force_max.tolist(),
            "actuator_ctrl_min": self.ctrl_lo.tolist(),
            "actuator_ctrl_top": self.ctrl_hi.tolist(),
        }
