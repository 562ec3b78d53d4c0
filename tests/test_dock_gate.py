"""The PASS/FAIL gate: every threshold comes from the scene, NaN fails, strict vs non-strict.

Logs and scenes are the synthetic ones of ``test_dock_metrics`` (hand-computed values).
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from mjscope.dock.gate import evaluate_docking_gate, evaluate_gate, evaluate_tracking_gate
from mjscope.dock.metric_units import LEVELS, UNITS
from mjscope.dock.metrics import compute_metrics
from mjscope.dock.scene import load_scene
from mjscope.exceptions import ConfigError
from tests.test_dock_metrics import (
    docking_log,
    docking_scene,
    tracking_log,
    tracking_scene,
    zero_motion_log,
)


def test_tracking_gate_at_thresholds_from_the_scene() -> None:
    log = tracking_log()
    m = compute_metrics(log, tracking_scene())
    assert evaluate_gate(m, tracking_scene()).passed  # defaults: 2 mm, 0.02 rad
    just = tracking_scene(track_pos_rms=0.001 * (1 + 1e-9), track_rot_rms=0.01 * (1 + 1e-9))
    assert evaluate_tracking_gate(m, just).passed
    tight = evaluate_tracking_gate(m, tracking_scene(track_pos_rms=0.001 * (1 - 1e-6)))
    assert not tight.passed
    assert [c.passed for c in tight.checks] == [False, True]
    assert tight.checks[0].threshold == pytest.approx(0.001 * (1 - 1e-6))
    late = compute_metrics(log, tracking_scene(track_skip=0.0))  # skip nothing: 10 mm counts
    assert not evaluate_gate(late, tracking_scene(track_skip=0.0)).passed


@pytest.mark.parametrize(
    ("override", "failing"),
    [
        ({"time_budget": 1.85}, "time_to_depth"),
        ({"max_lateral": 4e-5}, "final_lateral_error"),
        ({"max_axis_angle_deg": 0.1}, "final_axis_angle"),
        ({"max_peak_force": 15.0}, "peak_contact_force"),  # strict: 15 N is not < 15 N
        ({"depth_fraction": 0.95}, "final_insertion_depth"),
    ],
)
def test_each_docking_threshold_comes_from_the_scene(override: dict, failing: str) -> None:
    scene = docking_scene(**override)
    m = compute_metrics(docking_log(), scene)
    gate = evaluate_docking_gate(m, scene)
    assert not gate.passed and m["success"] is False
    failed = {c.name for c in gate.checks if not c.passed}
    assert failing in failed
    if failing != "final_insertion_depth":  # 95 % is never reached, so time fails with depth
        assert failed == {failing}


def test_peak_force_just_above_threshold_passes() -> None:
    scene = docking_scene(max_peak_force=15.0 + 1e-9)
    assert evaluate_gate(compute_metrics(docking_log(), scene), scene).passed


def test_lateral_default_is_the_clearance() -> None:
    scene = docking_scene(max_lateral=None)
    gate = evaluate_gate(compute_metrics(docking_log(), scene), scene)
    assert gate.checks[2].threshold == 5e-4


def test_zero_motion_log_fails_every_gate() -> None:
    for scene in (docking_scene(), tracking_scene()):
        m = compute_metrics(zero_motion_log(), scene)
        assert not evaluate_gate(m, scene).passed, scene.mode
        assert not evaluate_tracking_gate(m, scene).passed, scene.mode
    m = compute_metrics(zero_motion_log(), docking_scene())
    gate = evaluate_docking_gate(m, docking_scene())
    assert not gate.passed and m["success"] is False
    failed = {c.name for c in gate.checks if not c.passed}
    assert {"final_insertion_depth", "time_to_depth"} <= failed
    assert math.isnan(m["time_to_depth"]) and math.isnan(m["contact_onset_time"])
    assert m["peak_contact_force"] == 0.0


def test_gate_errors_and_metadata() -> None:
    m = compute_metrics(tracking_log(), tracking_scene())
    with pytest.raises(ConfigError, match="no dock"):
        evaluate_docking_gate(m, tracking_scene())
    odd = tracking_scene()
    odd.mode = "welding"
    with pytest.raises(ConfigError, match="welding"):
        evaluate_gate(m, odd)
    assert set(UNITS) == {k for names in LEVELS.values() for k in names}
    scene = docking_scene()
    full = compute_metrics(docking_log(), scene)
    assert set(full) == set(UNITS), "docking mode reports every metric"
    assert dataclasses.is_dataclass(evaluate_gate(full, scene).checks[0])


def test_bundled_scenes_supply_the_gate_thresholds() -> None:
    dock = load_scene("iiwa14_docking")
    c = dock.cfg
    assert c.dock is not None and c.gate.time_budget is not None
    gate = evaluate_gate(compute_metrics(zero_motion_log(), dock), dock)
    assert [ch.threshold for ch in gate.checks] == pytest.approx(
        [
            c.gate.depth_fraction * c.dock.depth,
            c.gate.time_budget,
            c.dock.clearance if c.gate.max_lateral is None else c.gate.max_lateral,
            math.radians(c.gate.max_axis_angle_deg),
            c.gate.max_peak_force,
        ]
    )
    assert not gate.passed
    track = load_scene("iiwa14_track_circle")
    tg = evaluate_gate(compute_metrics(zero_motion_log(), track), track)
    assert tg.mode == "tracking" and not tg.passed
    assert [ch.threshold for ch in tg.checks] == [0.002, 0.02]  # iiwa14_track_circle.yaml gate


def test_force_band_is_checked_only_with_a_target() -> None:
    """``gate.force_band``: |steady-state force − target| ≤ band, a sixth docking check."""
    base = compute_metrics(docking_log(), docking_scene())
    ss = base["steady_state_force"]
    assert len(evaluate_docking_gate(base, docking_scene(force_band=0.1)).checks) == 5  # no target
    for target, band, passed in ((ss + 0.5, 0.5 * (1 + 1e-9), True), (ss - 0.5, 0.49, False)):
        scene = docking_scene(contact_force_target=target, force_band=band)
        gate = evaluate_docking_gate(compute_metrics(docking_log(), scene), scene)
        check = gate.checks[-1]
        assert len(gate.checks) == 6 and check.name == "steady_state_force_error"
        assert check.value == pytest.approx(0.5) and check.threshold == band
        assert check.passed is passed and gate.passed is passed
