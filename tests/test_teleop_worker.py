"""One worker per arm: nothing one arm does holds up the other; ends brake; slow rates warn."""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict

import numpy as np
import numpy.typing as npt

from mjscope.rig import load_rig_cfg
from mjscope.teleop.adapters.mock import MockRealManAdapter
from mjscope.teleop.build import build_arm
from mjscope.teleop.cycle import Cycle
from mjscope.teleop.loop import Teleop
from mjscope.teleop.scripted import ScriptedXrSource, hold_pose
from mjscope.teleop.urdf import read_urdf
from mjscope.teleop.xr.base import XrFrame

RIG = load_rig_cfg()
ROOT = read_urdf()
LEFT = np.array([0.3, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0])
RIGHT = np.array([-0.3, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0])


class SlowReset(MockRealManAdapter):
    """A mock whose reset blocks like a real ``movej`` (a test double of a slow controller)."""

    block_s = 0.8

    def reset(self, now: float) -> None:
        time.sleep(self.block_s)
        super().reset(now)


class SlowSend(MockRealManAdapter):
    """A mock whose every send takes 20 ms (a controller that keeps the loop at ≈ 45 Hz)."""

    def send(self, q: npt.ArrayLike, now: float) -> None:
        time.sleep(0.02)
        super().send(q, now)


class Recorder:
    """The ``--log`` sink of a test: every cycle by side, and an event per condition."""

    def __init__(self) -> None:
        self.cycles: dict[str, list[Cycle]] = defaultdict(list)
        self.lock = threading.Lock()
        self.moving = threading.Event()

    def __call__(self, side: str, c: Cycle) -> None:
        with self.lock:
            prev = self.cycles[side][-1] if self.cycles[side] else None
            self.cycles[side].append(c)
        if c.state == "engaged" and prev is not None and np.abs(c.q - prev.q).max() > 1e-3:
            self.moving.set()


def arms(left_adapter: type[MockRealManAdapter] = MockRealManAdapter) -> dict:
    out = {}
    for name, s in RIG.sides.items():
        cls = left_adapter if name == "left" else MockRealManAdapter
        out[name] = build_arm(ROOT, name, s, cls(name, s.joint_names, s.initial_pose_rad()), None)
    return out


def circling(reset_left_at: float | None = None):
    """Both grips held, controllers on 5 cm circles; the left X pressed from ``reset_left_at``."""

    def script(t: float) -> XrFrame:
        d = 0.05 * np.array([np.cos(3 * t) - 1, np.sin(3 * t), 0, 0, 0, 0, 0])
        press = reset_left_at is not None and t >= reset_left_at
        return XrFrame(0, left=hold_pose(LEFT + d, primary=press), right=hold_pose(RIGHT - d))

    return script


def test_a_blocking_reset_of_one_arm_does_not_hold_up_the_other() -> None:
    rec = Recorder()
    tele = Teleop(arms(SlowReset), ScriptedXrSource(circling(reset_left_at=0.3)), rec)
    tele.start(time.monotonic())
    tele.run(1.6)
    tele.close()
    left, right = rec.cycles["left"], rec.cycles["right"]
    assert [c.state for c in left].count("reset") == 1
    gaps_left = np.diff([c.t for c in left])
    assert gaps_left.max() >= SlowReset.block_s * 0.9  # the left arm was blocked ...
    t_reset = next(c.t for c in left if c.state == "reset")  # the cycle's start: then it blocks
    during = [c for c in right if t_reset <= c.t <= t_reset + SlowReset.block_s]
    assert np.diff([c.t for c in right]).max() < 0.1  # ... the right one kept its 11 ms cycle
    assert len(during) >= 0.8 * SlowReset.block_s * 90  # ≥ 80 % of its cycles meanwhile
    assert any(c.state == "engaged" for c in during)


def test_a_stop_brakes_every_arm_to_rest_within_its_acceleration_limit() -> None:
    rec = Recorder()
    tele = Teleop(arms(), ScriptedXrSource(circling()), rec)
    stop = threading.Event()
    tele.start(time.monotonic())
    threading.Thread(target=lambda: (rec.moving.wait(10.0), stop.set()), daemon=True).start()
    tele.run(20.0, stop)
    tele.close()
    assert rec.moving.is_set() and tele.interrupted
    for side, cs in rec.cycles.items():
        s, dt = RIG.sides[side], 1 / RIG.sides[side].control_rate_hz
        tail = [c for c in cs if c.state == "braking"]
        assert tail and cs[-1].state == "braking", side
        q = np.array([c.q for c in cs[-len(tail) - 2 :]])
        v = np.diff(q, axis=0) / dt
        acc = np.abs(np.diff(v, axis=0)) / dt
        assert np.abs(v[0]).max() > 0.01  # it was moving when the stop came
        assert acc.max() <= max(s.joint_max_acc) * (1 + 1e-6)  # a ramp, not a jump
        assert np.abs(v[-1]).max() == 0.0  # the last command is at rest
        assert tele.arms[side].at_rest and not tele.arms[side].stopped


def test_a_rate_below_90_percent_for_a_second_is_a_warning(caplog) -> None:
    rec = Recorder()
    tele = Teleop(arms(SlowSend), ScriptedXrSource(circling()), rec)
    tele.start(time.monotonic())
    with caplog.at_level(logging.WARNING, logger="mjscope.teleop.worker"):
        tele.run(1.6)
    tele.close()
    left = tele.workers["left"].stats
    assert left.slow_warnings == 1  # once per episode, not once per window
    msgs = [r.getMessage() for r in caplog.records if "left arm" in r.getMessage()]
    assert msgs and "against the configured 90 Hz" in msgs[0] and "below 90 %" in msgs[0]
    slow, fast = (tele.arms[s].stats.rate_hz() for s in ("left", "right"))
    assert slow < 60 and fast > 1.4 * slow  # ≈ 45 Hz vs ≈ 90: the slow arm did not slow the other


class Broken(MockRealManAdapter):
    """A mock arm whose driver raises after 20 commands."""

    def send(self, q: npt.ArrayLike, now: float) -> None:
        if self.sent > 20:
            raise RuntimeError("driver bug")
        super().send(q, now)


def test_an_exception_in_one_arm_stops_it_and_by_default_the_other_too() -> None:
    tele = Teleop(arms(Broken), ScriptedXrSource(circling()))
    tele.start(time.monotonic())
    t0 = time.monotonic()
    tele.run(10.0)
    took = time.monotonic() - t0
    tele.close()
    assert tele.fault is not None and tele.fault[0] == "left"
    assert "internal error: RuntimeError: driver bug" in tele.arms["left"].stopped
    assert tele.arms["right"].stopped.startswith("the left arm safe-stopped")
    assert took < 3.0  # not the 10 s duration: the run ended at the fault


def test_isolate_faults_keeps_the_healthy_arm_cycling() -> None:
    tele = Teleop(arms(Broken), ScriptedXrSource(circling()))
    tele.start(time.monotonic())
    tele.run(1.5, isolate_faults=True)
    tele.close()
    assert tele.arms["left"].stopped and not tele.arms["right"].stopped
    assert tele.arms["right"].stats.cycles > 0.8 * 1.5 * 90


def test_a_stop_in_real_mode_ramps_the_arm_down_through_its_controller() -> None:
    from mjscope.teleop.build import make_adapter
    from mjscope.teleop.emulator import RmEmulator, RmEmulatorCfg

    s = RIG.sides["left"]
    emu_cfg = RmEmulatorCfg(port=0, initial_joints_deg=tuple(s.initial_joint_pose_deg))
    rec = Recorder()
    with RmEmulator(emu_cfg) as emu:
        arm = build_arm(ROOT, "left", s, make_adapter("real", "left", s, emu.address), None)
        tele = Teleop({"left": arm}, ScriptedXrSource(circling()), rec)
        stop = threading.Event()
        tele.start(time.monotonic())
        threading.Thread(target=lambda: (rec.moving.wait(10.0), stop.set()), daemon=True).start()
        tele.run(20.0, stop)
        tele.close()
        sent = np.radians(np.array([j for _, j in emu.canfd_log()], dtype=float) / 1000.0)
    assert rec.moving.is_set() and tele.interrupted and not arm.stopped
    braking = sum(c.state == "braking" for c in rec.cycles["left"])
    tail = sent[-(braking + 3) :]  # the last commands the controller received
    dq = np.diff(tail, axis=0)
    quantum = np.radians(0.001)  # the wire's 0.001° integers
    dt = 1 / s.control_rate_hz
    assert braking >= 2 and np.abs(dq[0]).max() > 10 * quantum  # moving when the stop came
    assert np.abs(np.diff(dq, axis=0)).max() <= max(s.joint_max_acc) * dt * dt + 2 * quantum
    assert np.abs(dq[-1]).max() <= quantum  # the last command holds still


def _fifo_permitted() -> bool:
    """Whether this machine lets a thread take ``SCHED_FIFO`` (tried in a throwaway thread)."""
    import os

    got: list[bool] = []

    def probe() -> None:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
            got.append(True)
        except (AttributeError, OSError):
            got.append(False)

    t = threading.Thread(target=probe)
    t.start()
    t.join()
    return got[0]


def test_rt_priority_runs_each_worker_under_sched_fifo_where_permitted(caplog) -> None:
    import os

    permitted = _fifo_permitted()
    policies: dict[str, int] = {}

    def sink(side: str, c: Cycle) -> None:  # runs on the worker's own thread
        if hasattr(os, "sched_getscheduler"):
            policies.setdefault(side, os.sched_getscheduler(0))

    tele = Teleop(arms(), ScriptedXrSource(circling()), sink)
    tele.start(time.monotonic())
    with caplog.at_level(logging.WARNING, logger="mjscope.teleop.worker"):
        tele.run(0.3, rt_priority=5)
    tele.close()
    assert all(w.stats.realtime is permitted for w in tele.workers.values())
    assert tele.loop.realtime is permitted
    assert all(w.stats.ticks > 0.8 * 0.3 * 90 for w in tele.workers.values())
    if permitted:
        assert set(policies.values()) == {os.SCHED_FIFO} and len(policies) == 2
        assert "no real-time priority" not in caplog.text
    else:  # one warning per arm that says how to get it, and the run goes on
        assert caplog.text.count("no real-time priority") == 3  # both arms and the XR ingest
        assert "CAP_SYS_NICE" in caplog.text
