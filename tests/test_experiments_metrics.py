from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mjscope.exceptions import ConfigError
from mjscope.experiments.gate import evaluate_docking_gate, evaluate_gate, evaluate_tracking_gate
from mjscope.experiments.metrics import (
    LEVELS,
    UNITS,
    compute_metrics,
    rotation_error,
    tracking_summary,
)
from mjscope.experiments.scene import DockCfg, GateCfg, PlannerCfg, Scene, SceneCfg
from mjscope.experiments.telemetry import Log
from tests.utils import assert_close

DT = 0.001


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def docking_scene(**gate: float | None) -> Scene:
    g = {"time_budget": 4.0, "max_lateral": 5e-4, "max_axis_angle_deg": 1.0, "max_peak_force": 50.0}
    g.update(gate)
    cfg = SceneCfg(
        name="t_dock", dock=DockCfg(depth=0.03, clearance=5e-4), duration=3.0, gate=GateCfg(**g)
    )
    return Scene(cfg)


def tracking_scene(**gate: float) -> Scene:
    cfg = SceneCfg(name="t_track", planner=PlannerCfg(kind="circle"), gate=GateCfg(**gate))
    return Scene(cfg)


def build_log(n: int, **columns) -> Log:
    """A log of n samples at 1 kHz; columns override per-sample values (arrays of length n)."""
    t = np.arange(n) / 1000.0  # exact multiples: t[500] == 0.5
    base = {
        "t": t,
        "q": np.zeros((n, 7)),
        "v": np.zeros((n, 7)),
        "tau": np.zeros((n, 7)),
        "eef_pos": np.zeros((n, 3)),
        "eef_rot": np.tile(np.eye(3), (n, 1, 1)),
        "ref_pos": np.zeros((n, 3)),
        "ref_vel": np.zeros((n, 3)),
        "ref_rot": np.tile(np.eye(3), (n, 1, 1)),
        "wrench": np.zeros((n, 6)),
        "contact_force": np.zeros(n),
        "insertion_depth": np.zeros(n),
        "lateral_error": np.zeros(n),
        "axis_angle": np.zeros(n),
        "segment": np.zeros(n, dtype=int),
    }
    base.update(columns)
    log = Log(capacity=n)
    for k in range(n):
        log.store_data(**{name: col[k] for name, col in base.items()})
    return log


def tracking_log() -> Log:
    """Errors 10 mm / 0.05 rad before 0.5 s, then alternating ±1 mm / ±0.01 rad (RMS known)."""
    n = 2001
    t = np.arange(n) / 1000.0
    sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    ex = np.where(t < 0.5, 0.01, 0.001 * sign)
    ang = np.where(t < 0.5, 0.05, 0.01 * sign)
    eef = np.zeros((n, 3))
    eef[:, 0] = ex
    rots = np.array([rot_z(a) for a in ang])
    seg = (t >= 1.0).astype(int)
    return build_log(n, eef_pos=eef, eef_rot=rots, segment=seg)


def docking_log() -> Log:
    """Approach at 5 cm/s, contact at 1.0 s; force 15 N, 8 N, 10.3 N, then 10 N; depth ramps."""
    n = 3001
    t = np.arange(n) / 1000.0
    f = np.select([t < 1.0, t < 1.2, t < 1.5, t < 2.0], [0.0, 15.0, 8.0, 10.3], 10.0)
    eef = np.zeros((n, 3))
    eef[:, 2] = 0.05 - 0.05 * t
    wrench = np.zeros((n, 6))
    wrench[:, 2] = -f
    wrench[:, 3] = 0.2 * f
    depth = np.clip(0.03 * (t - 1.0), 0.0, 0.028)
    return build_log(
        n,
        eef_pos=eef,
        ref_pos=eef.copy(),
        contact_force=f,
        wrench=wrench,
        insertion_depth=depth,
        lateral_error=1e-3 * np.exp(-t),
        axis_angle=np.full(n, 0.002),
    )


def zero_motion_log(n: int = 3001) -> Log:
    """A controller that did nothing: the tool stays 2 cm above the mouth, the reference moves."""
    t = np.arange(n) / 1000.0
    eef = np.tile([0.6, 0.0, 0.22], (n, 1))
    ref = eef.copy()
    ref[:, 0] += 0.05 * np.sin(np.pi * t)
    ref[:, 2] -= 0.04 * np.minimum(t, 1.0)
    return build_log(
        n,
        eef_pos=eef,
        ref_pos=ref,
        insertion_depth=np.full(n, -0.02),
        lateral_error=np.full(n, 1e-4),
    )


def test_tracking_rms_and_max_match_hand_values() -> None:
    m = compute_metrics(tracking_log(), tracking_scene())
    assert m["samples"] == 2001 and m["sim_time"] == pytest.approx(2.0)
    assert_close(m["pos_err_rms_settled"], 0.001, atol=1e-15, what="pos RMS after 0.5 s")
    assert_close(m["pos_err_max_settled"], 0.001, atol=1e-15)
    assert_close(m["ori_err_rms_settled"], 0.01, atol=1e-12, what="ori RMS after 0.5 s")
    assert_close(m["ori_err_max"], 0.05, atol=1e-12)
    assert_close(m["pos_err_max"], 0.01, atol=1e-15)
    rms_all = math.sqrt((500 * 0.01**2 + 1501 * 0.001**2) / 2001)
    assert_close(m["pos_err_rms"], rms_all, atol=1e-15, what="pos RMS overall")
    assert "peak_contact_force" not in m, "tracking mode ignores F/T and contact fields"


def test_tracking_metrics_ignore_wrench_and_contact() -> None:
    a = tracking_log().arrays()
    a["wrench"][:] = 1e3
    a["contact_force"][:] = 1e3
    noisy = compute_metrics(a, tracking_scene())
    assert noisy == compute_metrics(tracking_log(), tracking_scene())


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


def test_contact_transient_matches_hand_values() -> None:
    m = compute_metrics(docking_log(), docking_scene())
    assert m["peak_contact_force"] == 15.0
    assert_close(m["peak_ft_force"], 15.0, atol=1e-12)
    assert_close(m["peak_ft_torque"], 3.0, atol=1e-12)
    assert_close(m["reference_force"], 10.0, atol=1e-12, what="steady state (no target)")
    assert_close(m["force_overshoot"], 5.0, atol=1e-12)
    assert_close(m["force_overshoot_pct"], 50.0, atol=1e-9)
    assert_close(m["settling_time"], 0.5, atol=1e-12, what="enters ±0.5 N band at 1.5 s")
    # trapezoid: dt * (sum f - (f_0 + f_last) / 2)
    impulse = DT * (15.0 * 200 + 8.0 * 300 + 10.3 * 500 + 10.0 * 1001 - 5.0)
    assert_close(m["contact_impulse"], impulse, atol=1e-9)
    assert_close(m["contact_onset_time"], 1.0, atol=1e-12)
    assert_close(m["approach_speed_at_contact"], 0.05, atol=1e-9)
    assert_close(m["lateral_error_at_contact"], 1e-3 * math.exp(-1.0), atol=1e-15)


def test_target_force_sets_reference_overshoot_and_error() -> None:
    m = compute_metrics(docking_log(), docking_scene(contact_force_target=12.0))
    assert_close(m["force_overshoot"], 3.0, atol=1e-12)
    assert_close(m["force_overshoot_pct"], 25.0, atol=1e-9)
    assert_close(m["steady_state_force_error"], 2.0, atol=1e-12)
    assert math.isnan(m["settling_time"]), "never inside ±0.6 N of 12 N"


def test_outcome_and_docking_gate_pass() -> None:
    scene = docking_scene()
    m = compute_metrics(docking_log(), scene)
    assert_close(m["final_insertion_depth"], 0.028, atol=1e-15)
    assert_close(m["time_to_depth"], 1.9, atol=1.1e-3, what="0.03 m/s reaches 27 mm")
    assert_close(m["final_lateral_error"], 1e-3 * math.exp(-3.0), atol=1e-15)
    assert_close(m["final_axis_angle"], 0.002, atol=1e-15)
    assert_close(m["steady_state_force"], 10.0, atol=1e-12)
    assert math.isnan(m["steady_state_force_error"]), "no target force in the scene"
    gate = evaluate_gate(m, scene)
    assert gate.passed and m["success"] is True and gate.mode == "docking"
    assert [c.name for c in gate.checks] == [
        "final_insertion_depth",
        "time_to_depth",
        "final_lateral_error",
        "final_axis_angle",
        "peak_contact_force",
    ]
    assert_close(gate.checks[0].threshold, 0.027, atol=1e-15, what="90 % of 30 mm")


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


def test_empty_and_nan_logs_fail() -> None:
    for scene in (docking_scene(), tracking_scene()):
        m = compute_metrics(Log(), scene)
        assert m["samples"] == 0 and not evaluate_gate(m, scene).passed
    a = tracking_log().arrays()
    a["eef_pos"][-1] = np.nan  # a run that diverged on its last step
    assert not evaluate_gate(compute_metrics(a, tracking_scene()), tracking_scene()).passed


def test_tracking_summary_per_segment() -> None:
    rows = tracking_summary(tracking_log(), tracking_scene())
    assert [r["segment"] for r in rows] == [0, 1]
    assert rows[0]["samples"] == 1000 and rows[1]["samples"] == 1001
    assert_close([rows[0]["t_start"], rows[0]["t_end"]], [0.0, 0.999], atol=1e-12)
    assert_close(rows[1]["t_start"], 1.0, atol=1e-12)
    rms0 = math.sqrt((500 * 0.01**2 + 500 * 0.001**2) / 1000)
    assert_close(rows[0]["pos_err_rms"], rms0, atol=1e-15)
    assert_close(rows[1]["pos_err_rms"], 0.001, atol=1e-15)
    assert_close(rows[1]["ori_err_max"], 0.01, atol=1e-12)


def test_rotation_error_matches_scipy_including_small_angles() -> None:
    rng = np.random.default_rng(0)
    Ra = Rotation.random(50, random_state=rng)
    Rb = Rotation.random(50, random_state=rng)
    expected = (Ra.inv() * Rb).magnitude()
    assert_close(rotation_error(Ra.as_matrix(), Rb.as_matrix()), expected, atol=1e-12)
    small = np.array([rot_z(1e-9), rot_z(1e-5)])
    assert_close(rotation_error(np.tile(np.eye(3), (2, 1, 1)), small), [1e-9, 1e-5], atol=1e-17)


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
    from mjscope.experiments.scene import load_scene

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
    assert [ch.threshold for ch in tg.checks] == [0.002, 0.02]
