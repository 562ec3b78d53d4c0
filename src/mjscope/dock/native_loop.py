"""The docking loop in C (:mod:`mjscope.dock._kernel`), driven from here.

:func:`run` does what :func:`mjscope.dock.loop.run_loop` does, a chunk of references at a time:
the references come from the same planner batches, the kernel runs the periods (controller →
friction feed-forward → limits → ``mj_step`` → probe), and the chunk's telemetry is stored as
the Python loop stores it (the dock geometry from the stacked poses). Every telemetry array,
stop message, controller state and counter is the Python loop's, bit for bit (tested:
``tests/test_dock_native_loop.py``).

It declines (returns ``None``: the Python loop runs) when the extension was not built (``pip
install`` compiles it; without a C compiler the install still succeeds), when MuJoCo or SciPy
lack a symbol it needs, when ``MJSCOPE_DOCK_KERNEL=python``, and for configurations it does
not cover: a controller other than CIC, ``se3_lie`` and ``hqp`` (whose law the kernel calls
in Python), an ``se3_lie`` with an apparent inertia, a guarded
approach / force loop (``controller.force_loop``), a gain schedule, video recording, an F/T
sensor on another body than the end effector, or a model whose ``nq``, ``nv``, ``nu`` differ
or exceed 16. MuJoCo's fatal errors inside ``mj_step`` come back as ``mujoco.FatalError``.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mujoco
import numpy as np

from mjscope.control.controllers import Controller, HqpController
from mjscope.control.friction import FrictionModel
from mjscope.control.planners import ReferenceAdapter
from mjscope.control.tool_load import ToolLoadCompensator
from mjscope.dock import native_laws
from mjscope.dock.env import MujocoEnv
from mjscope.dock.native_plan import MAX_NV, N_PARAMS, OBJECTS, SLOTS, Plan, address
from mjscope.dock.native_pylaw import PyLaw
from mjscope.dock.native_symbols import (
    NUMPY_GEMM,
    lapack_capsules,
    mujoco_symbols,
    numpy_gemv,
)
from mjscope.dock.scene import Scene, dock_geometry, dock_rotation
from mjscope.dock.stages import TorqueLimiter
from mjscope.dock.telemetry import Log

try:  # built by pip install (setup.py); optional
    from mjscope.dock import _kernel
except ImportError:  # pragma: no cover - an install without a C compiler
    _kernel = None  # type: ignore[assignment]

ENV = "MJSCOPE_DOCK_KERNEL"  # "python": never the compiled loop
DONE, NONFINITE, BADACC, FATAL = 0, 1, 2, 3


def available() -> bool:
    """Whether the compiled loop can run here (built, symbols found, layout matching)."""
    if _kernel is None or mujoco_symbols() is None or lapack_capsules() is None:
        return False
    return _kernel.slot_count() == (len(SLOTS), N_PARAMS, len(OBJECTS))


@dataclass
class Outcome:
    """What a compiled run did (the loop sets the result from it).

    Attributes:
        steps: Control periods completed.
        wall_time: Wall-clock time of the periods [s].
        stop: Why MuJoCo stopped it (``""``: it did not).
        stats: The limiter's counters.
        tau: The non-finite torque that stopped it (``None``: none did) [N·m]; (nv,).
    """

    steps: int
    wall_time: float
    stop: str = ""
    stats: dict[str, int] = field(default_factory=dict)
    tau: np.ndarray | None = None


def covers(env: MujocoEnv, ctrl: Controller, shaper: Any, schedule: Any) -> bool:
    """Whether the kernel covers this configuration (see the module docstring)."""
    m = env.model
    return (
        shaper is None and schedule is None and env._recorder is None and env._A is not None
        and m.nq == m.nv == m.nu and m.nv <= MAX_NV and native_laws.supported(ctrl)
    )  # fmt: skip


def covers_scene(scene: Scene) -> bool:
    """Whether a CIC or ``se3_lie`` run of ``scene`` is compiled (no force loop, no schedule)."""
    c = scene.cfg.controller
    return not (c.force_loop.enabled and scene.cfg.dock is not None) and not c.schedule.times


def run(
    env: MujocoEnv,
    ctrl: Controller,
    reference: ReferenceAdapter,
    friction: FrictionModel | None,
    limiter: TorqueLimiter,
    n_steps: int,
    scene: Scene,
    log: Log,
    compensator: ToolLoadCompensator | None = None,
    chunk: int = 256,
    progress: Callable[[int], None] | None = None,
    every: int = 50,
) -> Outcome | None:
    """Run the loop compiled, or return ``None`` (declined: see the module docstring).

    The arguments are :func:`~mjscope.dock.loop.run_loop`'s (``limiter`` built from its
    limits and rate, ``chunk`` and ``every`` its :data:`~mjscope.dock.loop.CHUNK` and
    :data:`~mjscope.dock.loop.PROGRESS_EVERY`); the rows go to ``log``.

    Raises:
        mujoco.FatalError: MuJoCo raised an error inside ``mj_step`` (rows so far kept).
    """
    if os.environ.get(ENV, "").strip().lower() == "python" or not available():
        return None
    symbols = mujoco_symbols()
    if symbols is None or not covers(env, ctrl, None, None):
        return None
    cfg = scene.cfg
    symbols = {**symbols, "gemv": numpy_gemv(), "gemm": numpy_gemv(NUMPY_GEMM)}
    plan = Plan(env, symbols, compensator, friction, limiter, cfg.control_period,
                np.asarray(cfg.ft.bias, float))  # fmt: skip
    py_law = PyLaw(plan, ctrl, env, cfg.dock is not None)
    if not native_laws.bind(plan, ctrl, py_law):
        return None
    try:
        return _drive(
            plan,
            reference,
            n_steps,
            scene,
            log,
            chunk,
            progress,
            every,
            limiter,
            env,
            py_law if isinstance(ctrl, HqpController) else None,
        )
    finally:
        native_laws.finish(plan, ctrl)


def _drive(plan: Plan, reference: ReferenceAdapter, n_steps: int, scene: Scene, log: Log,
           chunk: int, progress: Callable[[int], None] | None, every: int,
           limiter: TorqueLimiter, env: MujocoEnv, py_law: PyLaw | None) -> Outcome:  # fmt: skip
    """The chunks: references in, periods run, rows stored; the outcome."""
    assert _kernel is not None
    dt, objects = scene.cfg.control_period, plan.object_tuple()
    slots, params = address(plan.slots), address(plan.params)
    _kernel.run(slots, params, objects, True)  # the probe at the initial state
    if py_law is not None:
        py_law.start()
    store = _Store(log, scene)
    code, kdone, start = DONE, 0, time.perf_counter()
    for k0 in range(0, n_steps, chunk):
        k1 = min(k0 + chunk, n_steps)
        refs = _Refs(reference.batch(np.arange(k0, k1) * dt))
        plan.refs = refs.items
        cols = _Columns(k1 - k0, plan.nv)
        plan.set(ref_row=k0, **refs.slots(), **cols.slots())
        try:
            for a, b in _spans(k0, k1, every if progress is not None else 0):
                if progress is not None and a % every == 0:
                    progress(a)
                plan.set(k0=a, k1=b)
                code = _kernel.run(slots, params, objects, False)
                kdone = int(plan.slots[SLOTS.index("kdone")])
                if code != DONE:
                    break
        finally:
            kept = kdone - k0 + (1 if code in (BADACC, FATAL) else 0)
            if code == DONE and kdone < k1:  # an exception out of a callee
                kept = max(kdone - k0, 0)
            store(cols, refs, kept)
        if code != DONE:
            break
    wall = time.perf_counter() - start
    stats = {"torque_saturated": int(plan.stats[0]), "rate_limited": int(plan.stats[1])}
    limiter.stats.update(stats)
    if code == FATAL:
        raise mujoco.FatalError(plan.message())
    out = Outcome(kdone, wall, "", stats)
    if code == NONFINITE:
        out.tau = plan.tau.copy()
    elif code == BADACC:
        out.stop = f"MuJoCo reported a bad acceleration at t = {env.time:.3f} s"
    return out


def _spans(k0: int, k1: int, every: int) -> list[tuple[int, int]]:
    """``[k0, k1)`` cut before each multiple of ``every`` (no cut when ``every`` is 0)."""
    if every <= 0:
        return [(k0, k1)]
    cuts = [k0, *range((k0 // every + 1) * every, k1, every), k1]
    return [(a, b) for a, b in itertools.pairwise(cuts) if a < b]


def _stack(arrays: list[np.ndarray]) -> np.ndarray:
    return np.ascontiguousarray(np.concatenate(arrays).reshape(len(arrays), *arrays[0].shape))


class _Refs:
    """A chunk's references as stacked arrays (the kernel reads them by row)."""

    def __init__(self, refs: list[Any]) -> None:
        self.items = refs
        self.pos, self.vel = _stack([r.pos for r in refs]), _stack([r.vel for r in refs])
        self.acc, self.rot = _stack([r.acc for r in refs]), _stack([r.rot for r in refs])
        self.wb = _stack([r.V_d[3:] for r in refs])
        self.wbd = _stack([r.Vdot_d[3:] for r in refs])
        self.segment = np.array([r.segment for r in refs])
        self.T = _stack([r.T_d for r in refs])
        self.V, self.Vdot = _stack([r.V_d for r in refs]), _stack([r.Vdot_d for r in refs])

    def slots(self) -> dict[str, np.ndarray]:
        return {"ref_pos": self.pos, "ref_vel": self.vel, "ref_acc": self.acc,
                "ref_rot": self.rot, "ref_wb": self.wb, "ref_wbd": self.wbd, "ref_t": self.T,
                "ref_vd": self.V, "ref_vdd": self.Vdot}  # fmt: skip


class _Columns:
    """A chunk's telemetry rows, written by the kernel."""

    def __init__(self, n: int, nv: int) -> None:
        self.t, self.cf = np.zeros(n), np.zeros(n)
        self.q, self.v, self.tau = np.zeros((n, nv)), np.zeros((n, nv)), np.zeros((n, nv))
        self.p, self.R = np.zeros((n, 3)), np.zeros((n, 3, 3))
        self.w, self.raw = np.zeros((n, 6)), np.zeros((n, 6))

    def slots(self) -> dict[str, np.ndarray]:
        return {"col_t": self.t, "col_q": self.q, "col_v": self.v, "col_tau": self.tau,
                "col_p": self.p, "col_r": self.R, "col_w": self.w, "col_cf": self.cf,
                "col_raw": self.raw}  # fmt: skip


class _Store:
    """Stores a chunk's first ``n`` rows into the log, as the Python loop's flush does."""

    def __init__(self, log: Log, scene: Scene) -> None:
        self.log, dock = log, scene.cfg.dock
        self.docking = dock is not None
        self.mouth = np.asarray(dock.pos, float) if dock is not None else np.zeros(3)
        self.D = dock_rotation(dock) if dock is not None else np.eye(3)

    def __call__(self, c: _Columns, r: _Refs, n: int) -> None:
        if n <= 0:
            return
        P, Rs = c.p[:n].copy(), c.R[:n].copy()
        if self.docking:
            depth, lat, ang = dock_geometry(P, Rs, self.mouth, self.D)
        else:
            depth = lat = ang = np.zeros(n)
        self.log.store_columns({
            "t": c.t[:n], "q": c.q[:n], "v": c.v[:n], "tau": c.tau[:n], "eef_pos": P,
            "eef_rot": Rs, "ref_pos": r.pos[:n], "ref_vel": r.vel[:n], "ref_rot": r.rot[:n],
            "wrench": c.w[:n], "contact_force": c.cf[:n], "insertion_depth": depth,
            "lateral_error": lat, "axis_angle": ang, "segment": r.segment[:n],
            "wrench_raw": c.raw[:n],
        })  # fmt: skip
