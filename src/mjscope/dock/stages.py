"""Stages of the docking loop around the controller, and their builders from a scene.

- :class:`TorqueLimiter`: the last stage, a torque-rate limit then the torque limits, counted;
- :class:`GainSchedule`: stiffness/damping multipliers in time (``controller.schedule``);
- the guarded approach / force loop (:class:`mjscope.control.force_loop.ForceLoop`) and the
  tool-load compensation (:class:`mjscope.control.tool_load.ToolLoadCompensator`) built from
  the scene's ``controller.force_loop``, ``tool`` and ``ft`` sections.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from mjscope.control.controllers import Controller
from mjscope.control.force_loop import ForceLoop
from mjscope.control.tool_load import ToolLoad, ToolLoadCompensator
from mjscope.dock.config import SceneCfg
from mjscope.dock.scene import Scene, dock_rotation
from mjscope.exceptions import ConfigError

if TYPE_CHECKING:
    import pinocchio as pin


class TorqueLimiter:
    """The loop's last stage: a torque-rate limit, then the actuators' torque limits.

    The rate is limited against the torque sent the period before; :attr:`stats` counts the
    periods each stage changed the torque.

    Args:
        limits: Symmetric torque limits [N·m]; (nu,).
        rate: Torque-rate limit [N·m/s] (``inf``: none; the first period is not rate limited).
        dt: Control period [s].
    """

    def __init__(self, limits: np.ndarray, rate: float, dt: float) -> None:
        self.hi, self.lo = np.asarray(limits, float), -np.asarray(limits, float)
        self.step = rate * dt
        self.rated = math.isfinite(self.step)
        self.prev: np.ndarray | None = None
        self.stats = {"torque_saturated": 0, "rate_limited": 0}
        self._abs, self._over = np.zeros(len(self.hi)), np.zeros(len(self.hi), bool)  # work

    def __call__(self, tau: np.ndarray) -> np.ndarray:
        """The torque to send [N·m]; (nu,)."""
        prev = self.prev
        if self.rated and prev is not None:
            limited = np.minimum(np.maximum(tau, prev - self.step), prev + self.step)
            if np.count_nonzero(limited != tau):
                self.stats["rate_limited"] += 1
                tau = limited
        if not np.count_nonzero(np.greater(np.abs(tau, out=self._abs), self.hi, out=self._over)):
            self.prev = tau  # within the limits (the common case: two ufuncs, no new array)
            return tau
        self.stats["torque_saturated"] += 1
        out = np.minimum(np.maximum(tau, self.lo), self.hi)
        self.prev = out
        return out


class GainSchedule:
    """Stiffness and damping multipliers, linear in time between knots (``ScheduleCfg``).

    Args:
        times: Knot times [s]; (n,).
        stiffness: Stiffness multipliers [-]; (n,).
        damping: Damping multipliers [-]; (n,).
    """

    def __init__(self, times: tuple[float, ...], stiffness: tuple[float, ...],
                 damping: tuple[float, ...]) -> None:  # fmt: skip
        self.t, self.ks, self.kd = (np.asarray(x, float) for x in (times, stiffness, damping))
        self.last = (math.nan, math.nan)

    def at(self, t: float) -> tuple[float, float]:
        """(stiffness, damping) multipliers at ``t`` [s]."""
        return float(np.interp(t, self.t, self.ks)), float(np.interp(t, self.t, self.kd))

    def apply(self, ctrl: Controller, t: float) -> None:
        """Give ``ctrl`` the multipliers at ``t`` when they differ from the last ones."""
        now = self.at(t)
        if now != self.last:
            ctrl.set_gain_scale(*now)  # type: ignore[attr-defined]
            self.last = now


def loop_rate(cfg: SceneCfg, controller: str) -> float:
    """The loop's torque-rate limit [N·m/s]: ``impedance.torque_rate_limit``, or inf.

    Every controller but ``hqp``, whose QP holds its own (``hqp.torque_rate_limit``).
    """
    rate = None if controller == "hqp" else cfg.controller.impedance.torque_rate_limit
    return math.inf if rate is None else float(rate)


def build_schedule(scene: Scene, ctrl: Controller) -> GainSchedule | None:
    """The scene's stiffness/damping schedule (``None`` without one).

    Raises:
        ConfigError: The controller cannot change its gains (no ``set_gain_scale``).
    """
    s = scene.cfg.controller.schedule
    if not s.times:
        return None
    if not callable(getattr(ctrl, "set_gain_scale", None)):
        raise ConfigError(
            f"scene {scene.name!r}: controller.schedule needs a controller with set_gain_scale "
            f"(cic, se3_lie, hqp); {ctrl.name!r} has none"
        )
    damping = s.damping if s.damping is not None else tuple(math.sqrt(k) for k in s.stiffness)
    return GainSchedule(s.times, s.stiffness, damping)


def build_shaper(scene: Scene, controller: str) -> ForceLoop | None:
    """The scene's guarded approach / force loop (``None`` when off or without a dock).

    Along the nominal dock axis (into the socket), expected contact at the socket bottom;
    ``hqp`` gets the guard only (it keeps its own preload).
    """
    fl, dock = scene.cfg.controller.force_loop, scene.cfg.dock
    if not fl.enabled or dock is None:
        return None
    axis = -dock_rotation(dock)[:, 2]
    return ForceLoop(fl, axis, dock.pos, dock.depth, scene.cfg.control_period,
                     force_mode=controller != "hqp")  # fmt: skip


def tool_load(scene: Scene) -> ToolLoad:
    """The scene's tool beyond the sensor (``tool`` mass, centre, inertia; ``ft.bias``).

    The peg's centre of mass sits on the tool axis at half its length from the sensor.
    """
    t = scene.cfg.tool
    return ToolLoad.box(t.mass, (0.0, 0.0, t.length / 2), t.inertia, scene.cfg.ft.bias)


def build_compensator(scene: Scene, pin_model: pin.Model) -> ToolLoadCompensator:
    """Tool-load compensation of the scene's F/T reading on the control model."""
    return ToolLoadCompensator(pin_model, "ft_site", tool_load(scene))
