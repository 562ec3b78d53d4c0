"""Metric names, units and levels shared by metrics, gate, plots and tables."""

from __future__ import annotations

#: Metric name -> value in SI units (see :data:`UNITS`); ``samples`` is an ``int`` and
#: ``success`` a ``bool`` (both are floats to a type checker); NaN: the quantity never occurred.
Metrics = dict[str, float]

_LEVEL_UNITS: dict[str, dict[str, str]] = {
    "run": {"samples": "", "sim_time": "s"},
    "approach": {
        "pos_err_rms": "m",
        "pos_err_max": "m",
        "ori_err_rms": "rad",
        "ori_err_max": "rad",
        "pos_err_rms_settled": "m",
        "pos_err_max_settled": "m",
        "ori_err_rms_settled": "rad",
        "ori_err_max_settled": "rad",
        "contact_onset_time": "s",
        "lateral_error_at_contact": "m",
        "axis_angle_at_contact": "rad",
        "approach_speed_at_contact": "m/s",
    },
    "contact": {
        "peak_contact_force": "N",
        "peak_ft_force": "N",
        "peak_ft_torque": "N·m",
        "reference_force": "N",
        "force_overshoot": "N",
        "force_overshoot_pct": "%",
        "settling_time": "s",
        "contact_impulse": "N·s",
        "impact_peak_force": "N",
        "impact_impulse": "N·s",
        "force_tracking_rms": "N",
        "time_to_depth_after_contact": "s",
    },
    "outcome": {
        "success": "",
        "final_insertion_depth": "m",
        "time_to_depth": "s",
        "final_lateral_error": "m",
        "final_axis_angle": "rad",
        "steady_state_force": "N",
        "steady_state_force_error": "N",
    },
    "effort": {
        "torque_rms": "N·m",
        "torque_peak": "N·m",
        "injected_energy": "J",
        "net_work": "J",
    },
    "limits": {
        "joint_limit_margin": "rad",
        "position_ratio": "",
        "velocity_ratio": "",
        "acceleration_ratio": "",
        "torque_ratio": "",
        "torque_rate_ratio": "",
        "limit_violations": "",
        "position_violations": "",
        "velocity_violations": "",
        "acceleration_violations": "",
        "torque_violations": "",
        "torque_rate_violations": "",
        "torque_saturated_steps": "",
    },
}
#: Metric name -> unit; level name -> metric names (in table order).
UNITS: dict[str, str] = {k: u for level in _LEVEL_UNITS.values() for k, u in level.items()}
LEVELS: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _LEVEL_UNITS.items()}
