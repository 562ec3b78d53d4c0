"""The PASS/FAIL gate: docking and tracking checks with thresholds from the scene file.

A scene states its thresholds under ``gate:`` (and the dock's depth and clearance); nothing is
hard-coded here. A metric that never occurred is NaN, and NaN fails every check.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mjscope.dock.metric_units import UNITS, Metrics
from mjscope.exceptions import ConfigError

if TYPE_CHECKING:
    from mjscope.dock.scene import Scene


@dataclass(frozen=True)
class GateCheck:
    """One threshold check of a gate.

    Attributes:
        name: The metric checked.
        value: Its measured value [unit]; NaN when the quantity never occurred.
        threshold: The limit from the scene [unit].
        unit: Unit of ``value`` and ``threshold``.
        passed: Whether ``value op threshold`` holds (NaN never passes).
        op: The comparison: ``"<="``, ``"<"`` or ``">="``.
    """

    name: str
    value: float
    threshold: float
    unit: str
    passed: bool
    op: str = "<="


@dataclass(frozen=True)
class GateResult:
    """Verdict of a gate: PASS only when every check passes.

    Attributes:
        passed: All checks passed.
        checks: The individual checks, in report order.
        mode: The gate that was evaluated (``"docking"`` or ``"tracking"``).
    """

    passed: bool
    checks: list[GateCheck]
    mode: str = ""


_OPS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge}


def _check(name: str, metrics: Metrics, op: str, threshold: float) -> GateCheck:
    v, th = float(metrics[name]), float(threshold)
    return GateCheck(name, v, th, UNITS[name], bool(_OPS[op](v, th)), op)


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def _result(checks: list[GateCheck], mode: str) -> GateResult:
    return GateResult(all(c.passed for c in checks), checks, mode)


def evaluate_tracking_gate(metrics: Metrics, scene: Scene) -> GateResult:
    """Tracking gate: RMS position and orientation errors after the transient.

    Args:
        metrics: Output of :func:`mjscope.dock.metrics.compute_metrics`.
        scene: Supplies ``cfg.gate.track_pos_rms`` [m] and ``track_rot_rms`` [rad].

    Returns:
        The verdict with one check per threshold.
    """
    g = scene.cfg.gate
    checks = [
        _check("pos_err_rms_settled", metrics, "<=", g.track_pos_rms),
        _check("ori_err_rms_settled", metrics, "<=", g.track_rot_rms),
    ]
    return _result(checks, "tracking")


def evaluate_docking_gate(metrics: Metrics, scene: Scene) -> GateResult:
    """Docking gate: depth reached in time, residuals inside the dock's tolerances, safe force.

    Args:
        metrics: Output of :func:`mjscope.dock.metrics.compute_metrics` for a docking run.
        scene: Supplies the dock (``depth``, ``clearance`` [m]) and ``cfg.gate``
            (``depth_fraction``, ``time_budget`` [s] (default: the duration),
            ``max_lateral`` [m] (default: the clearance), ``max_axis_angle`` [rad],
            ``max_peak_force`` [N]; with ``force_band`` and ``contact_force_target``, also
            ``|steady-state force − target| ≤ force_band`` [N]).

    Returns:
        The verdict with one check per threshold.

    Raises:
        ConfigError: The scene has no dock.
    """
    g, dock = scene.cfg.gate, scene.cfg.dock
    if dock is None:
        raise ConfigError(f"scene {scene.name!r} has no dock; use the tracking gate for it")
    checks = [
        _check("final_insertion_depth", metrics, ">=", g.depth_fraction * dock.depth),
        _check("time_to_depth", metrics, "<=", _or(g.time_budget, scene.cfg.duration)),
        _check("final_lateral_error", metrics, "<", _or(g.max_lateral, dock.clearance)),
        _check("final_axis_angle", metrics, "<", g.max_axis_angle),
        _check("peak_contact_force", metrics, "<", g.max_peak_force),
    ]
    if g.force_band is not None and g.contact_force_target is not None:
        checks.append(_check("steady_state_force_error", metrics, "<=", g.force_band))
    return _result(checks, "docking")


def evaluate_gate(metrics: Metrics, scene: Scene) -> GateResult:
    """The scene's gate: docking or tracking, by ``scene.mode``.

    Raises:
        ConfigError: Unknown mode.
    """
    if scene.mode == "docking":
        return evaluate_docking_gate(metrics, scene)
    if scene.mode == "tracking":
        return evaluate_tracking_gate(metrics, scene)
    raise ConfigError(f"unknown scene mode {scene.mode!r}; valid: docking, tracking")
