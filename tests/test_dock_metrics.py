"""Docking and tracking metrics against hand-computed values of synthetic logs.

The expected numbers are not measurements: each synthetic log below is built so that the
metric follows from a formula stated next to the assertion (RMS of known errors, a trapezoid
impulse, the time a ramp reaches a depth). The helpers are shared with the gate, plotting and
report tests.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mjscope.dock.config import DockCfg, GateCfg, PlannerCfg, SceneCfg
from mjscope.dock.gate import evaluate_gate
from mjscope.dock.metrics import compute_metrics, tracking_summary
from mjscope.dock.scene import Scene
from mjscope.dock.telemetry import Log, Sample
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
        "wrench_raw": np.zeros((n, 6)),
    }
    base.update(columns)
    log = Log(capacity=n)
    for k in range(n):
        log.store_data(Sample(**{name: col[k] for name, col in base.items()}))
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
