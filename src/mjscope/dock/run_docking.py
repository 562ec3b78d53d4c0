"""Docking / tracking runs: scene → models, controller, planner → the 1 kHz loop → metrics.

The loop itself (planner → controller → friction feed-forward → limits → MuJoCo → telemetry)
lives in :mod:`mjscope.dock.loop`; this module builds its pieces and is the seed's entry point
(:func:`main`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import mujoco
import numpy as np
from scipy.spatial.transform import Rotation

from mjscope.control.controllers import (
    CartesianImpedanceController,
    CicGains,
    Controller,
    HqpController,
    Se3Gains,
    Se3LieController,
)
from mjscope.control.friction import FrictionModel
from mjscope.control.planners import (
    CircleTrajectory,
    Figure8Trajectory,
    QuinticTrajectory,
    ReferenceAdapter,
    RockingOrientation,
    SE3ToppPath,
    Trajectory,
    TwoSegmentTrajectory,
    aligned_rotation,
)
from mjscope.dock.env import MujocoEnv
from mjscope.dock.gate import evaluate_gate
from mjscope.dock.loop import RunResult, run_loop
from mjscope.dock.metrics import compute_metrics
from mjscope.dock.report import DockingReport, results_table_path, write_results_table
from mjscope.dock.scene import TIMESTEP, Scene, dock_rotation, load_scene
from mjscope.dock.stages import (
    build_compensator,
    build_schedule,
    build_shaper,
    loop_rate,
)
from mjscope.dock.telemetry import Log
from mjscope.exceptions import ConfigError, UnknownNameError
from mjscope.models import registry
from mjscope.paths import check_writable

if TYPE_CHECKING:
    import pinocchio as pin


def build_cic(scene: Scene, pin_model: pin.Model, q0: np.ndarray) -> Controller:
    """The classical impedance controller with the scene's gains."""
    cfg = scene.cfg.controller.impedance
    q_null = np.asarray(cfg.q_null, float) if cfg.q_null is not None else q0
    gains = CicGains.from_cfg(cfg)
    return CartesianImpedanceController(pin_model, "eef", gains, q_null, scene.cfg.control_period)


def build_se3_lie(scene: Scene, pin_model: pin.Model, q0: np.ndarray) -> Controller:
    """The SE(3) Lie-group impedance controller with the scene's ``se3_impedance`` gains."""
    cfg = scene.cfg.controller
    q_null = np.asarray(cfg.impedance.q_null, float) if cfg.impedance.q_null is not None else q0
    gains = Se3Gains.from_cfg(cfg.se3_impedance, cfg.impedance)
    return Se3LieController(pin_model, "eef", gains, q_null)


def build_hqp(scene: Scene, pin_model: pin.Model, q0: np.ndarray) -> Controller:
    """The HQP adaptive-compliance controller: ``impedance`` gains, ``hqp`` limits and sources.

    With an implicit integrator the QP's torque rows hold ``M + Δt D`` (the damping MuJoCo
    integrates implicitly), so its predicted acceleration is the one realised.
    Torque limits are the actuators' ``ctrlrange``; with friction compensation on, the QP keeps
    ``scale · (frictionloss + damping · v_max)`` of headroom per joint for the loop's
    feed-forward, so the torque sent stays within the limits the QP enforced.

    Raises:
        ConfigError: ``hqp.velocity_limit`` has neither one value nor one per joint.
    """
    cfg = scene.cfg.controller
    q_null = np.asarray(cfg.impedance.q_null, float) if cfg.impedance.q_null is not None else q0
    v_max = np.asarray(scene.cfg.controller.hqp.velocity_limit, float)
    if v_max.size not in (1, pin_model.nv):
        raise ConfigError(
            f"scene {scene.name!r}: hqp.velocity_limit has {v_max.size} values; give one or "
            f"{pin_model.nv} (one per joint) [rad/s]"
        )
    spec = registry.build_spec(scene.cfg.robot)  # the robot's actuators and joint friction
    tau_max = np.array([a.ctrlrange[1] for a in spec.actuators], float)
    fc = cfg.friction_comp
    margin = np.zeros(pin_model.nv)
    # frictionloss from the spec: pin 3.8's MJCF parser leaves model.friction 0
    loss = np.array([j.frictionloss for j in spec.joints], float)
    unc = (1.0 + fc.scale) * loss if fc.enabled else loss  # feed-forward vs MuJoCo's friction
    if fc.enabled:
        margin = fc.scale * loss
        if fc.damping:
            margin = margin + np.asarray(pin_model.damping, float) * v_max
    implicit = spec.option.integrator in (mujoco.mjtIntegrator.mjINT_IMPLICIT,
                                          mujoco.mjtIntegrator.mjINT_IMPLICITFAST)  # fmt: skip
    step = scene.cfg.control_period / max(1, round(scene.cfg.control_period / TIMESTEP))
    damping = step * np.asarray(pin_model.damping, float) if implicit else None
    return HqpController.from_cfg(pin_model, cfg, tau_max, q_null, scene.cfg.control_period,
                                  implicit_damping=damping, torque_uncertainty=unc, v_max=v_max,
                                  tau_margin=margin)  # fmt: skip


#: ``(scene, pin_model, q0) -> Controller``: builds a controller for one run.
ControllerFactory = Callable[[Scene, "pin.Model", np.ndarray], Controller]
CONTROLLERS: dict[str, ControllerFactory] = {
    "cic": build_cic,
    "se3_lie": build_se3_lie,
    "hqp": build_hqp,
}
#: The seed's module names for the same controllers.
ALIASES: dict[str, str] = {"task_space": "cic", "se3_impedance": "se3_lie", "hqp_ac": "hqp"}


def resolve_controller(name: str) -> str:
    """The canonical controller name for ``name`` (a name of :data:`CONTROLLERS` or an alias).

    Raises:
        UnknownNameError: ``name`` is neither (the message lists every valid name).
    """
    canonical = ALIASES.get(name, name)
    if canonical not in CONTROLLERS:
        valid = [*CONTROLLERS, *(a for a in ALIASES if ALIASES[a] in CONTROLLERS)]
        raise UnknownNameError("controller", name, valid, "Pass --controller cic, se3_lie or hqp")
    return canonical


def build_controller(name: str, scene: Scene, pin_model: pin.Model, q0: np.ndarray) -> Controller:
    """A controller by name (or alias, see :func:`resolve_controller`).

    Raises:
        UnknownNameError: ``name`` is not a known controller.
    """
    return CONTROLLERS[resolve_controller(name)](scene, pin_model, q0)


def build_planner(scene: Scene, p0: np.ndarray) -> Trajectory:
    """The scene's position planner, starting at ``p0`` (initial end-effector position) + offset."""
    pc, dock = scene.cfg.planner, scene.cfg.dock
    p0 = np.asarray(p0, float) + np.asarray(pc.start_offset, float)
    if pc.kind == "quintic":
        if pc.goal is None:
            raise ConfigError(f"scene {scene.name!r}: planner.goal is needed for 'quintic'")
        return QuinticTrajectory(p0, pc.goal, pc.approach_time, pc.hold)
    if pc.kind == "two_segment":
        assert dock is not None  # validated by load_scene
        axis = dock_rotation(dock)[:, 2]
        mouth = np.asarray(dock.pos, float)
        depth = pc.insert_depth if pc.insert_depth is not None else dock.depth
        pre, goal = mouth + pc.standoff * axis, mouth - depth * axis
        return TwoSegmentTrajectory(p0, pre, goal, pc.approach_time, pc.insert_time, pc.hold)
    cls = CircleTrajectory if pc.kind == "circle" else Figure8Trajectory
    return cls(p0, pc.radius, pc.period, pc.ramp_time, pc.hold)


def build_se3_path(scene: Scene, p0: np.ndarray, R0: np.ndarray, R_d: np.ndarray) -> SE3ToppPath:
    """The ``se3_topp`` planner from the start pose ``(p0 [m], R0)``; see ``PlannerCfg``.

    Docking: start → pre-dock pose (``standoff`` above the mouth, orientation ``R_d``) → the
    commanded depth (same orientation, at ``insert_v_max``). Tracking: start → ``goal``
    (default ``p0``) with the start orientation turned by ``goal_rpy_deg`` in the tool frame.
    """
    pc, dock = scene.cfg.planner, scene.cfg.dock
    p0 = np.asarray(p0, float) + np.asarray(pc.start_offset, float)
    if dock is not None:
        axis, mouth = dock_rotation(dock)[:, 2], np.asarray(dock.pos, float)
        depth = pc.insert_depth if pc.insert_depth is not None else dock.depth
        poses = [(p0, R0), (mouth + pc.standoff * axis, R_d), (mouth - depth * axis, R_d)]
        insert_v = pc.v_max if pc.insert_v_max is None else pc.insert_v_max
        return SE3ToppPath(poses, [pc.v_max, insert_v], pc.a_max, pc.w_max, pc.alpha_max,
                           t0=pc.hold)  # fmt: skip
    turn = Rotation.from_euler("xyz", pc.goal_rpy_deg, degrees=True).as_matrix()
    goal = p0 if pc.goal is None else np.asarray(pc.goal, float)
    return SE3ToppPath([(p0, R0), (goal, R0 @ turn)], pc.v_max, pc.a_max, pc.w_max, pc.alpha_max,
                       t0=pc.hold)  # fmt: skip


def build_reference(scene: Scene, p0: np.ndarray, R0: np.ndarray) -> ReferenceAdapter:
    """The run's motion reference from the initial end-effector pose ``(p0 [m], R0)``.

    Docking: peg axis along −(dock axis), the yaw nearest to ``R0`` among the square's four, held
    fixed. Tracking: ``R0``, held fixed or rocking about a tool axis (``planner.orientation``).
    """
    cfg = scene.cfg
    R_d = R0 if cfg.dock is None else aligned_rotation(dock_rotation(cfg.dock), R0, n_fold=4)
    if cfg.planner.kind == "se3_topp":
        return ReferenceAdapter(build_se3_path(scene, p0, R0, R_d))
    planner = build_planner(scene, p0)
    oc = cfg.planner.orientation
    if oc is None:
        return ReferenceAdapter(planner, R_d)
    rocking = RockingOrientation(planner, R_d, oc.axis, math.radians(oc.amplitude_deg),
                                 oc.period, oc.ramp_time, t0=cfg.planner.hold)  # fmt: skip
    return ReferenceAdapter(rocking)


def run_simulation(
    scene: Scene | str,
    controller: str | ControllerFactory = "cic",
    duration: float | None = None,
    friction_comp: bool | None = None,
    log: Log | None = None,
    record: str | Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> RunResult:
    """Run one scene with one controller.

    Args:
        scene: A scene or a bundled name / YAML path.
        controller: Controller name (``cic``, ``se3_lie``, ``hqp`` or an alias) or a factory
            ``(scene, pin_model, q0) -> Controller``.
        duration: Simulated time [s] (default: the scene's).
        friction_comp: Override the scene's friction/damping feed-forward switch.
        log: Telemetry log to fill (default: a new :class:`~mjscope.dock.telemetry.Log` sized
            for the run).
        record: Write an offscreen video (``.mp4``/``.gif``) of the run here.
        progress: Called with the control periods done, every 50 (a progress line).

    Returns:
        The run result; ``status`` says whether it completed.
    """
    sc = load_scene(scene) if isinstance(scene, str) else scene
    cfg = sc.cfg
    mj_model, pin_model = sc.build_models()
    q0 = sc.initial_q(mj_model)
    env = MujocoEnv(mj_model, q0, cfg.control_period)
    if isinstance(controller, str):
        ctrl = build_controller(controller, sc, pin_model, q0)
    else:
        ctrl = controller(sc, pin_model, q0)
    ctrl.reset()
    fc_cfg = cfg.controller.friction_comp
    use_fc = fc_cfg.enabled if friction_comp is None else friction_comp
    friction = FrictionModel.from_mjmodel(
        mj_model, model=fc_cfg.model, velocity_eps=fc_cfg.velocity_eps,
        torque_eps=fc_cfg.torque_eps, scale=fc_cfg.scale, use_damping=fc_cfg.damping,
    )  # fmt: skip
    limits = np.array(mj_model.actuator_ctrlrange[:, 1])
    n_steps = round((duration if duration is not None else cfg.duration) / cfg.control_period)
    if log is None:
        log = Log(capacity=n_steps)
    name = resolve_controller(controller) if isinstance(controller, str) else ctrl.name
    result = RunResult(sc, name, log, friction_comp=use_fc)
    reference = build_reference(sc, *env.eef_pose())
    if record is not None:
        env.start_recording(record)
    ff = friction if use_fc and friction.active else None
    comp = build_compensator(sc, pin_model) if cfg.ft.compensate else None
    try:
        run_loop(env, ctrl, reference, ff, limits, n_steps, result, comp, loop_rate(cfg, name),
                 build_shaper(sc, name), build_schedule(sc, ctrl), progress)  # fmt: skip
    finally:
        if record is not None:
            env.save_recording()  # streamed; kept up to where the run stopped
    return result


def run_steps(scene: Scene, quick: bool = False) -> int:
    """Control periods a run of ``scene`` takes (with ``quick``: :func:`quick_duration`'s)."""
    duration = quick_duration(scene) if quick else scene.cfg.duration
    return round(duration / scene.cfg.control_period)


def quick_duration(scene: Scene) -> float:
    """Shortened duration for ``--quick``: the time budget + 0.5 s (docking), ≤ 2.5 s (tracking)."""
    budget = scene.cfg.gate.time_budget or scene.cfg.duration
    limit = budget + 0.5 if scene.mode == "docking" else 2.5
    return min(scene.cfg.duration, limit)


def main(
    scene: Scene | str = "iiwa14_docking",
    controller: str = "cic",
    plot: bool = False,
    quick: bool = False,
    out: str | Path = "mjscope-out",
    friction_comp: bool | None = None,
    record: bool = False,
    progress: Callable[[int], None] | None = None,
) -> DockingReport:
    """Run a scene, compute metrics and the gate, write the results table (and plots).

    Args:
        scene: Bundled scene name, YAML path or ``Scene``.
        controller: Controller name.
        plot: Also write the figures into ``out/figure/<scene>/``.
        quick: Shorter run (see :func:`quick_duration`).
        out: Output folder (results table, telemetry ``.npz``, figures, video).
        friction_comp: Override the scene's friction compensation switch.
        record: Also write ``out/video/<scene>_<controller>.mp4``.
        progress: Called with the control periods done, every 50 (a progress line).

    Returns:
        The report; ``report.passed`` is the verdict.

    Raises:
        UnknownNameError: Unknown scene or controller name.
        ConfigError: Invalid scene file.
        OutputError: An output file cannot be written.
    """
    sc = load_scene(scene) if isinstance(scene, str) else scene
    controller = resolve_controller(controller)
    root = Path(out)
    stem = f"{sc.name}_{controller}"
    video = root / "video" / f"{stem}.mp4" if record else None
    duration = quick_duration(sc) if quick else None
    npz, table = root / "telemetry" / f"{stem}.npz", results_table_path(root, sc.name, controller)
    for path in (npz, table, video, root / "figure" / sc.name / "figure.png" if plot else None):
        if path is not None:
            check_writable(path)  # every output is checked before the run, not after it
    result = run_simulation(sc, controller, duration, friction_comp, record=video,
                            progress=progress)  # fmt: skip
    files = [result.log.save_npz(npz)]
    if video is not None:
        files.append(video)
    m = compute_metrics(result.log, sc, controller)
    gate = evaluate_gate(m, sc)
    files.append(write_results_table(m, gate, table))
    if plot:
        from mjscope.dock.plotting import plot_results  # matplotlib only when plotting

        files += plot_results(result.log.arrays(), sc, root)
    return DockingReport(result, m, gate, files)
