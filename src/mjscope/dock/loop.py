"""The 1 kHz loop of :mod:`.run_docking`: reference → controller → friction → limits → MuJoCo.

One control period per iteration; every :class:`~mjscope.dock.telemetry.Sample` goes to the
telemetry log, which stores copies.
A non-finite torque or a MuJoCo divergence stops the run safely: the samples so far are kept
and the result says why it stopped. Tracking scenes isolate F/T feedback (the controller gets a
zero wrench). The wrench goes to the controller in the axes it declares
(:attr:`~mjscope.control.controllers.Controller.wrench_frame`: world-aligned, or end-effector
body axes); the log always keeps world axes.

The hot path is kept lean: references are computed for :data:`CHUNK` periods at a time
(vectorised planners), measurements read MuJoCo buffers through addresses resolved once,
bound methods are looked up once per run, and each :class:`~mjscope.dock.telemetry.Sample` is
built with ``tuple.__new__`` (the same record, without NamedTuple's Python-level constructor).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from mjscope.control.controllers import Controller
from mjscope.control.friction import FrictionModel
from mjscope.control.observer import known_dissipation
from mjscope.control.planners import MotionReference, ReferenceAdapter
from mjscope.control.wrench import wrench_world_to_body
from mjscope.dock.env import MujocoEnv
from mjscope.dock.scene import Scene, dock_rotation
from mjscope.dock.telemetry import Log, Sample
from mjscope.exceptions import ConfigError, SimulationError

logger = logging.getLogger(__name__)

CHUNK = 256  # control periods per vectorised reference batch
WRENCH_FRAMES = ("world", "body")  # Controller.wrench_frame: axes of the wrench it is given

#: EEF position (3,), rotation (3, 3), wrench (6,), contact force [N], insertion depth [m],
#: lateral error [m], axis angle [rad].
Measurement = tuple[np.ndarray, np.ndarray, np.ndarray, float, float, float, float]


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
            infeasible periods; see :attr:`~mjscope.control.controllers.HqpController.stats`).
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

    Args:
        env: The environment to read.
        scene: The scene (its dock, if any, sets the insertion geometry).
    """

    def __init__(self, env: MujocoEnv, scene: Scene) -> None:
        self.env = env
        self.docking = scene.cfg.dock is not None
        self._mouth, self._D, self._neg_axis = np.zeros(3), np.eye(3), np.zeros(3)
        if scene.cfg.dock is not None:
            self._mouth = np.asarray(scene.cfg.dock.pos, float)
            self._D = dock_rotation(scene.cfg.dock)  # columns: dock axes; z out of the socket
            self._neg_axis = -self._D[:, 2]

    def measure(self) -> Measurement:
        """EEF position (3,), rotation (3, 3), wrench (6,), contact force, depth, lateral, angle.

        Depth and lateral error are the mouth-relative tip position in dock axes (−z, and the
        norm of x, y); the axis angle uses ``b = Rᵀ(−axis)``: cos = b_z, sin = |(b_x, b_y)|.
        """
        env = self.env
        p, R = env.eef_pose()
        wrench = env.eef_wrench()
        if not self.docking:
            return p, R, wrench, 0.0, 0.0, 0.0, 0.0
        c0, c1, c2 = (p - self._mouth).dot(self._D).tolist()
        b0, b1, b2 = self._neg_axis.dot(R).tolist()
        angle = math.atan2(math.hypot(b0, b1), b2)
        return p, R, wrench, env.contact_force(), -c2, math.hypot(c0, c1), angle


def references(reference: ReferenceAdapter, n_steps: int, dt: float) -> Iterator[MotionReference]:
    """References at ``t = k·dt`` for ``k < n_steps``, computed :data:`CHUNK` at a time."""
    for k0 in range(0, n_steps, CHUNK):
        yield from reference.batch(np.arange(k0, min(k0 + CHUNK, n_steps)) * dt)


def run_loop(
    env: MujocoEnv,
    ctrl: Controller,
    reference: ReferenceAdapter,
    friction: FrictionModel | None,
    limits: np.ndarray,
    n_steps: int,
    result: RunResult,
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
    """
    sc = result.scene
    probe = Probe(env, sc)
    q, v = env.data.qpos.copy(), env.data.qvel.copy()
    p, R, wrench, cf, depth, lat, ang = probe.measure()
    dt, zero, lower = sc.cfg.control_period, np.zeros(6), -limits
    docking, compute, measure = probe.docking, ctrl.compute, probe.measure
    frame = getattr(ctrl, "wrench_frame", "world")
    if frame not in WRENCH_FRAMES:
        raise ConfigError(
            f"controller {result.controller!r} declares wrench_frame {frame!r}; "
            f"valid: {', '.join(WRENCH_FRAMES)}"
        )
    body = frame == "body"
    store, step, ones = result.log.store_data, env.step, np.ones(len(limits))
    new = tuple.__new__  # new(Sample, (...)) is Sample(...) without its Python-level __new__
    has_observer = getattr(ctrl, "observer", None) is not None  # hqp, force_source: observer
    observe = getattr(ctrl, "observe", None) if has_observer else None
    model, data, known = env.model, env.data, np.zeros(len(v))
    if observe is not None:
        observe(q, v, np.zeros(len(v)))  # the observer starts from the initial state
    steps = 0
    start = time.perf_counter()
    for k, ref in enumerate(references(reference, n_steps, dt)):
        t = k * dt
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
        tau = np.minimum(np.maximum(tau, lower), limits)
        store(new(Sample, (t, q, v, tau, p, R, ref.pos, ref.vel, ref.rot, wrench, cf, depth, lat,
                           ang, ref.segment)))  # fmt: skip
        try:
            q, v, _ = step(tau)
        except SimulationError as e:
            _stop(result, str(e))
            break
        if observe is not None:
            observe(q, v, tau, known_dissipation(model, data, known))
        p, R, wrench, cf, depth, lat, ang = measure()
        steps = k + 1
    result.wall_time = time.perf_counter() - start
    result.steps = steps
    result.controller_stats = dict(getattr(ctrl, "stats", {}))


def _stop(result: RunResult, message: str) -> None:
    result.status, result.message = "stopped", message
    logger.error("run stopped safely: %s (samples so far kept)", message)
