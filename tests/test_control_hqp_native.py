"""The hqp law's compiled glue (``_hqp.c``) gives the Python law's results bit for bit."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pinocchio as pin
import pytest

from mjscope.benchmarks.bench_dock import observer_scene
from mjscope.control.controllers import hqp_native
from mjscope.dock import native_loop
from mjscope.dock.loop import RunResult
from mjscope.dock.run_docking import build_hqp, run_simulation
from mjscope.dock.scene import Scene, load_scene
from tests.utils import assert_same_run, bundled_scenes

needs_native = pytest.mark.skipif(
    not hqp_native.available() and not os.environ.get("CI"),
    reason="the hqp law's C module was not built (no C compiler at install)",
)
SCENES = bundled_scenes()


def _run(mp: pytest.MonkeyPatch, compiled: bool, scene: Scene, duration: float,
         kernel: bool = True) -> RunResult:  # fmt: skip
    mp.setenv(hqp_native.ENV, "" if compiled else "python")
    mp.setenv(native_loop.ENV, "" if kernel else "python")
    return run_simulation(scene, "hqp", duration=duration)


def _hqp(scene: Scene, **fields: object) -> Scene:
    c = scene.cfg.controller
    cfg = dataclasses.replace(scene.cfg, controller=dataclasses.replace(
        c, hqp=dataclasses.replace(c.hqp, **fields)))  # fmt: skip
    return Scene(cfg, scene.path)


def test_available_under_ci() -> None:
    """In CI the C module must have been built (the compiled law is what users get)."""
    if os.environ.get("CI"):
        assert hqp_native.available(), "CI: the hqp law's C module (_hqp.c) was not built"


@needs_native
@pytest.mark.parametrize("source", ["sensor", "observer"])
@pytest.mark.parametrize("scene", SCENES)
def test_every_scene_bit_identical(
    monkeypatch: pytest.MonkeyPatch, scene: str, source: str
) -> None:
    """Every bundled scene, both wrench sources: telemetry, stops and counters the same bits."""
    sc = _hqp(load_scene(scene), force_source=source)
    duration = min(sc.cfg.duration, 1.0)
    assert_same_run(_run(monkeypatch, False, sc, duration), _run(monkeypatch, True, sc, duration))


@needs_native
@pytest.mark.parametrize("kernel", [True, False])
@pytest.mark.parametrize("source", ["sensor", "observer"])
def test_contact(monkeypatch: pytest.MonkeyPatch, source: str, kernel: bool) -> None:
    """Past contact onset (≈ 2.94 s): adaptation, preload and the wrench term are in play;
    inside the compiled dock loop and the Python loop alike."""
    sc = _hqp(load_scene("iiwa14_docking"), force_source=source)
    py = _run(monkeypatch, False, sc, 3.3, kernel)
    assert py.log.arrays()["contact_force"].max() > 1.0
    assert_same_run(py, _run(monkeypatch, True, sc, 3.3, kernel))


@needs_native
def test_limits_binding_and_infeasible_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tight torque-rate and velocity limit: the bounds bind, level 1 goes infeasible and
    its fallback runs; the counters and every row are the same."""
    sc = _hqp(observer_scene(load_scene("iiwa14_docking")), torque_rate_limit=20.0,
              velocity_limit=0.3)  # fmt: skip
    py = _run(monkeypatch, False, sc, 1.5)
    stats = py.controller_stats
    assert stats["level1_infeasible"] > 0, stats
    assert_same_run(py, _run(monkeypatch, True, sc, 1.5))


def test_forced_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """``MJSCOPE_HQP_LAW=python``: nothing of the C module is used."""
    monkeypatch.setenv(hqp_native.ENV, "python")
    sc = load_scene("iiwa14_docking")
    _, pm = sc.build_models()
    ctrl = build_hqp(sc, pm, pin.neutral(pm))
    assert ctrl._c_objs is None and ctrl._c_pack is None  # type: ignore[attr-defined]
    assert ctrl.levels._native is None  # type: ignore[attr-defined]
    assert ctrl.adaptation._pack is None  # type: ignore[attr-defined]


@needs_native
def test_compiled_parts_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """Built and not forced off: the law's bounds, adaptation, target, levels and the
    observer's update go through the C module."""
    from mjscope.control import daqp_direct

    monkeypatch.setenv(hqp_native.ENV, "")
    sc = observer_scene(load_scene("iiwa14_docking"))
    _, pm = sc.build_models()
    q = pin.neutral(pm)
    ctrl = build_hqp(sc, pm, q)
    assert ctrl._c_objs is not None and ctrl._c_pack is not None  # type: ignore[attr-defined]
    assert ctrl.levels._native is not None  # type: ignore[attr-defined]
    assert ctrl.adaptation._pack is not None  # type: ignore[attr-defined]
    if daqp_direct.AVAILABLE:
        assert ctrl.levels._c_levels is not None  # type: ignore[attr-defined]
    obs = ctrl.observer  # type: ignore[attr-defined]
    v, tau = np.zeros(pm.nv), np.zeros(pm.nv)
    obs.update(q, v, tau)
    r = obs.update(q.copy(), v.copy(), tau)
    assert obs._c_objs is not None and r is obs.r
