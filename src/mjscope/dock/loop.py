"""The 1 kHz loop of :mod:`.run_docking`: reference → controller → friction → limits → MuJoCo.

One control period per iteration; every :class:`~mjscope.dock.telemetry.Sample` goes to the
telemetry log, which stores copies.
A non-finite torque or a MuJoCo divergence stops the run safely: the samples so far are kept
and the result says why it stopped. Tracking scenes isolate F/T feedback (the controller gets a
zero wrench). The wrench goes to the controller in the axes it declares
(:attr:`~mjscope.control.controllers.Controller.wrench_frame`: world-aligned, or end-effector
body axes); the log always keeps world axes.

For CIC, se3_lie and hqp the compiled loop (:mod:`mjscope.dock.native_loop`,
``dock/_kernel.c``) runs the same periods with the same results, bit for bit;
``MJSCOPE_DOCK_KERNEL=python`` forces this module's loop (and it runs wherever the compiled
one declines). Here, the hot path is kept lean: references are computed for :data:`CHUNK`
periods at a time (vectorised planners), measurements read MuJoCo buffers through addresses
resolved once, bound methods are looked up once per run, and each
:class:`~mjscope.dock.telemetry.Sample` is
built with ``tuple.__new__`` (the same record, without NamedTuple's Python-level constructor).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from mjscope.control.controllers import Controller
from mjscope.control.force_loop import ForceLoop
from mjscope.control.friction import FrictionModel
from mjscope.control.observer import known_dissipation
from mjscope.control.planners import MotionReference, ReferenceAdapter
from mjscope.control.tool_load import ToolLoadCompensator
from mjscope.control.wrench import wrench_world_to_body
from mjscope.dock import native_loop
from mjscope.dock.env import MujocoEnv
from mjscope.dock.scene import Scene, dock_geometry, dock_rotation
from mjscope.dock.stages import GainSchedule, TorqueLimiter
from mjscope.dock.telemetry import Log
from mjscope.exceptions import ConfigError, SimulationError

logger = logging.getLogger(__name__)

CHUNK = 256  # control periods per vectorised reference batch
WRENCH_FRAMES = ("world", "body")  # Controller.wrench_frame: axes of the wrench it is given

#: EEF position (3,), rotation (3, 3), wrench (6,), contact force [N], insertion depth [m],
#: lateral error [m], axis angle [rad], raw (uncompensated) wrench (6,).
Measurement = tuple[np.ndarray, np.ndarray, np.ndarray, float, float, float, float, np.ndarray]


@dataclass
class RunResult:
    """Outcome of one simulation.

    Attributes:
        scene: The scene.
        controller: Controller name.
        log: Telemetry (one sample per control period, copies).
        status: ``ok`` or ``stopped`` (non-finite torque, divergence).
        message: Why it stopped (empty when ``ok``).
        steps: Control periods simulated.
        wall_time: Wall-clock time of the loop [s].
        friction_comp: Whether friction/damping feed-forward was on.
        controller_stats: The controller's counters at the end (``hqp``: QP fallbacks,
            infeasible periods; see :attr:`~mjscope.control.controllers.HqpController.stats`)
            and the loop's: ``torque_saturated`` and ``rate_limited`` periods
            (:class:`TorqueLimiter`).
    """

    scene: Scene
    controller: str
    log: Log
    status: str = "ok"
    message: str = ""
    steps: int = 0
    wall_time: float = 0.0
    friction_comp: bool = True
    controller_stats: dict[str, int] = field(default_factory=dict)

    @property
    def real_time_factor(self) -> float:
        """Simulated time over wall time [-]."""
        return self.steps * self.scene.cfg.control_period / max(self.wall_time, 1e-12)


class Probe:
    """Per-step measurements the log needs: pose, wrench at the EEF, dock geometry.

    The F/T reading is the simulated sensor's plus the scene's ``ft.bias``. With a
    compensator the wrench the controller and the metrics get is the reading minus the
    predicted tool load and bias (:mod:`mjscope.control.tool_load`), evaluated at the state
    the reading was taken in (MuJoCo computes sensors at the start of a step: the previous
    ``(q, v)``, with ``a = (v' − v)/Δt`` from the joint velocities) and mapped to world axes
    with the sensor's orientation at that state; the raw reading is kept beside it, mapped
    alike.

    Args:
        env: The environment to read.
        scene: The scene (its dock, if any, sets the insertion geometry).
        compensator: Tool-load compensation (``None``: the raw reading is used).
    """

    def __init__(
        self, env: MujocoEnv, scene: Scene, compensator: ToolLoadCompensator | None = None
    ) -> None:
        self.env = env
        self.docking = scene.cfg.dock is not None
        self.compensator = compensator
        self._bias = np.asarray(scene.cfg.ft.bias, float)
        self._biased = bool(np.any(self._bias))
        self._dt = scene.cfg.control_period
        self._a0, self._a = np.zeros(env.model.nv), np.zeros(env.model.nv)
        self._W = np.zeros((2, 6))  # reading, compensated reading; (2, 6)
        self._inv_dt = 1.0 / self._dt
        self._mouth, self._D, self._neg_axis = np.zeros(3), np.eye(3), np.zeros(3)
        if scene.cfg.dock is not None:
            self._mouth = np.asarray(scene.cfg.dock.pos, float)
            self._D = dock_rotation(scene.cfg.dock)  # columns: dock axes; z out of the socket
            self._neg_axis = -self._D[:, 2]

    def wrenches(
        self, q_prev: np.ndarray, v_prev: np.ndarray, v: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(compensated, raw) external wrench at the EEF, world axes; (6,) each.

        Args:
            q_prev: Joint positions the reading was taken at [rad]; (nq,).
            v_prev: Joint velocities then [rad/s]; (nv,).
            v: Joint velocities now [rad/s] (nv,); ``None`` before the first step (a = 0).
        """
        env = self.env
        reading = env.ft6()
        if self._biased:
            reading += self._bias
        comp = self.compensator
        if comp is None:
            raw = env.eef_wrench(reading=reading)
            return raw, raw
        a = self._a0 if v is None else np.subtract(v, v_prev, out=self._a) * self._inv_dt
        load = comp.predict(q_prev, v_prev, a)
        R = comp.sensor_rotation  # the axes the reading was taken in
        raw = env.eef_wrench(reading=reading, R_sensor=R)
        reading -= load
        return env.eef_wrench(reading=reading, R_sensor=R), raw

    def sense(
        self, q_prev: np.ndarray, v_prev: np.ndarray, v: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
        """What the loop needs each period: pose, (compensated, raw) wrench, contact force.

        The values of :meth:`measure` without the dock geometry (the loop derives it from the
        logged poses a chunk at a time, :func:`~mjscope.dock.scene.dock_geometry`). The raw
        and compensated readings are mapped to the EEF together (one product for both); every
        array returned is new (the loop keeps them without copying).

        Returns:
            EEF position [m] (3,), rotation (3, 3), wrench and raw wrench (6,) each (world
            axes, at the EEF), contact force [N].
        """
        env = self.env
        p, R = env.eef_pose()
        A = env._A
        if A is None:  # sensor and EEF on different bodies: the general map
            wrench, raw = self.wrenches(q_prev, v_prev, v)
            return p, R, wrench, raw, env.contact_force()
        W = self._W  # rows: the reading, then the compensated reading (sensor axes)
        W[0] = env._ft6
        if self._biased:
            W[0] += self._bias
        comp = self.compensator
        if comp is None:
            raw = A.dot(W[0]).reshape(2, 3).dot(env._R_ft_T).ravel()
            return p, R, raw, raw, env.contact_force()
        if v is None:
            a = self._a0
        else:
            a = np.subtract(v, v_prev, out=self._a)
            a *= self._inv_dt
        load = comp.predict(q_prev, v_prev, a, out=W[1])
        np.subtract(W[0], load, out=load)
        Y = W.dot(A.T).reshape(4, 3).dot(comp.sensor_rotation.T).reshape(2, 6)  # (2, 6), new
        return p, R, Y[1], Y[0], env.contact_force()

    def measure(
        self, q_prev: np.ndarray, v_prev: np.ndarray, v: np.ndarray | None = None
    ) -> Measurement:
        """Pose, wrenches, contact force and dock geometry (a :data:`Measurement`).

        The arguments are those of :meth:`wrenches`.

        Depth and lateral error are the mouth-relative tip position in dock axes (−z, and the
        norm of x, y); the axis angle uses ``b = Rᵀ(−axis)``: cos = b_z, sin = |(b_x, b_y)|.
        """
        env = self.env
        p, R = env.eef_pose()
        wrench, raw = self.wrenches(q_prev, v_prev, v)
        if not self.docking:
            return p, R, wrench, 0.0, 0.0, 0.0, 0.0, raw
        c0, c1, c2 = (p - self._mouth).dot(self._D).tolist()
        b0, b1, b2 = self._neg_axis.dot(R).tolist()
        angle = math.atan2(math.hypot(b0, b1), b2)
        return p, R, wrench, env.contact_force(), -c2, math.hypot(c0, c1), angle, raw


def references(reference: ReferenceAdapter, n_steps: int, dt: float) -> Iterator[MotionReference]:
    """References at ``t = k·dt`` for ``k < n_steps``, computed :data:`CHUNK` at a time."""
    for k0 in range(0, n_steps, CHUNK):
        yield from reference.batch(np.arange(k0, min(k0 + CHUNK, n_steps)) * dt)


PROGRESS_EVERY = 50  # steps between two progress calls


def reporting(
    refs: Iterator[MotionReference], progress: Callable[[int], None]
) -> Iterator[MotionReference]:
    """``refs`` unchanged, calling ``progress(k)`` before reference ``k`` every 50 steps."""
    for k, ref in enumerate(refs):
        if k % PROGRESS_EVERY == 0:
            progress(k)
        yield ref


def run_loop(
    env: MujocoEnv,
    ctrl: Controller,
    reference: ReferenceAdapter,
    friction: FrictionModel | None,
    limits: np.ndarray,
    n_steps: int,
    result: RunResult,
    compensator: ToolLoadCompensator | None = None,
    torque_rate: float = math.inf,
    shaper: ForceLoop | None = None,
    schedule: GainSchedule | None = None,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Run ``n_steps`` control periods, logging into ``result.log``; sets steps, status, time.

    Args:
        env: Environment at its initial state.
        ctrl: Controller (already reset).
        reference: Motion reference of the run.
        friction: Friction/damping feed-forward, or ``None`` when off.
        limits: Symmetric torque limits [N·m]; (nu,).
        n_steps: Control periods to run.
        result: Receives the log samples, step count, status and wall time.
        compensator: Tool-load compensation of the F/T reading (see :class:`Probe`).
        torque_rate: Torque-rate limit of the loop [N·m/s] (:class:`TorqueLimiter`).
        shaper: Guarded approach / force loop applied to each reference (it sees the
            compensated world wrench); the log keeps the shaped reference.
        schedule: Stiffness/damping multipliers in time, given to the controller's
            ``set_gain_scale`` whenever they change.
        progress: Called with the steps done every :data:`PROGRESS_EVERY` steps (a progress
            line); it sees the loop only from outside, so the results stay bit-identical.
    """
    sc = result.scene
    if native_loop.covers(env, ctrl, shaper, schedule):
        limiter = TorqueLimiter(limits, torque_rate, sc.cfg.control_period)
        outcome = native_loop.run(env, ctrl, reference, friction, limiter, n_steps, sc,
                                  result.log, compensator, CHUNK, progress,
                                  PROGRESS_EVERY)  # fmt: skip
        if outcome is not None:
            _finish(result, outcome, ctrl, limiter.stats, sc.cfg.control_period)
            return
    probe = Probe(env, sc, compensator)
    q, v = env.data.qpos.copy(), env.data.qvel.copy()
    p, R, wrench, raw, cf = probe.sense(q, v, None)
    dt, zero = sc.cfg.control_period, np.zeros(6)
    limit = TorqueLimiter(limits, torque_rate, dt)
    docking, compute, sense = probe.docking, ctrl.compute, probe.sense
    frame = getattr(ctrl, "wrench_frame", "world")
    if frame not in WRENCH_FRAMES:
        raise ConfigError(
            f"controller {result.controller!r} declares wrench_frame {frame!r}; "
            f"valid: {', '.join(WRENCH_FRAMES)}"
        )
    body = frame == "body"
    advance, ones = env.advance, np.ones(len(limits))
    rows = _Rows(result.log, probe)
    keep = rows.append
    has_observer = getattr(ctrl, "observer", None) is not None  # hqp, force_source: observer
    observe = getattr(ctrl, "observe", None) if has_observer else None
    model, data, known = env.model, env.data, np.zeros(len(v))
    if observe is not None:
        observe(q, v, np.zeros(len(v)))  # the observer starts from the initial state
    steps = 0
    start = time.perf_counter()
    refs = references(reference, n_steps, dt)
    if progress is not None:
        refs = reporting(refs, progress)
    try:
        for k, ref in enumerate(refs):
            t = k * dt
            if shaper is not None:
                ref = shaper.shape(ref, wrench)
            if schedule is not None:
                schedule.apply(ctrl, t)
            if not docking:
                F = zero
            else:
                F = wrench_world_to_body(wrench, R) if body else wrench
            tau = compute(q, v, ref, F)
            if friction is not None:
                tau = tau + friction.feedforward(v, tau)
            if not math.isfinite(ones.dot(tau)):  # the sum: NaN/inf propagate
                _stop(result, f"non-finite torque from {result.controller} at t = {t:.3f} s: {tau}")
                break
            tau = limit(tau)
            keep((t, q, v, tau, p, R, ref, wrench, cf, raw))
            q_prev, v_prev = q, v
            try:
                q, v = advance(tau)
            except SimulationError as e:
                _stop(result, str(e))
                break
            if observe is not None:
                observe(q, v, tau, known_dissipation(model, data, known))
            p, R, wrench, raw, cf = sense(q_prev, v_prev, v)
            steps = k + 1
    finally:
        rows.flush()
    result.wall_time = time.perf_counter() - start
    result.steps = steps
    result.controller_stats = {**getattr(ctrl, "stats", {}), **limit.stats}
    if shaper is not None and shaper.in_contact:
        result.controller_stats["contact_detected_ms"] = round(1e3 * shaper.contact_time)


class _Rows:
    """The loop's per-period values, kept as they are and stored into the log by chunks.

    Every array appended must be the loop's own (new each period, never changed after): they
    are stacked, not copied one by one, which is what makes the log nearly free per period.
    The dock geometry is derived from the stacked poses (:func:`dock_geometry`).
    """

    def __init__(self, log: Log, probe: Probe) -> None:
        self.log, self.probe = log, probe
        self._rows: list[tuple] = []
        self.append = self._append

    def _append(self, row: tuple) -> None:
        rows = self._rows
        rows.append(row)
        if len(rows) == CHUNK:
            self.flush()

    def flush(self) -> None:
        """Store the rows kept so far into the log."""
        if not self._rows:
            return
        t, q, v, tau, p, R, refs, wrench, cf, raw = zip(*self._rows, strict=True)
        self._rows = []
        P, Rs = _stack(p), _stack(R)
        n, probe = len(t), self.probe
        if probe.docking:
            depth, lat, ang = dock_geometry(P, Rs, probe._mouth, probe._D)
        else:
            depth = lat = ang = np.zeros(n)
        self.log.store_columns({
            "t": np.array(t), "q": _stack(q), "v": _stack(v), "tau": _stack(tau),
            "eef_pos": P, "eef_rot": Rs,
            "ref_pos": _stack([r.pos for r in refs]), "ref_vel": _stack([r.vel for r in refs]),
            "ref_rot": _stack([r.rot for r in refs]), "wrench": _stack(wrench),
            "contact_force": np.array(cf), "insertion_depth": depth, "lateral_error": lat,
            "axis_angle": ang, "segment": np.array([r.segment for r in refs]),
            "wrench_raw": _stack(raw),
        })  # fmt: skip


def _stack(arrays: tuple[np.ndarray, ...] | list[np.ndarray]) -> np.ndarray:
    """Equal-shaped arrays stacked on a new first axis (``np.array``'s result, ≈ 2× faster)."""
    return np.concatenate(arrays).reshape(len(arrays), *arrays[0].shape)


def _finish(
    result: RunResult,
    outcome: native_loop.Outcome,
    ctrl: Controller,
    stats: dict[str, int],
    dt: float,
) -> None:
    """``result`` from a compiled run, as the Python loop sets it."""
    result.wall_time, result.steps = outcome.wall_time, outcome.steps
    if outcome.tau is not None:
        t, tau = outcome.steps * dt, outcome.tau
        _stop(result, f"non-finite torque from {result.controller} at t = {t:.3f} s: {tau}")
    elif outcome.stop:
        _stop(result, outcome.stop)
    result.controller_stats = {**getattr(ctrl, "stats", {}), **stats}


def _stop(result: RunResult, message: str) -> None:
    result.status, result.message = "stopped", message
    logger.error("run stopped safely: %s (samples so far kept)", message)
