"""Guarded approach and force loop: the shaped reference, and the loop end to end."""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.spatial.transform import Rotation

from mjscope.control.force_loop import ForceLoop, ForceLoopGains
from mjscope.control.planners import QuinticTrajectory, ReferenceAdapter
from mjscope.dock.config import ForceLoopCfg
from mjscope.dock.metrics import compute_metrics
from mjscope.dock.run_docking import run_simulation
from mjscope.dock.scene import Scene, load_scene
from tests.utils import assert_close

DT = 0.001
G = ForceLoopGains(target=5.0, contact_threshold=2.0, gain=0.002, max_rate=0.01,
                   guard_distance=0.004, guard_speed=0.01)  # fmt: skip


def _adapter() -> tuple[ReferenceAdapter, np.ndarray]:
    """A straight plunge along −z from 50 mm above the mouth to 10 mm inside, in 1 s."""
    R = Rotation.from_euler("xyz", [180, 0, 30], degrees=True).as_matrix()
    return ReferenceAdapter(QuinticTrajectory([0, 0, 0.05], [0, 0, -0.01], 1.0, 0.0), R), R


def test_guard_caps_the_speed_then_the_force_loop_regulates_the_preload() -> None:
    ad, R = _adapter()
    fl = ForceLoop(G, [0, 0, -1], [0, 0, 0], contact_depth=0.008, dt=DT)
    depths, same = [], 0
    for k in range(3000):  # (the admittance's time constant here: 1/(0.002 · 2000) = 0.25 s)
        ref = ad(min(k * DT, 1.0))
        f = 0.0 if fl.depth is None or fl.depth < 0.008 else 2000.0 * (fl.depth - 0.008) + 2.5
        out = fl.shape(ref, np.r_[0.0, 0.0, f, 0, 0, 0])  # the wall pushes back along +z
        same += out is ref
        depths.append(-out.pos[2])
        assert_close(out.T_d[:3, 3], out.pos, atol=1e-15)  # pose and world position agree
        assert_close(out.V_d[:3], R.T @ out.vel, atol=1e-12)  # body twist = Rᵀ world velocity
    d = np.array(depths)
    rate = np.diff(d) / DT
    guard = (d[:-1] > 0.004) & ~fl.in_contact
    assert same > 500  # outside the guard zone the planner's reference is passed untouched
    assert rate[d[:-1] > 0.0041].max() <= G.guard_speed + 1e-9  # the guarded approach
    assert not guard.all()
    assert fl.in_contact and 0.4 < fl.contact_time < 1.5
    f_end = 2000.0 * (d[-1] - 0.008) + 2.5
    assert abs(f_end - G.target) < 0.05  # the admittance settles on the preload


def test_hqp_mode_keeps_the_guard_but_no_force_loop() -> None:
    ad, _ = _adapter()
    fl = ForceLoop(G, [0, 0, -1], [0, 0, 0], contact_depth=0.008, dt=DT, force_mode=False)
    for k in range(1500):
        out = fl.shape(ad(min(k * DT, 1.0)), np.r_[0.0, 0.0, 50.0, 0, 0, 0])  # always "contact"
    assert fl.in_contact
    assert abs(-out.pos[2] - 0.01) < 1e-9  # reached the planner's depth at the guard speed


def test_force_loop_in_the_docking_loop_tracks_the_preload_and_softens_the_impact() -> None:
    """iiwa14_docking: without the guard the bottom impact peaks at 35.7 N and the force is
    set by the 2 mm reference overshoot; with it (10 mm/s, 5 N target) the peak drops to
    ≈ 17 N and the steady force is the target."""
    base = load_scene("iiwa14_docking")
    ctrl = dataclasses.replace(base.cfg.controller, force_loop=ForceLoopCfg(enabled=True))
    sc = Scene(dataclasses.replace(base.cfg, controller=ctrl))
    result = run_simulation(sc, "cic")
    m = compute_metrics(result.log, sc, "cic")
    assert abs(m["steady_state_force"] - 5.0) < 0.1
    assert m["impact_peak_force"] < 25.0
    assert m["final_insertion_depth"] > 0.9 * 0.03
    assert 2.9 < result.controller_stats["contact_detected_ms"] / 1e3 < 3.5
