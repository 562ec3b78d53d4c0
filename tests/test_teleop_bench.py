"""The teleop benchmark's rows (shape and sanity; the figures themselves are machine-bound)."""

from __future__ import annotations

import math

from mjscope.benchmarks import bench_teleop
from mjscope.benchmarks.teleop_peer import NaiveArm, quaternion_matrix, quaternion_multiply
from mjscope.rig import load_rig_cfg
from mjscope.teleop.poses import quat_mul, quat_to_mat
from mjscope.teleop.urdf import read_urdf
from tests.utils import assert_close


def test_cycle_rows_put_ours_beside_the_naive_peer() -> None:
    rows = bench_teleop.bench_cycle(quick=True)
    by = {r["metric"]: r for r in rows}
    ours, peer = rows[0], by["naive peer cycle p50 (Placo per arm, no limits)"]
    for r in rows:
        assert math.isfinite(r["value"]) and r["value"] > 0, r
        assert set(r) - {"met"} == {"metric", "value", "unit", "ratio", "target", "note"}
    assert ours["target"] == "≤ 0.6× peer" and rows[1]["target"] == "≤ 0.5× peer"
    ratio = float(ours["note"].split("×")[0])
    assert abs(ratio - ours["value"] / peer["value"]) < 0.01  # the printed ratio is the figures'
    for r in rows:  # every row with a target says whether it met it, from its own ratio
        assert ("met" in r) == bool(r["target"]), r
        if "met" in r:
            limit = float(r["target"].split("≤ ")[1].split("×")[0])
            met = float(r["note"].split("×")[0]) <= limit and "preempted" not in r["note"]
            assert r["met"] is met, r
    assert "3150 engaged arm-cycles" in ours["note"]  # every timed cycle ran the whole chain
    stages = [r for r in rows if r["metric"].strip().startswith("stage")]
    assert [r["metric"].split()[1] for r in stages] == ["target", "ik", "limits", "send"]
    assert sum(r["value"] for r in stages) < ours["value"] * 1.5  # the split adds up to a cycle


def test_the_peer_tracks_its_target_like_the_samples() -> None:
    rig, root = load_rig_cfg(), read_urdf()
    arm = NaiveArm(root, rig.sides["left"], 1 / 90)
    rng = __import__("numpy").random.default_rng(0)
    a, b = (v / (v @ v) ** 0.5 for v in rng.normal(size=(2, 4)))
    assert_close(quaternion_multiply(a, b), quat_mul(a, b), 1e-12, what="quaternion product")
    assert_close(quaternion_matrix(a)[:3, :3], quat_to_mat(a), 1e-12, what="rotation")
    from mjscope.teleop.scripted import hold_pose

    ee0 = arm.robot.get_T_world_frame(arm.ee)[:3, 3].copy()
    for k in range(60):  # the controller moves 5 cm along x: the end effector follows
        arm.step(hold_pose([0.3 + 0.05 * min(k / 30, 1), 0.2, 1.0, 1.0, 0, 0, 0]))
    moved = arm.robot.get_T_world_frame(arm.ee)[:3, 3] - ee0
    assert_close(moved, [0.05, 0.0, 0.0], 2e-3, what="end-effector displacement [m]")


def test_a_preempted_tail_is_flagged_not_passed_off_as_the_cycles() -> None:
    assert bench_teleop._preempted(70.0, 200.0, 100.0, 250.0) == ""
    assert "preempted" in bench_teleop._preempted(70.0, 200.0, 100.0, 3000.0)  # the peer's
    assert "preempted" in bench_teleop._preempted(70.0, 2000.0, 100.0, 250.0)  # ours


def test_interruptions_are_the_clock_gaps_over_5_us() -> None:
    from mjscope.benchmarks import interruptions

    ticks = [0.0]  # a 0.1 µs loop; every 200th reading comes 30 µs late (one 40 µs late)
    for k in range(1, 10001):
        late = 0.0 if k % 200 else (40e-6 if k == 4000 else 30e-6)
        ticks.append(ticks[-1] + 1e-7 + late)
    it = iter(ticks)
    got = interruptions.measure(ticks[-1] - 1e-12, clock=lambda: next(it))
    assert abs(got.median_us - 30.1) < 1e-6 and abs(got.p90_us - 30.1) < 1e-6
    assert abs(got.rate_hz - 50 / ticks[-1]) < 1e-9 * got.rate_hz  # 50 gaps in the span
    assert got.hit_share(10e-6) == 10e-6 * got.rate_hz and got.hit_share(1e-3) == 1.0
    quiet = iter([0.0, 1e-7, 2e-7])
    assert interruptions.measure(1.5e-7, clock=lambda: next(quiet)).rate_hz == 0.0
