"""The compiled dock loop gives the Python loop's telemetry, stops and counters bit for bit."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np
import pytest

from mjscope.benchmarks.bench_dock import observer_scene
from mjscope.control.controllers import (
    CartesianImpedanceController,
    CicGains,
    Se3LieController,
)
from mjscope.dock import native_loop, native_symbols
from mjscope.dock.loop import RunResult
from mjscope.dock.run_docking import build_cic, build_se3_lie, run_simulation
from mjscope.dock.scene import Scene, load_scene
from tests.utils import assert_same_run, bits, bundled_scenes

needs_native = pytest.mark.skipif(
    not native_loop.available() and not os.environ.get("CI"),
    reason="the compiled dock loop was not built (no C compiler at install)",
)
SCENES = bundled_scenes()


def _run(monkeypatch: pytest.MonkeyPatch, native: bool, *args: Any, **kw: Any) -> RunResult:
    monkeypatch.setenv(native_loop.ENV, "" if native else "python")
    return run_simulation(*args, **kw)


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The outcomes of every compiled attempt (``None``: declined)."""
    seen: list[Any] = []
    real = native_loop.run

    def spy(*args: Any, **kw: Any) -> Any:
        out = real(*args, **kw)
        seen.append(out)
        return out

    monkeypatch.setattr(native_loop, "run", spy)
    return seen


def test_available_under_ci() -> None:
    """In CI the extension must have been built (the compiled loop is what users get)."""
    if os.environ.get("CI"):
        assert native_loop.available()


@needs_native
@pytest.mark.parametrize("controller", ["cic", "se3_lie", "hqp"])
@pytest.mark.parametrize("scene", SCENES)
def test_every_scene_bit_identical(
    monkeypatch: pytest.MonkeyPatch, scene: str, controller: str
) -> None:
    """Every bundled scene: every telemetry array, stop and counter the same bits."""
    sc = load_scene(scene)
    duration = min(sc.cfg.duration, 1.0)
    py = _run(monkeypatch, False, sc, controller, duration=duration)
    seen = _spy(monkeypatch)
    c = _run(monkeypatch, True, sc, controller, duration=duration)
    assert len(seen) == (1 if native_loop.covers_scene(sc) else 0)
    if seen:
        assert seen[0] is not None  # it ran compiled
    assert_same_run(py, c)


@needs_native
@pytest.mark.parametrize("controller", ["cic", "se3_lie", "hqp", "hqp_observer"])
def test_contact_and_free_space(monkeypatch: pytest.MonkeyPatch, controller: str) -> None:
    """The docking scene past contact onset (≈ 2.94 s): contact forces are in the rows.

    ``hqp_observer``: the bench's ``hqp`` (``force_source: observer``, the kernel calls its
    ``observe`` after each step with the objects ``compute`` gets next).
    """
    sc = load_scene("iiwa14_docking")
    if controller == "hqp_observer":
        sc, controller = observer_scene(sc), "hqp"
    py = _run(monkeypatch, False, sc, controller, duration=3.3)
    seen = _spy(monkeypatch)
    c = _run(monkeypatch, True, sc, controller, duration=3.3)
    assert seen and seen[0] is not None
    assert py.log.arrays()["contact_force"].max() > 1.0
    assert_same_run(py, c)


def test_forced_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """``MJSCOPE_DOCK_KERNEL=python``: the kernel is never entered."""
    calls: list[Any] = []
    if native_loop._kernel is not None:
        monkeypatch.setattr(native_loop, "_kernel", _Recorder(native_loop._kernel, calls))
    r = _run(monkeypatch, False, "iiwa14_docking", "cic", duration=0.05)
    assert r.status == "ok" and r.steps == 50
    assert calls == []


class _Recorder:
    def __init__(self, inner: Any, calls: list[Any]) -> None:
        self.inner, self.calls = inner, calls

    def run(self, *args: Any) -> Any:
        self.calls.append(args)
        return self.inner.run(*args)

    def slot_count(self) -> Any:
        return self.inner.slot_count()


@needs_native
def test_other_laws_decline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A law the kernel lacks (se3_lie with an apparent inertia) runs the Python loop."""
    seen = _spy(monkeypatch)
    law = _se3(apparent_inertia=np.full(6, 2.0))
    r = _run(monkeypatch, True, "iiwa14_docking", law, duration=0.05)
    assert r.steps == 50 and seen == []


def _se3(**kw: Any) -> Any:
    """A factory of ``se3_lie`` with ``Se3Gains`` fields or controller arguments changed."""

    def make(scene: Scene, pm: Any, q0: np.ndarray) -> Se3LieController:
        ctrl = build_se3_lie(scene, pm, q0)
        assert isinstance(ctrl, Se3LieController)
        gains = dataclasses.replace(
            ctrl.gains, **{k: v for k, v in kw.items() if k != "apparent_inertia"}
        )
        return Se3LieController(pm, "eef", gains, ctrl.q_null, kw.get("apparent_inertia"))

    return make


@needs_native
@pytest.mark.parametrize("case", ["log", "singular"])
def test_se3_lie_log_potential_and_guard(monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    """The log-map potential, and the singularity guard dropping the feed-forward, alike."""
    kw: dict[str, Any] = {"potential": "log"} if case == "log" else {"singular_threshold": 10.0}
    held: dict[bool, Any] = {}
    runs = {}
    for native in (False, True):
        make = _se3(**kw)

        def factory(
            scene: Scene, pm: Any, q0: np.ndarray, native: bool = native, make: Any = make
        ) -> Any:
            held[native] = make(scene, pm, q0)
            return held[native]

        seen = _spy(monkeypatch) if native else []
        runs[native] = _run(monkeypatch, native, "iiwa14_track_rocking", factory, duration=0.4)
        if native:
            assert seen and seen[0] is not None
    assert_same_run(runs[False], runs[True])
    assert held[True].feedforward_dropped is held[False].feedforward_dropped is (case == "singular")


def _nan_cic(scene: Scene, pm: Any, q0: np.ndarray) -> CartesianImpedanceController:
    ctrl = build_cic(scene, pm, q0)
    assert isinstance(ctrl, CartesianImpedanceController)
    gains = CicGains(np.full(6, np.nan), ctrl.gains.kd, ctrl.gains.ki)
    return CartesianImpedanceController(pm, "eef", gains, ctrl.q_null, ctrl.dt)


@needs_native
def test_non_finite_torque_stops_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """A NaN gain: both loops stop at the first period with the same message and rows."""
    py = _run(monkeypatch, False, "iiwa14_docking", _nan_cic, duration=0.05)
    seen = _spy(monkeypatch)
    c = _run(monkeypatch, True, "iiwa14_docking", _nan_cic, duration=0.05)
    assert seen and seen[0] is not None
    assert py.status == "stopped" and "non-finite torque" in py.message
    assert_same_run(py, c)


@needs_native
def test_progress_calls_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """The progress callback sees the same step counts from both loops."""
    ks: dict[bool, list[int]] = {True: [], False: []}
    for native in (False, True):
        _run(monkeypatch, native, "iiwa14_docking", "cic", duration=0.3, progress=ks[native].append)
    assert ks[True] == ks[False] == list(range(0, 300, 50))


@needs_native
def test_controller_state_after_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CIC integral the kernel updated is the Python loop's at the end of the run."""
    held: dict[bool, Any] = {}

    def factory(native: bool) -> Any:
        def make(scene: Scene, pm: Any, q0: np.ndarray) -> Any:
            held[native] = build_cic(scene, pm, q0)
            return held[native]

        return make

    for native in (False, True):
        _run(monkeypatch, native, "iiwa14_docking", factory(native), duration=0.5)
    assert np.any(held[True].integral != 0.0)
    assert bits(held[True].integral) == bits(held[False].integral)


@needs_native
def test_numpy_gemv_found_and_optional(monkeypatch: pytest.MonkeyPatch) -> None:
    """NumPy's own cblas_dgemv is found (a wheel's numpy.libs); without it, the same bits."""
    if os.environ.get("CI") or _wheel_numpy():
        assert native_symbols.numpy_gemv() != 0
    sc = load_scene("iiwa14_track_rocking")
    with_gemv = _run(monkeypatch, True, sc, "se3_lie", duration=0.3)
    monkeypatch.setattr(native_loop, "numpy_gemv", lambda name="": 0)
    seen = _spy(monkeypatch)
    without = _run(monkeypatch, True, sc, "se3_lie", duration=0.3)
    assert seen and seen[0] is not None
    assert_same_run(with_gemv, without)


def _wheel_numpy() -> bool:
    here = os.path.dirname(os.path.dirname(np.__file__))
    return os.path.isdir(os.path.join(here, "numpy.libs"))
