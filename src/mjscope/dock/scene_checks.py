"""Checks of a loaded ``SceneCfg``: choices, finite numbers, positive sizes, gate defaults."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from mjscope.dock.config import FORCE_SOURCES, FRICTION_MODELS, PLANNERS, SceneCfg
from mjscope.exceptions import ConfigError
from mjscope.models import registry

#: Scene values that must be > 0 (dotted paths into ``SceneCfg``).
POSITIVE_KEYS = (
    "control_period",
    "duration",
    "tool.mass",
    "tool.half_width",
    "tool.length",
    "controller.friction_comp.velocity_eps",
    "controller.friction_comp.torque_eps",
    "planner.approach_time",
    "planner.insert_time",
    "planner.period",
    "planner.ramp_time",
    "planner.v_max",
    "planner.a_max",
    "planner.w_max",
    "planner.alpha_max",
    "controller.hqp.stiffness_min",
    "controller.hqp.observer_gain",
    "controller.hqp.acceleration_limit",
    "controller.hqp.brake_acceleration",
    "controller.hqp.t_soften",
    "controller.hqp.t_restore",
)


def validate(cfg: SceneCfg, where: str = "scene") -> SceneCfg:
    """Check choices and ranges; fill gate defaults from the dock and duration.

    Raises:
        ConfigError: A value is out of its valid set or range.
    """
    if cfg.robot not in registry.names():
        raise ConfigError(f"{where}: robot {cfg.robot!r} unknown; valid: {registry.names()}")
    _choice(cfg.planner.kind, PLANNERS, f"{where}: planner.kind")
    _choice(cfg.controller.friction_comp.model, FRICTION_MODELS, f"{where}: friction_comp.model")
    _choice(cfg.controller.hqp.force_source, FORCE_SOURCES, f"{where}: hqp.force_source")
    if cfg.dock is None and cfg.planner.kind == "two_segment":
        raise ConfigError(f"{where}: planner.kind 'two_segment' needs a dock section")
    _check_finite(cfg, where)
    for key in POSITIVE_KEYS:
        _check_positive(cfg, key, where)
    if cfg.dock is not None:
        for key in ("dock.depth", "dock.wall"):
            _check_positive(cfg, key, where)
        if cfg.dock.clearance < 0:
            raise ConfigError(f"{where}: dock.clearance must be >= 0, got {cfg.dock.clearance}")
    oc = cfg.planner.orientation
    if oc is not None and (oc.period <= 0 or oc.ramp_time <= 0 or not any(oc.axis)):
        raise ConfigError(
            f"{where}: planner.orientation needs period > 0, ramp_time > 0 and a non-zero axis, "
            f"got {oc.period}, {oc.ramp_time}, {list(oc.axis)}"
        )
    _check_hqp(cfg, where)
    iv = cfg.planner.insert_v_max
    if iv is not None and not iv > 0:
        raise ConfigError(f"{where}: planner.insert_v_max must be > 0 [m/s], got {iv}")
    if cfg.planner.hold < 0:
        raise ConfigError(f"{where}: planner.hold must be >= 0, got {cfg.planner.hold}")
    sections = {
        "impedance": cfg.controller.impedance,
        "se3_impedance": cfg.controller.se3_impedance,
    }
    for section, gains in sections.items():
        for name in ("kp_pos", "kp_rot", "ki_pos", "kd_pos", "kd_rot", "i_limit"):
            value = getattr(gains, name, None)
            if value is not None and min(value if isinstance(value, tuple) else (value,)) < 0:
                raise ConfigError(f"{where}: controller.{section}.{name} must be >= 0")
    n = round(cfg.control_period / 0.001)
    if n < 1 or abs(n * 0.001 - cfg.control_period) > 1e-9:
        raise ConfigError(f"{where}: control_period must be a multiple of 0.001 s")
    gate = cfg.gate
    if gate.time_budget is None:
        gate = dataclasses.replace(gate, time_budget=cfg.duration)
    if gate.max_lateral is None and cfg.dock is not None:
        gate = dataclasses.replace(gate, max_lateral=cfg.dock.clearance)
    return dataclasses.replace(cfg, gate=gate)


def _check_hqp(cfg: SceneCfg, where: str) -> None:
    """The ``hqp`` section's bounds are ordered and its limits positive."""
    hq = cfg.controller.hqp
    if not hq.stiffness_min <= hq.stiffness_max:
        raise ConfigError(
            f"{where}: controller.hqp.stiffness_min {hq.stiffness_min} > stiffness_max "
            f"{hq.stiffness_max}; give min <= max"
        )
    if not (0 <= hq.force_dead < hq.force_sat and 0 <= hq.moment_dead < hq.moment_sat):
        raise ConfigError(
            f"{where}: controller.hqp needs 0 <= force_dead < force_sat and 0 <= moment_dead < "
            f"moment_sat, got {hq.force_dead}, {hq.force_sat}, {hq.moment_dead}, {hq.moment_sat}"
        )
    if not hq.velocity_limit or min(hq.velocity_limit) <= 0:
        raise ConfigError(
            f"{where}: controller.hqp.velocity_limit must be > 0 (one value or one per joint), "
            f"got {list(hq.velocity_limit)}"
        )
    band, target = cfg.gate.force_band, cfg.gate.contact_force_target
    if band is not None and (band <= 0 or target is None):
        raise ConfigError(
            f"{where}: gate.force_band must be > 0 and needs gate.contact_force_target, got "
            f"force_band={band}, contact_force_target={target}"
        )
    if hq.torque_rate_limit is not None and hq.torque_rate_limit <= 0:
        raise ConfigError(
            f"{where}: controller.hqp.torque_rate_limit must be > 0 [N·m/s] (or omitted), "
            f"got {hq.torque_rate_limit}"
        )
    if min(hq.wrench_uncertainty) < 0:
        raise ConfigError(
            f"{where}: controller.hqp.wrench_uncertainty must be >= 0 [N, N·m], got "
            f"{list(hq.wrench_uncertainty)}"
        )
    _check_schedule(cfg, where)
    rate = cfg.controller.impedance.torque_rate_limit
    if rate is not None and rate <= 0:
        raise ConfigError(
            f"{where}: controller.impedance.torque_rate_limit must be > 0 [N·m/s] (or omitted), "
            f"got {rate}"
        )
    if hq.position_margin < 0 or hq.preload_force < 0 or hq.k_sing < 0:
        raise ConfigError(
            f"{where}: controller.hqp position_margin, preload_force and k_sing must be >= 0"
        )


def _check_finite(obj: Any, where: str) -> None:
    """Every number in the (nested) configuration is finite: NaN or inf is a typo, not a gain."""
    items = (
        ((f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj))
        if dataclasses.is_dataclass(obj)
        else enumerate(obj)
    )
    for key, v in items:
        sub = f"{where}.{key}" if isinstance(key, str) else f"{where}[{key}]"
        if isinstance(v, float) and not math.isfinite(v):
            raise ConfigError(f"{sub} is {v}; give a finite number")
        if dataclasses.is_dataclass(v) or isinstance(v, tuple):
            _check_finite(v, sub)


def _check_schedule(cfg: SceneCfg, where: str) -> None:
    """Knots increasing, one multiplier per knot, every multiplier > 0."""
    s = cfg.controller.schedule
    n = len(s.times)
    damping = s.damping if s.damping is not None else s.stiffness
    if len(s.stiffness) != n or len(damping) != n:
        raise ConfigError(
            f"{where}: controller.schedule needs one stiffness (and damping) value per time, got "
            f"{n} times, {len(s.stiffness)} stiffness, {len(damping)} damping values"
        )
    if any(b <= a for a, b in zip(s.times, s.times[1:], strict=False)):
        raise ConfigError(f"{where}: controller.schedule.times must increase, got {list(s.times)}")
    if any(x <= 0 for x in (*s.stiffness, *damping)):
        raise ConfigError(f"{where}: controller.schedule multipliers must be > 0")


def _check_positive(cfg: SceneCfg, key: str, where: str) -> None:
    value: Any = cfg
    for part in key.split("."):
        value = getattr(value, part)
    if value <= 0:
        raise ConfigError(f"{where}: {key} must be > 0, got {value}")


def _choice(value: str, valid: tuple[str, ...], where: str) -> None:
    if value not in valid:
        raise ConfigError(f"{where} {value!r} unknown; valid: {', '.join(valid)}")
