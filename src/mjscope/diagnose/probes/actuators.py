"""Actuator probe: per actuator the largest |ctrl| and |actuator_force| over the run.

What S1.13's "controller output but the joint does not move" asks to read: is there a
control, does the actuator turn it into a force. Gathered raw per step, reduced per block.
It also counts, per actuator, the steps its force sat at its limit (``forcerange``, or a
motor's ``gain × ctrlrange``) and the sign flips of a force above :data:`CHATTER_LEVEL` of
its largest force (and 1 % of the limit): saturation and chatter.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.probes.base import Probe

CHATTER_LEVEL = 0.1  # a force sign flip counts above this fraction of the largest force [1]
CHATTER_FLOOR = 1e-3  # ... and above this force [N | N·m]
LIMIT_TOL = 1e-6  # relative distance to the limit that counts as at it [1]


def force_limits(model: mujoco.MjModel) -> np.ndarray:
    """Each actuator's force interval [N | N·m], (nu, 2); ±inf where there is none."""
    out = np.full((model.nu, 2), [-np.inf, np.inf])
    for a in range(model.nu):
        fixed = int(model.actuator_gaintype[a]) == mujoco.mjtGain.mjGAIN_FIXED
        motor = fixed and int(model.actuator_biastype[a]) == mujoco.mjtBias.mjBIAS_NONE
        if motor and model.actuator_ctrllimited[a] and int(model.actuator_dyntype[a]) == 0:
            out[a] = np.sort(model.actuator_gainprm[a, 0] * model.actuator_ctrlrange[a])
        if model.actuator_forcelimited[a]:
            f = model.actuator_forcerange[a]
            out[a] = np.clip(out[a], f[0], f[1]) if np.isfinite(out[a]).all() else f
    return out


class ActuatorProbe(Probe):
    """Per actuator: |ctrl|, |force| and ctrl extremes, steps at the force limit, flips."""

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        self.ctrl_max = np.zeros(model.nu)
        self.force_max = np.zeros(model.nu)
        self.ctrl_lo = np.full(model.nu, np.inf)
        self.ctrl_hi = np.full(model.nu, -np.inf)
        self.limits = force_limits(model)  # (nu, 2)
        lo, hi = self.limits[:, 0], self.limits[:, 1]
        span = np.where(np.isfinite(hi - lo), hi - lo, 0.0)
        tol = LIMIT_TOL * np.maximum(span, 1.0)
        # at a bound of 0 (a one-sided motor at rest) the actuator is off, not saturated
        self.lo_at = np.where(np.isfinite(lo) & (lo != 0), lo + tol, -np.inf)  # (nu,)
        self.hi_at = np.where(np.isfinite(hi) & (hi != 0), hi - tol, np.inf)
        self.any_limit = bool(np.isfinite(self.lo_at).any() or np.isfinite(self.hi_at).any())
        bound = np.where(span > 0, np.maximum(np.abs(lo), np.abs(hi)), 0.0)
        # a flip counts above a tenth of the largest force, 1 % of the limit and 1 mN(·m):
        # a servo resting at its target jitters around 0 without chattering
        self.level0 = np.maximum(0.01 * bound, CHATTER_FLOOR)  # (nu,)
        self.at_limit = np.zeros(model.nu, np.int64)
        self.flips = np.zeros(model.nu, np.int64)
        self.last_sign = np.zeros(model.nu)
        self.steps = 0

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        return [self.data.ctrl, self.data.actuator_force] if self.model.nu else []  # (nu,) each

    raw_parts = True  # views of ctrl's and actuator_force's rows in the block

    def flush(self, n: int, start: int, raw: Any) -> None:  # noqa: D102
        if n == 0 or not raw:
            return
        # per actuator along a contiguous row (nu, n): NumPy reduces it in one pass
        ctrl, force = np.ascontiguousarray(raw[0].T), np.ascontiguousarray(raw[1].T)
        lo, hi = ctrl.min(axis=1), ctrl.max(axis=1)  # NaN where a row has one, as |ctrl|'s max
        np.fmin(self.ctrl_lo, lo, out=self.ctrl_lo)
        np.fmax(self.ctrl_hi, hi, out=self.ctrl_hi)
        np.fmax(self.ctrl_max, np.maximum(np.abs(lo), np.abs(hi)), out=self.ctrl_max)
        f_abs = np.maximum(np.abs(force.min(axis=1)), np.abs(force.max(axis=1)))  # max |force|
        np.fmax(self.force_max, f_abs, out=self.force_max)
        self._limits(force)

    def _limits(self, force: np.ndarray) -> None:
        """Count steps at the force limit and sign flips of a large force, (nu, n)."""
        if self.any_limit:
            at = (force <= self.lo_at[:, None]) | (force >= self.hi_at[:, None])
            self.at_limit += np.count_nonzero(at, axis=1)
        self.steps += force.shape[1]
        level = np.maximum(CHATTER_LEVEL * self.force_max, self.level0)[:, None]
        seq = np.empty((force.shape[0], force.shape[1] + 1))
        seq[:, 0] = self.last_sign
        np.sign(force, out=seq[:, 1:])
        seq[:, 1:][np.abs(force) <= level] = 0.0  # small: no sign
        # each actuator's non-zero signs in order (the carried one first): count the changes
        nz = np.flatnonzero(seq)  # row-major: actuator by actuator, in step order
        signs, act = seq.reshape(-1)[nz], nz // seq.shape[1]
        same = act[1:] == act[:-1]
        changed = same & (signs[1:] != signs[:-1])
        self.flips += np.bincount(act[1:][changed], minlength=force.shape[0])
        last = np.ones(act.size, bool)
        last[:-1] = ~same  # the last non-zero sign of each actuator that has one
        self.last_sign = np.zeros(force.shape[0])
        self.last_sign[act[last]] = signs[last]

    def summary(self) -> dict[str, Any]:  # noqa: D102
        return {
            "actuator_ctrl_max": self.ctrl_max.tolist(),
            "actuator_force_max": self.force_max.tolist(),
            "actuator_ctrl_min": self.ctrl_lo.tolist(),
            "actuator_ctrl_top": self.ctrl_hi.tolist(),
            "actuator_at_limit_fraction": (self.at_limit / max(self.steps, 1)).tolist(),
            "actuator_force_flips": self.flips.tolist(),
            "actuator_steps": self.steps,
        }
