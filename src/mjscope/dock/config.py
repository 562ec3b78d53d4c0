"""Configuration of the dock feature: the scene YAML sections and the command's options.

Frozen dataclasses with defaults in code; a scene YAML overrides them and unknown keys are
errors (see :func:`mjscope.config.from_dict`). :func:`mjscope.dock.scene.load_scene` reads a
file into :class:`SceneCfg` and checks it (:mod:`mjscope.dock.scene_checks`). The
``se3_impedance`` and ``hqp`` sections belong to controllers that do not exist yet; they are
validated now so that scene files written for them keep loading.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from mjscope.control.force_loop import ForceLoopGains

Vec3 = tuple[float, float, float]
PLANNERS = ("quintic", "two_segment", "circle", "figure8", "se3_topp")
FRICTION_MODELS = ("velocity", "torque")
FORCE_SOURCES = ("sensor", "observer")


@dataclass(frozen=True)
class OrientationCfg:
    """Time-varying reference orientation: a rocking motion about a tool-frame axis.

    ``θ(t) = amplitude · s(t/ramp_time) · sin(2π t/period)`` about ``axis`` (tool frame) from the
    initial orientation, ``s`` the minimum-jerk ramp (see
    :class:`mjscope.control.planners.RockingOrientation`).

    Attributes:
        axis: Rotation axis in the tool frame (normalised) [-].
        amplitude_deg: Amplitude [deg].
        period: Oscillation period [s].
        ramp_time: Amplitude ramp-up time [s].
    """

    axis: Vec3 = (1.0, 0.0, 0.0)
    amplitude_deg: float = 15.0
    period: float = 2.0
    ramp_time: float = 0.5


@dataclass(frozen=True)
class PlannerCfg:
    """The planner; a position planner's orientation stays fixed unless ``orientation`` is set.

    ``se3_topp`` plans pose and twist together (:class:`mjscope.control.planners.SE3ToppPath`):
    docking, the start pose → the pre-dock pose (aligned orientation) → the commanded depth;
    tracking, the start pose → ``goal`` (default: the start position) turned by ``goal_rpy_deg``
    in the tool frame. It is time-optimal under ``v_max``/``a_max``/``w_max``/``alpha_max``, so
    ``approach_time``/``insert_time`` are not used.

    Attributes:
        kind: ``quintic`` | ``two_segment`` | ``circle`` | ``figure8`` | ``se3_topp``.
        hold: Wait before moving [s].
        start_offset: The path starts here relative to the initial end-effector position [m]
            (an initial tracking error the controller must remove; zero for docking).
        goal: ``quintic`` target position [m] (world).
        approach_time: Quintic / approach segment duration [s].
        insert_time: Insertion segment duration [s].
        standoff: Pre-dock distance above the mouth along the dock axis [m].
        insert_depth: Commanded depth [m] (default: the socket depth).
        radius: Circle radius / figure-8 half-width [m].
        period: One lap [s].
        ramp_time: Phase ramp-up time for circle / figure-8 [s].
        orientation: Tracking scenes: a time-varying orientation (default: fixed).
        v_max: ``se3_topp`` linear speed bound [m/s].
        insert_v_max: ``se3_topp`` docking: the insertion segment's speed bound [m/s]
            (default: ``v_max``).
        a_max: ``se3_topp`` linear acceleration bound [m/s²].
        w_max: ``se3_topp`` angular speed bound [rad/s].
        alpha_max: ``se3_topp`` angular acceleration bound [rad/s²].
        goal_rpy_deg: ``se3_topp`` tracking: goal orientation, roll/pitch/yaw in the tool frame
            from the start orientation [deg].
    """

    kind: str = "two_segment"
    hold: float = 0.0
    start_offset: Vec3 = (0.0, 0.0, 0.0)
    goal: Vec3 | None = None
    approach_time: float = 1.5
    insert_time: float = 1.5
    standoff: float = 0.02
    insert_depth: float | None = None
    radius: float = 0.05
    period: float = 2.0
    ramp_time: float = 0.5
    orientation: OrientationCfg | None = None
    v_max: float = 0.05
    insert_v_max: float | None = None
    a_max: float = 0.2
    w_max: float = 0.6
    alpha_max: float = 2.0
    goal_rpy_deg: Vec3 = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class ImpedanceCfg:
    """CIC gains (task acceleration units): position [1/s², 1/s, 1/s³], orientation, null space."""

    kp_pos: Vec3 = (400.0, 400.0, 400.0)
    kd_pos: Vec3 | None = None  # default 2·sqrt(kp)
    kp_rot: Vec3 = (400.0, 400.0, 400.0)
    kd_rot: Vec3 | None = None
    ki_pos: Vec3 = (0.0, 0.0, 0.0)
    i_limit: float = 0.01  # clamp of the integrated position error [m·s]
    kp_null: float = 10.0
    kd_null: float = 2.0
    q_null: tuple[float, ...] | None = None  # default: the initial configuration
    damping: float = 1e-6  # Λ regularisation
    torque_rate_limit: float | None = None  # cic, se3_lie: |dτ/dt| of the torque sent [N·m/s]


@dataclass(frozen=True)
class FrictionCompCfg:
    """Friction/damping feed-forward: ``model`` velocity|torque, smoothing eps, scale."""

    enabled: bool = True
    model: str = "velocity"
    velocity_eps: float = 0.01  # [rad/s]
    torque_eps: float = 0.5  # [N·m]
    scale: float = 1.0
    damping: bool = True


@dataclass(frozen=True)
class Se3ImpedanceCfg:
    """``se3_lie`` gains, task-acceleration units as CIC's: [1/s²], [1/s]; ``log_map`` potential.

    ``log_map: false`` (default) is the Frobenius potential (see
    :mod:`mjscope.control.controllers.se3_lie`); the null-space gains come from ``impedance``.
    """

    kp_pos: Vec3 = (400.0, 400.0, 400.0)
    kp_rot: Vec3 = (400.0, 400.0, 400.0)
    kd_pos: Vec3 | None = None
    kd_rot: Vec3 | None = None
    log_map: bool = False


@dataclass(frozen=True)
class HqpCfg:
    """``hqp`` settings (see :mod:`mjscope.control.controllers.hqp`); gains from ``impedance``.

    Attributes:
        force_source: ``sensor`` (F/T) or ``observer`` (momentum observer, ``force_contact``).
        preload_force: Contact preload along the tool axis, on once in contact [N].
        stiffness_min: Lowest adapted stiffness [1/s²].
        stiffness_max: Highest stiffness [1/s²].
        observer_gain: Observer gain K_O [1/s].
        observer_ki: Observer integral gain K_I [1/s²] (0: first order).
        torque_rate_limit: |dτ/dt| limit [N·m/s] (``None``: none).
        velocity_limit: Joint velocity limits [rad/s]: one value for all joints, or one per joint.
        acceleration_limit: Joint acceleration limit [rad/s²].
        position_margin: Margin kept inside the joint range [rad].
        brake_acceleration: Deceleration assumed for the braking distance [rad/s²].
        k_sing: Singularity-avoidance gain on ∇ log w [N·m] (0: off).
        force_dead: Force below which the stiffness stays nominal [N].
        force_sat: Force at which the stiffness reaches ``stiffness_min`` [N].
        moment_dead: Moment dead band [N·m].
        moment_sat: Moment of full softening [N·m].
        t_soften: Time constant of lowering the stiffness [s].
        t_restore: Time constant of restoring it [s].
        contact_threshold: Force that switches the preload on [N].
        wrench_uncertainty: Bound on the error of the wrench the QP's torque cancels, force
            [N] and moment [N·m] per axis (F/T noise, tool-mass error); the acceleration box
            shrinks by ``|M⁻¹| |Jᵀ| w`` so the limits hold whatever that error is.
    """

    force_source: str = "sensor"
    preload_force: float = 0.0  # [N]
    stiffness_min: float = 100.0
    stiffness_max: float = 2000.0
    observer_gain: float = 50.0  # [1/s]
    observer_ki: float = 0.0  # [1/s²]
    torque_rate_limit: float | None = None  # [N·m/s]
    velocity_limit: tuple[float, ...] = (2.0,)  # [rad/s]
    acceleration_limit: float = 50.0  # [rad/s²]
    position_margin: float = 0.02  # [rad]
    brake_acceleration: float = 10.0  # [rad/s²]
    k_sing: float = 0.0  # [N·m]
    force_dead: float = 2.0  # [N]
    force_sat: float = 20.0  # [N]
    moment_dead: float = 0.2  # [N·m]
    moment_sat: float = 2.0  # [N·m]
    t_soften: float = 0.02  # [s]
    t_restore: float = 0.2  # [s]
    contact_threshold: float = 1.0  # [N]
    wrench_uncertainty: tuple[float, float] = (0.0, 0.0)  # [N, N·m]


@dataclass(frozen=True)
class ForceLoopCfg(ForceLoopGains):
    """Guarded approach and force loop along the insertion axis (:mod:`mjscope.control.force_loop`).

    ``cic`` and ``se3_lie`` get both; ``hqp`` (which keeps its own preload) only the guard. The
    settings are :class:`~mjscope.control.force_loop.ForceLoopGains` (contact detected on the
    compensated force, the guard zone before the socket bottom), plus:

    Attributes:
        enabled: Shape the docking reference (off: the planner's reference as is).
    """

    enabled: bool = False


@dataclass(frozen=True)
class ScheduleCfg:
    """Task stiffness and damping in time: multipliers of the controller's gains.

    Linear between knots, held before the first and after the last; every controller (``hqp``
    moves its nominal stiffness, which its adaptation then follows).

    Attributes:
        times: Knot times [s], increasing (empty: no schedule).
        stiffness: Stiffness multiplier at each knot [-], > 0.
        damping: Damping multiplier at each knot [-], > 0 (default: √stiffness, the same ratio).
    """

    times: tuple[float, ...] = ()
    stiffness: tuple[float, ...] = ()
    damping: tuple[float, ...] | None = None


@dataclass(frozen=True)
class ControllerCfg:
    """Controller overrides."""

    impedance: ImpedanceCfg = field(default_factory=ImpedanceCfg)
    friction_comp: FrictionCompCfg = field(default_factory=FrictionCompCfg)
    se3_impedance: Se3ImpedanceCfg = field(default_factory=Se3ImpedanceCfg)
    hqp: HqpCfg = field(default_factory=HqpCfg)
    force_loop: ForceLoopCfg = field(default_factory=ForceLoopCfg)
    schedule: ScheduleCfg = field(default_factory=ScheduleCfg)


@dataclass(frozen=True)
class ToolCfg:
    """Peg on the flange: mass [kg], principal inertia at its centre [kg·m²], box geometry [m]."""

    mass: float = 0.3
    inertia: Vec3 = (2.6e-4, 2.6e-4, 2.0e-5)
    half_width: float = 0.01
    length: float = 0.10


@dataclass(frozen=True)
class FtCfg:
    """The wrist F/T sensor and its tool-load compensation (:mod:`mjscope.control.tool_load`).

    Attributes:
        compensate: Subtract the predicted wrench of the tool (mass, centre of mass and
            inertia of ``tool``, body velocity and acceleration from Pinocchio) and ``bias``
            before any controller or metric sees the reading; the raw reading stays in the
            telemetry (``wrench_raw``).
        bias: The sensor's offset (force [N], torque [N·m], sensor axes): the simulated sensor
            adds it to its reading, the compensation subtracts it (``calibrate`` identifies it
            without being told).
    """

    compensate: bool = True
    bias: tuple[float, float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class DockCfg:
    """Socket: mouth centre ``pos`` [m], ``rpy_deg`` [deg], depth, clearance, wall [m]."""

    pos: Vec3 = (0.6, 0.0, 0.2)
    rpy_deg: Vec3 = (0.0, 0.0, 0.0)
    depth: float = 0.03
    clearance: float = 0.0005
    wall: float = 0.01


@dataclass(frozen=True)
class ContactCfg:
    """Tool–dock contact parameters (MuJoCo ``friction``, ``solref``, ``solimp``, ``condim``)."""

    friction: Vec3 = (0.3, 0.005, 0.0001)
    solref: tuple[float, float] = (0.004, 1.0)
    solimp: tuple[float, float, float, float, float] = (0.95, 0.99, 0.001, 0.5, 2.0)
    condim: int = 3


@dataclass(frozen=True)
class GateCfg:
    """PASS/FAIL thresholds (``load_scene`` fills ``time_budget`` and ``max_lateral``).

    Attributes:
        depth_fraction: Docking: insertion depth ≥ this fraction of the socket depth [-].
        time_budget: Docking: ... reached within this time from the start [s].
        max_lateral: Docking: final lateral residual < this [m] (default: the clearance).
        max_axis_angle_deg: Docking: final axis misalignment < this [deg].
        max_peak_force: Docking: peak contact force < this [N].
        contact_force_target: Expected steady-state contact force [N], for metrics (optional).
        force_band: Docking: with a target, the steady-state force must lie within ± this of
            it [N] (optional; e.g. a preload scene).
        track_pos_rms: Tracking: RMS position error ≤ this [m].
        track_rot_rms: Tracking: RMS orientation error ≤ this [rad].
        track_skip: Tracking: ignore the first ... [s].
    """

    depth_fraction: float = 0.9
    time_budget: float | None = None
    max_lateral: float | None = None
    max_axis_angle_deg: float = 1.0
    max_peak_force: float = 50.0
    contact_force_target: float | None = None
    force_band: float | None = None
    track_pos_rms: float = 0.002
    track_rot_rms: float = 0.02
    track_skip: float = 0.5

    @property
    def max_axis_angle(self) -> float:
        """Axis misalignment threshold [rad]."""
        return math.radians(self.max_axis_angle_deg)


@dataclass(frozen=True)
class SceneCfg:
    """A docking or tracking scene (YAML overrides these defaults)."""

    name: str = ""
    description: str = ""
    robot: str = "iiwa14"
    tool: ToolCfg = field(default_factory=ToolCfg)
    ft: FtCfg = field(default_factory=FtCfg)
    dock: DockCfg | None = None
    contact: ContactCfg = field(default_factory=ContactCfg)
    gravity: Vec3 = (0.0, 0.0, 0.0)
    control_period: float = 0.001
    duration: float = 5.0
    q0: tuple[float, ...] | None = None
    planner: PlannerCfg = field(default_factory=PlannerCfg)
    controller: ControllerCfg = field(default_factory=ControllerCfg)
    gate: GateCfg = field(default_factory=GateCfg)
    campaign: CampaignCfg = field(default_factory=lambda: CampaignCfg())


@dataclass(frozen=True)
class PerturbCfg:
    """Randomised trial conditions of a campaign (:mod:`mjscope.dock.perturb`); zero: nominal.

    Half-widths are of uniform distributions around the scene's value; ranges are ``[lo, hi]``.
    The dock moves in the simulation only: the planner and controller still aim at the
    scene's nominal dock, so its offset is the initial error the controller must absorb.

    Attributes:
        q0: Initial joint configuration, half-width per joint [rad].
        dock_pos: Dock position, half-width per world axis [m].
        dock_rpy_deg: Dock orientation, half-width per roll/pitch/yaw [deg].
        friction: Tool–dock sliding friction range [-] (``None``: the scene's).
        tool_mass: Simulated tool mass range [kg] (the controller's model keeps the scene's).
        ft_noise: White noise on the F/T reading the controller gets: std of force [N] and
            torque [N·m].
    """

    q0: float = 0.0
    dock_pos: Vec3 = (0.0, 0.0, 0.0)
    dock_rpy_deg: Vec3 = (0.0, 0.0, 0.0)
    friction: tuple[float, float] | None = None
    tool_mass: tuple[float, float] | None = None
    ft_noise: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class CampaignCfg:
    """A scene's ``campaign:`` section: Monte-Carlo defaults (the command line overrides them).

    Attributes:
        trials: Trials per controller.
        seed: Campaign seed; trial ``k`` draws from ``(seed, k)`` only.
        perturb: What varies from trial to trial.
        min_success_rate: Exit 1 when a controller's success rate is below this [-].
    """

    trials: int = 20
    seed: int = 0
    perturb: PerturbCfg = field(default_factory=PerturbCfg)
    min_success_rate: float | None = None


@dataclass(frozen=True)
class DockCmdCfg:
    """Options of one ``mjscope dock`` run (what :func:`mjscope.dock.session.run_dock` needs).

    Attributes:
        scene: Bundled scene name or scene YAML file.
        controller: Controller name (see :data:`mjscope.dock.run_docking.CONTROLLERS`), or a
            comma-separated list (``cic,se3_lie``): every one runs on the same scene and the
            comparison table and overlay figures are written (:mod:`mjscope.dock.compare`).
        quick: Shorter run (the time budget + 0.5 s for docking, ≤ 2.5 s for tracking).
        plot: Also write the figures into ``out/figure/<scene>/`` (with several controllers:
            each one's into ``out/figure/<scene>/<controller>/``).
        record: Also write ``out/video/<scene>_<controller>.mp4``.
        friction_comp: Force the friction/damping feed-forward on or off (``None``: the
            scene's setting).
        out: Output folder (results table, telemetry, figures, video).
        list_scenes: Only list the bundled scenes.
        lang: Figure language, ``en`` or ``zh`` (titles, axis labels, legends).
        calibrate: Only identify the tool load and F/T bias from a free-space excitation
            (:mod:`mjscope.dock.calibrate`) and report them against the scene's.
        json: Write the run's summary as JSON here (``-``: stdout; :mod:`mjscope.dock.summary`).
        html: Write the run's one-page HTML report here (:mod:`mjscope.dock.html_page`).
        quiet: No progress line (the console is quiet already).
    """

    scene: str = "iiwa14_docking"
    controller: str = "cic"
    quick: bool = False
    plot: bool = False
    record: bool = False
    friction_comp: bool | None = None
    out: Path = Path("mjscope-out")
    list_scenes: bool = False
    lang: str = "en"
    calibrate: bool = False
    json: str | None = None
    html: str | None = None
    quiet: bool = False
