"""Configuration of planners and controllers (the ``planner:`` and ``controller:`` sections).

Frozen dataclasses with defaults in code; a scene YAML overrides them and unknown keys are
errors (see :func:`mjscope.config.from_dict`). The ``se3_impedance`` and ``hqp`` sections are
validated now for the controllers that will use them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Vec3 = tuple[float, float, float]
PLANNERS = ("quintic", "two_segment", "circle", "figure8")
FRICTION_MODELS = ("velocity", "torque")
FORCE_SOURCES = ("sensor", "observer")


@dataclass(frozen=True)
class PlannerCfg:
    """Position planner; the reference orientation stays fixed.

    Attributes:
        kind: ``quintic`` | ``two_segment`` | ``circle`` | ``figure8``.
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
    """SE(3) impedance gains (validated now, used by a later controller)."""

    kp_pos: Vec3 = (400.0, 400.0, 400.0)
    kp_rot: Vec3 = (400.0, 400.0, 400.0)
    kd_pos: Vec3 | None = None
    kd_rot: Vec3 | None = None
    log_map: bool = False


@dataclass(frozen=True)
class HqpCfg:
    """HQP-AC settings (validated now, used by a later controller)."""

    force_source: str = "sensor"
    preload_force: float = 0.0  # [N]
    stiffness_min: float = 100.0
    stiffness_max: float = 2000.0
    observer_gain: float = 50.0  # [1/s]
    torque_rate_limit: float | None = None  # [N·m/s]


@dataclass(frozen=True)
class ControllerCfg:
    """Controller overrides."""

    impedance: ImpedanceCfg = field(default_factory=ImpedanceCfg)
    friction_comp: FrictionCompCfg = field(default_factory=FrictionCompCfg)
    se3_impedance: Se3ImpedanceCfg = field(default_factory=Se3ImpedanceCfg)
    hqp: HqpCfg = field(default_factory=HqpCfg)
