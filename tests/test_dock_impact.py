"""The impact at contact onset: set by the contact model, or shaped by the controller.

With MuJoCo's time-constant contact the force jumps in the first period of contact to what the
approach speed and the effective mass make (the same for every controller); with a spring
contact (``iiwa14_docking_compliant``) it rises over ≈ 10 ms and the controllers' responses
(force loop for cic, preload and adaptive stiffness for hqp) make different peaks. Checked from
telemetry: the contact force series after onset.
"""

from __future__ import annotations

import numpy as np
import pytest

from mjscope.dock.gate import evaluate_gate
from mjscope.dock.metrics import compute_metrics
from mjscope.dock.run_docking import quick_duration, run_simulation
from mjscope.dock.scene import load_scene


def _impact(scene: str, controller: str) -> tuple[float, float, int, bool]:
    """(impact peak [N], first contact force [N], ms from onset to the peak, gate passed)."""
    sc = load_scene(scene)
    result = run_simulation(sc, controller, duration=quick_duration(sc))
    m = compute_metrics(result.log, sc, controller)
    cf = result.log.arrays()["contact_force"]
    onset = int(np.argmax(cf > 0.0))
    assert cf[onset] > 0.0, "the run reached contact"
    window = cf[onset : onset + 20]  # the metric's 20 ms
    assert m["impact_peak_force"] == pytest.approx(window.max(), rel=1e-12)
    passed = evaluate_gate(m, sc).passed
    return float(window.max()), float(cf[onset]), int(np.argmax(window)), passed


def test_time_constant_contact_sets_the_peak_in_the_first_period_for_every_controller() -> None:
    scene = "iiwa14_docking_campaign"
    cic, hqp = _impact(scene, "cic"), _impact(scene, "hqp")
    for peak, first, at, _ in (cic, hqp):
        assert at == 0 and first == peak  # the jump of the first period is the peak
    assert hqp[0] == pytest.approx(cic[0], rel=1e-3)  # nothing the controller could act on


def test_spring_contact_gives_a_peak_the_controller_shapes() -> None:
    scene = "iiwa14_docking_compliant"
    cic, hqp = _impact(scene, "cic"), _impact(scene, "hqp")
    for peak, first, at, passed in (cic, hqp):
        assert at >= 5 and first < 0.5 * peak  # it rises for several periods after onset
        assert passed
    assert cic[1] == pytest.approx(hqp[1], rel=0.01)  # the same arrival (guard speed)...
    assert hqp[0] > 1.4 * cic[0]  # ...and cic's force loop backs off, hqp's preload does not
