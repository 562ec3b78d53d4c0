"""The compiled arm chain gives the Python chain's cycles bit for bit (recorded sessions)."""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjscope.benchmarks.bench_teleop import circle
from mjscope.rig import load_rig_cfg
from mjscope.teleop import native_chain
from mjscope.teleop.build import build_arm, make_adapter
from mjscope.teleop.clutch import Clutch, canonical_floats
from mjscope.teleop.joint_limits import JointLimiter
from mjscope.teleop.limits import CartesianLimiter, Workspace
from mjscope.teleop.loop import Teleop
from mjscope.teleop.poses import Pose, floats_to_flat
from mjscope.teleop.scripted import ScriptedXrSource, hold_pose
from mjscope.teleop.urdf import read_urdf
from mjscope.teleop.xr import make_xr_source
from mjscope.teleop.xr.base import XrFrame

needs_native = pytest.mark.skipif(
    not native_chain.available() and not os.environ.get("CI"),
    reason="the compiled arm chain was not built (no C compiler at install)",
)
DT = 1 / 90


def fast(t: float) -> XrFrame:
    """A fast session binding every limit, with a reset (t = 4 s) and grip releases."""
    w = 2 * np.pi * 1.5
    d = 0.4 * np.array([np.cos(w * t) - 1.0, np.sin(w * t), 0.8 * np.sin(2 * w * t)])
    h = 1.2 * np.sin(w * t)
    q = [np.cos(h), np.sin(h) * 0.6, 0.0, np.sin(h) * 0.8]
    g = 1.0 if (t % 3.0) < 2.5 else 0.0
    left = hold_pose([0.3 + d[0], 0.2 + d[1], 1.0 + d[2], *q], grip=g, primary=(4.0 < t < 4.05))
    right = hold_pose([-0.3 - d[0], 0.2 + d[1], 1.0 - d[2], *q], grip=g)
    return XrFrame(stamp_ns=0, left=left, right=right)


def _session(name: str) -> Any:
    if name == "demo":
        return make_xr_source("demo", start=0.0, loop=True)
    return ScriptedXrSource(circle if name == "circle" else fast)


def _trace(monkeypatch: pytest.MonkeyPatch, name: str, n: int, native: bool) -> tuple:
    """Every cycle of a scripted session (state, command, target bytes) and the arms' stats."""
    monkeypatch.setenv(native_chain.ENV, "" if native else "python")
    rig = load_rig_cfg()
    root = read_urdf()
    arms = {
        s: build_arm(root, s, c, make_adapter("mock", s, c), None) for s, c in rig.sides.items()
    }
    for a in arms.values():  # the chain's calls from Python (the compiled cycle calls them in
        a._stepper = None  # C: tests/test_teleop_native_step.py)
    t = Teleop(arms, _session(name))
    t.start(0.0)
    out = []
    for k in range(n):
        for side, c in t.cycle(k * DT).items():
            tgt = None if c.target is None else (c.target.p.tobytes(), c.target.q.tobytes())
            out.append((side, c.state, np.asarray(c.q).tobytes(), tgt))
    stats = {
        s: (dict(a.stats.clamps), dict(a.stats.ik_rejects), a.stats.engaged_cycles,
            a.stats.max_speed.tobytes(), a.stats.max_acc.tobytes())
        for s, a in t.arms.items()
    }  # fmt: skip
    return out, stats


def _counting(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count the compiled calls (and which of the target calls Python had to finish)."""
    monkeypatch.delenv(native_chain.ENV, raising=False)
    mod = native_chain.module()
    assert mod is not None
    calls: Counter[str] = Counter()

    def wrap(name: str) -> Callable[..., Any]:
        f = getattr(mod, name)

        def counted(*a: Any) -> Any:
            r = f(*a)
            calls[name if r is not None else name + "_left_to_python"] += 1
            return r

        return counted

    for name in ("target", "joint_step"):
        monkeypatch.setattr(mod, name, wrap(name))
    return calls


@needs_native
@pytest.mark.parametrize(("name", "n"), [("circle", 900), ("fast", 3000), ("demo", 1500)])
def test_compiled_and_python_chain_give_the_same_cycles(
    monkeypatch: pytest.MonkeyPatch, name: str, n: int
) -> None:
    py = _trace(monkeypatch, name, n, native=False)
    calls = _counting(monkeypatch)
    c = _trace(monkeypatch, name, n, native=True)
    assert calls["joint_step"] > n  # both arms, nearly every cycle, went through C
    assert calls["target"] + calls["target_left_to_python"] > n // 2
    if name == "fast":  # every limit binds: workspace, cylinders, speeds, joints; a reject
        assert calls["target_left_to_python"] > 2000  # a binding limit: Python's limit()
        assert {"cylinder", "low_cylinder", "joint_position"} <= set(c[1]["left"][0])
        assert c[1]["right"][1] == {"not_converged": 1}
        assert {x[1] for x in c[0]} >= {"engaged", "reset", "idle", "needs_release"}
    else:  # the usual cycle: no Cartesian limit binds, C answers
        assert calls["target"] > n // 2
    assert c[1] == py[1]
    bad = [i for i, (a, b) in enumerate(zip(c[0], py[0], strict=True)) if a != b]
    assert not bad, f"{len(bad)} cycles differ, first {bad[:3]}"


_J = st.floats(-3.0, 3.0)


@needs_native
@settings(max_examples=300, deadline=None)
@given(
    q=st.lists(st.floats(-1.2, 1.2), min_size=3, max_size=3),
    v=st.lists(st.floats(-2.0, 2.0), min_size=3, max_size=3),
    qd=st.lists(_J, min_size=3, max_size=3),
)
def test_joint_step_equals_the_python_limiter(
    q: list[float], v: list[float], qd: list[float]
) -> None:
    """Any state (near the limits, beyond a speed) → the same floats and binding limits."""
    lo, hi = [-1.0, -2.0, -0.5], [1.0, 2.0, 0.5]
    args = (lo, hi, [1.5, 1.0, 3.0], [8.0, 4.0, 20.0], DT, [0.0, 0.0, 0.0])
    out = []
    for native in (None, native_chain.module()):
        lim = JointLimiter(*args)
        lim._native = native
        lim._ql, lim._vl = list(q), list(v)
        s = lim.step(list(qd))
        out.append((s.q.tobytes(), s.v, s.clamps, lim.at_rest))
    assert native_chain.module() is not None
    assert out[0] == out[1]


@needs_native
@settings(max_examples=300, deadline=None)
@given(
    xyz=st.lists(st.floats(-0.8, 0.8), min_size=3, max_size=3),
    rot=st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3),
    turn=st.floats(0.0, 0.04),
    step=st.floats(0.0, 0.03),
)
def test_target_equals_the_python_clutch_and_limits(
    xyz: list[float], rot: list[float], turn: float, step: float
) -> None:
    """The compiled target is the Python one when it answers; None only where a limit may bind."""
    rot = [1.0 - turn, *(turn * r for r in rot)]  # near the anchor: often no limit binds
    side = load_rig_cfg().sides["left"]
    ws = Workspace.from_side(side)
    lim = CartesianLimiter(ws, side.max_linear_speed, side.max_orientation_speed, DT)
    clutch = Clutch(side.scale_factor, side.grip_threshold)
    anchor_ee = [0.35, 0.25, 1.0]
    pose0 = [0.3, 0.2, 1.0, 1.0, 0.0, 0.0, 0.0]
    ee = Pose(np.array(anchor_ee), np.array([0.0, 1.0, 0.0, 0.0]))
    clutch.follow(pose0[:3], pose0[3:], lambda: ee)
    pose = [0.3 + xyz[0] * step, 0.2 + xyz[1] * step, 1.0 + xyz[2] * step, *rot]
    p, q = clutch.follow(pose[:3], canonical_floats(pose[3:]), lambda: ee)
    p0 = [v + 0.01 * x for v, x in zip(anchor_ee, xyz, strict=True)]
    q0 = [0.0, 1.0, 0.0, 0.0]
    pl, ql, clamps = lim.limit_floats(p, q, p0, q0)
    plan = native_chain.target_plan(
        clutch.scale, ws._lo, ws._hi, ws.low_radius, ws.low_height, ws.radius,
        (ws._ax, ws._ay), lim.max_step, lim.max_turn,
    )  # fmt: skip
    mod = native_chain.module()
    assert mod is not None
    T = np.full(16, np.nan)
    got = mod.target(plan.address, pose, clutch.anchors, p0, q0, int(T.ctypes.data))
    if got is None:
        assert clamps or pl != p or ql != q or _near_cylinder(ws, p)
        assert np.isnan(T).all()  # nothing written: Python limits and writes the target
    else:
        assert not clamps
        assert got[:2] == (pl, ql)
        assert np.frombuffer(got[2]).tolist() == pl + ql
        assert T.tolist() == floats_to_flat(pl, ql)


def _near_cylinder(ws: Workspace, p: list[float]) -> bool:
    r = ws.keepout_radius(p[2])
    return abs(math.hypot(p[0] - ws._ax, p[1] - ws._ay) - r) < 1e-12


def test_the_python_path_is_forced_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native_chain.ENV, "python")
    assert native_chain.module() is None
    lim = JointLimiter([-1.0], [1.0], [1.0], [5.0], DT, [0.0])
    assert lim._native is None
    assert lim.step([0.5]).q.tolist() == [5.0 * DT * DT]  # a·dt after one cycle from rest


def test_ci_builds_the_compiled_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI installs with a compiler: there the compiled chain must be what runs."""
    monkeypatch.delenv(native_chain.ENV, raising=False)
    if os.environ.get("CI"):
        assert native_chain.available(), "CI: the compiled arm chain (_chain.c) was not built"
    mod = native_chain.module()
    if mod is not None:  # its layout is native_chain's
        assert mod.target_slots() == len(native_chain.TARGET_SLOTS)
        assert mod.joint_layout()[:2] == (5, 10)
        lim = JointLimiter([-1.0], [1.0], [1.0], [5.0], DT, [0.0])
        assert lim._native is mod


@needs_native
def test_the_compiled_command_is_immutable_and_shared_by_the_mock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The command is a read-only view of bytes: nobody can change it, so the mock keeps it."""
    monkeypatch.delenv(native_chain.ENV, raising=False)
    side = load_rig_cfg().sides["left"]
    arm = build_arm(read_urdf(), "left", side, make_adapter("mock", "left", side), None)
    arm.start(0.0)
    step = arm.joints.step([v + 0.01 for v in arm.joints.floats])
    assert type(step.q.base) is bytes and not step.q.flags.writeable
    with pytest.raises(ValueError):
        step.q.flags.writeable = True
    arm.adapter.send(step.q, 0.0)
    fb = arm.adapter.feedback(0.0)
    assert fb is not None and fb.q is step.q  # no copy
    mine = np.array(step.q)  # a writable array is copied, read-only
    arm.adapter.send(mine, 0.0)
    fb = arm.adapter.feedback(0.0)
    assert fb is not None and fb.q is not mine and not fb.q.flags.writeable
