"""The impact at contact onset: set by the contact model, or shaped by the controller.

With MuJoCo's time-constant contact the force jumps in the first period of contact to what the
approach speed and the effective mass make (the same for every controller); with a spring
contact (``iiwa14_docking_compliant``) it rises over ≈ 10 ms and the controllers' responses
(force loop for cic, preload and adaptive stiffness for hqp) make different peaks; after a few
decaying bounces the compliant contact stays closed. Checked from telemetry: the contact force
series after onset.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from mjscope.dock.config import ContactCfg
from mjscope.dock.gate import evaluate_gate
from mjscope.dock.loop import RunResult
from mjscope.dock.metrics import compute_metrics
from mjscope.dock.run_docking import quick_duration, run_simulation
from mjscope.dock.scene import Scene, load_scene


@functools.cache
def _run(scene: str, controller: str) -> tuple[Scene, RunResult]:
    """The quick run of ``controller`` on ``scene`` (shared by the tests below)."""
    sc = load_scene(scene)
    return sc, run_simulation(sc, controller, duration=quick_duration(sc))


def _impact(scene: str, controller: str) -> tuple[float, float, int, bool]:
    """(impact peak [N], first contact force [N], ms from onset to the peak, gate passed)."""
    sc, result = _run(scene, controller)
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


def _switches(cf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(make/break instants [ms after onset], touching flags after onset) of a force series."""
    onset = int(np.argmax(cf > 0.0))
    touching = cf[onset:] > 0.0
    return np.flatnonzero(touching[1:] != touching[:-1]) + 1, touching


@pytest.mark.parametrize("controller", ["cic", "hqp"])
def test_spring_contact_stays_closed_after_settling(controller: str) -> None:
    """After the first impact the tool bounces a few times, then never leaves the socket floor."""
    _, result = _run("iiwa14_docking_compliant", controller)
    cf = result.log.arrays()["contact_force"]
    switches, touching = _switches(cf)
    assert len(touching) > 600  # the run goes on long after the impact
    assert 0 < len(switches) <= 12  # a few decaying bounces (each leaves and comes back)
    assert switches[-1] < 250  # ... all within 250 ms of the first impact
    assert touching[250:].all()  # closed from then on
    settled = cf[-200:]
    assert settled.std() < 0.1 and abs(settled.mean() - 5.0) < 1.0  # 5 N target, ±1 N band


def test_a_contact_rigid_at_the_surface_chatters() -> None:
    """The cause, measured: with the default impedance at the surface (0.95) the same spring
    lets go at zero distance every ≈ 27 ms (the edge the peg rests on sits at 0–6 µm)."""
    sc = load_scene("iiwa14_docking_compliant")
    contact = dataclasses.replace(sc.cfg.contact, solimp=ContactCfg().solimp)
    rigid = Scene(dataclasses.replace(sc.cfg, contact=contact), sc.path)
    cf = run_simulation(rigid, "cic", duration=quick_duration(sc)).log.arrays()["contact_force"]
    switches, touching = _switches(cf)
    assert len(switches) > 30 and not touching[250:].all()
    assert cf[-200:].std() > 1.0  # a band, not a force
