"""The compiled engaged cycle gives the Python path's cycles bit for bit (twin arms)."""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mjscope.benchmarks.bench_teleop import circle
from mjscope.rig import load_rig_cfg
from mjscope.teleop import native_chain, native_step
from mjscope.teleop.adapters.base import AdapterError, Feedback
from mjscope.teleop.adapters.mock import MockRealManAdapter
from mjscope.teleop.build import build_arm, make_adapter
from mjscope.teleop.emulator import RmEmulator, RmEmulatorCfg
from mjscope.teleop.node import TeleopArm
from mjscope.teleop.scripted import hold_pose
from mjscope.teleop.urdf import read_urdf
from mjscope.teleop.xr.base import ControllerState
from tests.test_teleop_native_chain import fast

needs_native = pytest.mark.skipif(
    not native_step.available() and not os.environ.get("CI"),
    reason="the compiled arm cycle was not built (no C compiler at install)",
)
RIG = load_rig_cfg()
ROOT = read_urdf()
DT = 1 / 90
Script = Callable[[int], tuple[ControllerState | None, float | None]]


class Faulty(MockRealManAdapter):
    """A mock whose send fails from ``send_fails`` on and whose feedback is lost at ``lost``."""

    send_fails = math.inf
    lost = math.inf
    bad_at = math.inf  # from here on the feedback holds a NaN (a controller's bad report)

    def send(self, q: Any, now: float) -> None:
        if now >= self.send_fails:
            raise AdapterError("mock: send failed")
        super().send(q, now)

    def feedback(self, now: float) -> Feedback | None:
        if now >= self.lost:
            raise AdapterError("mock: feedback lost")
        fb = super().feedback(now)
        if fb is not None and now >= self.bad_at:
            return Feedback(np.full(fb.q.shape, np.nan), fb.stamp)
        return fb


def _arm(monkeypatch: pytest.MonkeyPatch, side: str, native: bool, **faults: float) -> TeleopArm:
    monkeypatch.setenv(native_chain.ENV, "" if native else "python")
    cfg = RIG.sides[side]
    ad = Faulty(side, cfg.joint_names, cfg.initial_pose_rad())
    for k, v in faults.items():
        setattr(ad, k, v)
    arm = build_arm(ROOT, side, cfg, ad, None)
    assert (arm._stepper is not None) == native
    return arm


def _state(arm: TeleopArm) -> tuple:
    """Everything a cycle changes on the arm (stage times aside: only which ran)."""
    s, j, ik, xr = arm.stats, arm.joints, arm.ik, arm.xr
    return (
        arm.stopped, arm.needs_release, arm._prev_target, arm._sent_at is None,
        s.cycles, s.first_cycle, s.last_cycle, s.engaged_cycles, s.resets, dict(s.ik_rejects),
        dict(s.clamps), s.xr_timeouts, s.feedback_timeouts, s.max_speed.tobytes(),
        s.max_acc.tobytes(), j._ql, j._vl, j.q.tobytes(), j.at_rest, ik._q_model, ik.q_step,
        ik._e, ik.q.tobytes(), ik._T_target.tobytes(), xr.ever, xr.timed_out, xr.pose,
        xr._primary, arm.clutch.anchors if arm.clutch.anchored else None,
        arm.clutch.engagements, arm.timing.cycles, [math.isnan(v) for v in arm.timing.row],
        arm.adapter.sent,
    )  # fmt: skip


def _cycle(c: Any) -> tuple:
    tgt = None if c.target is None else (c.target.p.tobytes(), c.target.q.tobytes())
    nan = [math.isnan(v) for v in c.stages]
    return (c.t, c.state, repr(c.grip), repr(c.trigger), tgt, np.asarray(c.q).tobytes(), nan)


def _twins(monkeypatch: pytest.MonkeyPatch, side: str, script: Script, n: int, **faults: float):
    """The same session on a Python arm and a compiled one; every cycle and state compared."""
    py, c = (_arm(monkeypatch, side, native, **faults) for native in (False, True))
    calls: Counter[str] = Counter()
    stepper = c._stepper
    assert stepper is not None

    class Counting:
        def step(self, *a: Any) -> Any:
            r = stepper.step(*a)
            calls["compiled" if r is not None else "declined"] += 1
            return r

    c._stepper = Counting()  # type: ignore[assignment]
    for arm in (py, c):
        arm.start(0.0)
    for k in range(n):
        ctrl, rx = script(k)
        a, b = py.step(k * DT, ctrl, rx), c.step(k * DT, ctrl, rx)
        assert _cycle(a) == _cycle(b), f"cycle {k}: {a.state} / {b.state}"
        assert _state(py) == _state(c), f"state after cycle {k} ({a.state})"
    return calls, py


def _fast_script(side: str) -> Script:
    def script(k: int) -> tuple[ControllerState | None, float | None]:
        if k % 3 == 1:  # XR slower than the control rate: the state in force
            return None, None
        t = k * DT
        return fast(t).side(side), t - 0.002 * (k % 2)

    return script


@needs_native
@pytest.mark.parametrize("side", ["left", "right"])
def test_the_compiled_cycle_is_the_python_cycle_on_a_session_binding_every_limit(
    monkeypatch: pytest.MonkeyPatch, side: str
) -> None:
    calls, py = _twins(monkeypatch, side, _fast_script(side), 1500)
    assert calls["compiled"] > 5 and calls["declined"] > 1000  # mostly a limit binds: Python
    s = py.stats
    assert s.resets == (side == "left") and s.engaged_cycles > 1000  # X: the left reset
    assert {"cylinder", "joint_speed", "joint_acc"} <= set(s.clamps)


@needs_native
@pytest.mark.parametrize("side", ["left", "right"])
def test_the_compiled_cycle_is_the_python_cycle_on_the_bench_circle(
    monkeypatch: pytest.MonkeyPatch, side: str
) -> None:
    def script(k: int) -> tuple[ControllerState | None, float | None]:
        return (circle(0.5 * k * DT).side(side), k * DT) if k % 2 else (None, None)  # half speed

    calls, py = _twins(monkeypatch, side, script, 600)
    assert calls["compiled"] > 500  # the usual cycle: C runs it
    assert py.stats.engaged_cycles > 590


def _gentle(k: int) -> tuple[ControllerState | None, float | None]:
    t = k * DT
    d = 0.05 * np.array([math.cos(3 * t) - 1.0, math.sin(3 * t), 0.3 * math.sin(6 * t)])
    grip = 0.0 if 200 <= k < 220 else 1.0  # a release, then engaging again
    pose = [0.3 + d[0], 0.2 + d[1], 1.0 + d[2], math.cos(0.1 * t), 0.0, 0.0, math.sin(0.1 * t)]
    ctrl = hold_pose(pose, grip=grip, trigger=0.5 * (k % 2), primary=(k == 301))
    return (ctrl if k % 4 else None), (t if k % 4 else None)


@needs_native
@pytest.mark.parametrize(
    "faults",
    [{}, {"send_fails": 2.0}, {"lost": 2.5}, {"bad_at": 1.5}],
    ids=["plain", "send_fails", "feedback_lost", "nan_feedback"],
)
def test_faults_in_the_compiled_cycle_are_the_python_paths(
    monkeypatch: pytest.MonkeyPatch, faults: dict[str, float]
) -> None:
    calls, py = _twins(monkeypatch, "left", _gentle, 400, **faults)
    assert calls["compiled"] > 100
    if faults:
        assert py.stopped  # the same safe stop, the same cause (compared in _state)
    else:
        assert py.stats.resets == 1 and py.clutch.engagements >= 3


@needs_native
def test_the_command_queue_filled_and_folded_by_the_compiled_cycle_gives_the_same_peaks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """More commands than the stats queue holds, the peaks read only at the end: the compiled
    cycle fills the queue (its arrays taken once, after the first command) and folds it."""
    from mjscope.teleop.stats import _BATCH

    def script(k: int) -> tuple[ControllerState | None, float | None]:
        return (circle(0.5 * k * DT).side("left"), k * DT) if k % 2 else (None, None)

    arms = [_arm(monkeypatch, "left", native) for native in (False, True)]
    for arm in arms:
        arm.start(0.0)
        for k in range(_BATCH + 300):
            arm.step(k * DT, *script(k))
    py, c = (a.stats for a in arms)
    assert arms[1].adapter.sent > _BATCH and py.engaged_cycles == c.engaged_cycles
    assert 0 < c._queued < _BATCH  # folded once in the run, refilled since
    assert (py.max_speed.tobytes(), py.max_acc.tobytes()) == (
        c.max_speed.tobytes(), c.max_acc.tobytes()
    )  # fmt: skip
    assert _state(arms[0]) == _state(arms[1])


@needs_native
def test_a_qp_failure_inside_the_compiled_cycle_holds_the_last_good_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A real infeasible QP (a hard joint task beyond the speed limits) in both twins."""
    arms = [_arm(monkeypatch, "left", native) for native in (False, True)]
    out = []
    for arm in arms:
        arm.start(0.0)
        for k in range(60):
            arm.step(k * DT, _gentle(k)[0] or _gentle(k + 1)[0])
        task = arm.ik.solver.add_joints_task()
        task.set_joints({n: 3.0 for n in arm.ik.joints})
        task.configure("infeasible", "hard")
        cycles = [arm.step((60 + k) * DT, _gentle(60 + k)[0]) for k in range(5)]
        out.append(([_cycle(c) for c in cycles if c is not None], _state(arm)))
        assert arm.stats.ik_rejects["qp_failure"] >= 3
    assert out[0] == out[1]


@needs_native
def test_bad_input_makes_the_compiled_cycle_decline_not_raise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    arm = _arm(monkeypatch, "left", True)
    arm.start(0.0)
    stepper = arm._stepper
    assert stepper is not None
    for k in range(5):
        arm.step(k * DT, _gentle(1)[0])
    good = _gentle(1)[0]
    assert stepper.step(5 * DT, good, None) is not None  # the plain engaged cycle
    bad = [
        (5, good, None),  # an int time
        (6 * DT, good, 1),  # an int receipt time
        (6 * DT, hold_pose([math.nan] * 7), None),
        (6 * DT, ControllerState(pose=[0.3, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0], grip=1.0), None),
        (6 * DT, good, math.nan),  # no receipt time to speak of: still the plain cycle ...
    ]
    for args in bad[:-1]:
        before = _state(arm)
        assert stepper.step(*args) is None
        assert _state(arm) == before
    for args in bad:  # the Python path runs these cycles without a traceback
        assert arm.step(*args).state == "engaged"  # type: ignore[arg-type]
    for args in [(6 * DT, hold_pose([0.3, 0.2, 1.0, 1.0, 0.0, 0.0]), None), (6 * DT, "x", None)]:
        before = _state(arm)  # ... not a controller, 6 numbers: declined, Python raises as ever
        assert stepper.step(*args) is None
        assert _state(arm) == before


def test_the_python_path_is_forced_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native_chain.ENV, "python")
    assert not native_step.available()
    cfg = RIG.sides["left"]
    arm = build_arm(ROOT, "left", cfg, make_adapter("mock", "left", cfg), None)
    assert arm._stepper is None


def test_ci_builds_the_compiled_cycle(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI installs with a compiler: there the compiled cycle must be what runs."""
    monkeypatch.delenv(native_chain.ENV, raising=False)
    if os.environ.get("CI"):
        assert native_step.available(), "CI: the compiled arm cycle (_armstep.c) was not built"
    if native_step.available():
        assert native_step._armstep.chain_version() == 2  # the C API with to_list
        cfg = RIG.sides["left"]
        arm = build_arm(ROOT, "left", cfg, make_adapter("mock", "left", cfg), None)
        assert arm._stepper is not None


@needs_native
def test_the_compiled_cycle_drives_the_emulated_real_arm(monkeypatch: pytest.MonkeyPatch) -> None:
    """RealManAdapter on the emulator (loopback): the engaged cycles go through C, ack stages."""
    monkeypatch.delenv(native_chain.ENV, raising=False)
    side = RIG.sides["left"]
    cfg = RmEmulatorCfg(port=0, initial_joints_deg=tuple(side.initial_joint_pose_deg))
    with RmEmulator(cfg) as emu:
        arm = build_arm(ROOT, "left", side, make_adapter("real", "left", side, emu.address), None)
        stepper = arm._stepper
        assert stepper is not None
        compiled = 0

        class Counting:
            def step(self, *a: Any) -> Any:
                nonlocal compiled
                r = stepper.step(*a)
                compiled += r is not None
                return r

        arm._stepper = Counting()  # type: ignore[assignment]
        try:
            arm.start(time.monotonic())
            t0 = time.monotonic()
            acks = []
            while (now := time.monotonic()) - t0 < 0.8:
                dx = 0.05 * min((now - t0) / 0.4, 1.0)
                c = arm.step(now, hold_pose([0.3 + dx, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0]), now)
                acks.append(c.stages[-1] if c.stages else math.nan)
                time.sleep(max(0.0, DT - (time.monotonic() - now)))
            assert compiled > 30 and not arm.stopped
            assert np.abs(emu.joints_deg() - np.asarray(side.initial_joint_pose_deg)).max() > 0.5
            assert sum(math.isfinite(a) for a in acks) > 10  # the ack stage, timed through C
        finally:
            arm.close()
