"""One campaign trial's conditions: drawn from ``(seed, trial)`` only, applied to a scene.

:func:`draw` turns a :class:`~mjscope.dock.config.PerturbCfg` and ``(seed, k)`` into the trial's
numbers with ``numpy.random.default_rng([seed, k])``; every quantity is always drawn, in a fixed
order, so switching one perturbation on or off leaves the others' numbers unchanged, and trial
``k`` run alone (``--trial K``) gets the numbers it got inside the campaign. F/T noise comes
from its own stream, ``default_rng([seed, k, 1])``.

:class:`TrialScene` is what a trial runs: the controller's side (planner, controller model,
metrics' nominal geometry) is the scene as written with the trial's start configuration; the
simulated plant has the moved dock, the drawn friction and tool mass. :func:`true_dock_fields`
re-measures depth, lateral error and axis angle against the dock where it really is.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from mjscope.control.controllers import Controller
from mjscope.dock.config import CampaignCfg, DockCfg, PerturbCfg, SceneCfg, Vec3
from mjscope.dock.scene import Scene, dock_geometry, dock_rotation
from mjscope.exceptions import ConfigError

if TYPE_CHECKING:
    import mujoco
    import pinocchio as pin

    from mjscope.control.planners.reference import MotionReference

#: ``--perturb`` keys and what their value looks like.
KEYS = {
    "q0": "half-width [rad]",
    "dock_pos": "half-width [m], one value or x/y/z",
    "dock_rpy_deg": "half-width [deg], one value or r/p/y",
    "friction": "range lo:hi",
    "tool_mass": "range lo:hi [kg]",
    "ft_noise": "std force[/torque] [N, N·m]",
}


@dataclasses.dataclass(frozen=True)
class Draw:
    """The numbers of one trial.

    Attributes:
        dq: Offset of the initial joint configuration [rad]; (nq,).
        dock_dpos: Dock position offset, world axes [m]; (3,).
        dock_drpy_deg: Dock roll/pitch/yaw offset [deg]; (3,).
        friction: Tool–dock sliding friction [-] (``None``: the scene's).
        tool_mass: Simulated tool mass [kg] (``None``: the scene's).
        ft_noise: F/T noise std (force [N], torque [N·m]).
        noise_seed: Seed of the trial's F/T noise stream.
    """

    dq: tuple[float, ...]
    dock_dpos: Vec3
    dock_drpy_deg: Vec3
    friction: float | None
    tool_mass: float | None
    ft_noise: tuple[float, float]
    noise_seed: tuple[int, ...]


def parse_perturb(text: str, base: PerturbCfg) -> PerturbCfg:
    """``base`` with the overrides of ``--perturb key=value,key=value`` applied.

    Values: a number (a half-width, the same on every axis), ``a/b/c`` per axis, ``lo:hi``
    ranges (friction, tool_mass), ``f[/t]`` for ft_noise; ``0`` or ``off`` turns a key off.

    Raises:
        ConfigError: Unknown key or malformed value (the message lists the keys).
    """
    out = base
    for part in (p.strip() for p in text.split(",") if p.strip()):
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or key not in KEYS or not value:
            valid = "; ".join(f"{k}=<{v}>" for k, v in KEYS.items())
            raise ConfigError(f"--perturb {part!r}: expected key=value with keys {valid}")
        out = dataclasses.replace(out, **{key: _value(key, value)})
    return check_perturb(out, "--perturb")


def _numbers(key: str, value: str, sep: str) -> list[float]:
    try:
        nums = [float(x) for x in value.split(sep)]
    except ValueError as e:
        raise ConfigError(f"--perturb {key}={value!r}: not a number; give {KEYS[key]}") from e
    if not all(math.isfinite(x) for x in nums):
        raise ConfigError(f"--perturb {key}={value!r}: give finite numbers ({KEYS[key]})")
    return nums


def _value(key: str, value: str) -> Any:
    off = value.lower() in ("off", "0", "none")
    if key == "q0":
        return 0.0 if off else _numbers(key, value, "/")[0]
    if key in ("dock_pos", "dock_rpy_deg"):
        nums = [0.0] if off else _numbers(key, value, "/")
        if len(nums) not in (1, 3):
            raise ConfigError(f"--perturb {key}={value!r}: give one value or three (x/y/z)")
        return tuple(nums * 3 if len(nums) == 1 else nums)
    if key == "ft_noise":
        nums = [0.0] if off else _numbers(key, value, "/")
        if len(nums) > 2:
            raise ConfigError(f"--perturb ft_noise={value!r}: give force[/torque] std")
        return (nums[0], nums[1] if len(nums) == 2 else 0.0)
    if off:
        return None
    nums = _numbers(key, value, ":")
    if len(nums) != 2:
        raise ConfigError(f"--perturb {key}={value!r}: give a range lo:hi")
    return (nums[0], nums[1])


def check_perturb(p: PerturbCfg, where: str) -> PerturbCfg:
    """Half-widths and noise ≥ 0, ranges ``0 < lo <= hi``.

    Raises:
        ConfigError: A value out of range.
    """
    if p.q0 < 0 or min(p.dock_pos) < 0 or min(p.dock_rpy_deg) < 0 or min(p.ft_noise) < 0:
        raise ConfigError(f"{where}: half-widths and noise must be >= 0, got {p}")
    for name in ("friction", "tool_mass"):
        r = getattr(p, name)
        if r is not None and not 0 < r[0] <= r[1]:
            raise ConfigError(f"{where}: {name} range {list(r)} needs 0 < lo <= hi")
    return p


def check_campaign(c: CampaignCfg, where: str) -> CampaignCfg:
    """Trials ≥ 1, seed ≥ 0, rate in [0, 1] and the perturbations' ranges.

    Raises:
        ConfigError: A value out of range.
    """
    if c.trials < 1:
        raise ConfigError(f"{where}: trials must be >= 1, got {c.trials}")
    if c.seed < 0:
        raise ConfigError(f"{where}: seed must be >= 0, got {c.seed}")
    if c.min_success_rate is not None and not 0.0 <= c.min_success_rate <= 1.0:
        raise ConfigError(f"{where}: min_success_rate {c.min_success_rate} must be in [0, 1]")
    check_perturb(c.perturb, where)
    return c


def draw(p: PerturbCfg, seed: int, k: int, nq: int) -> Draw:
    """The numbers of trial ``k``: a function of ``(seed, k)`` (and ``p``) only."""
    rng = np.random.default_rng([seed, k])
    u_dock = rng.uniform(-1.0, 1.0, 6)
    u_fric, u_mass = rng.random(2)
    u_q = rng.uniform(-1.0, 1.0, nq)
    fric = None if p.friction is None else p.friction[0] + u_fric * (p.friction[1] - p.friction[0])
    mass = (
        None if p.tool_mass is None else p.tool_mass[0] + u_mass * (p.tool_mass[1] - p.tool_mass[0])
    )
    dpos = u_dock[:3] * np.asarray(p.dock_pos, float)
    drpy = u_dock[3:] * np.asarray(p.dock_rpy_deg, float)
    return Draw(
        dq=tuple((u_q * p.q0).tolist()),
        dock_dpos=(float(dpos[0]), float(dpos[1]), float(dpos[2])),
        dock_drpy_deg=(float(drpy[0]), float(drpy[1]), float(drpy[2])),
        friction=None if fric is None else float(fric),
        tool_mass=None if mass is None else float(mass),
        ft_noise=p.ft_noise,
        noise_seed=(seed, k, 1),
    )


def trial_cfgs(nominal: SceneCfg, q_home: npt.ArrayLike, d: Draw) -> tuple[SceneCfg, SceneCfg]:
    """(controller's cfg, plant cfg) of one trial.

    Args:
        nominal: The scene as written.
        q_home: Its initial configuration [rad]; (nq,).
        d: The trial's numbers.
    """
    q0 = tuple((np.asarray(q_home, float) + np.asarray(d.dq, float)).tolist())
    belief = dataclasses.replace(nominal, q0=q0)
    plant = belief
    if plant.dock is not None:
        dock = plant.dock
        pos, rpy = _add3(dock.pos, d.dock_dpos), _add3(dock.rpy_deg, d.dock_drpy_deg)
        plant = dataclasses.replace(plant, dock=dataclasses.replace(dock, pos=pos, rpy_deg=rpy))
    if d.friction is not None:
        fr = (d.friction, *plant.contact.friction[1:])
        plant = dataclasses.replace(plant, contact=dataclasses.replace(plant.contact, friction=fr))
    if d.tool_mass is not None:
        plant = dataclasses.replace(plant, tool=dataclasses.replace(plant.tool, mass=d.tool_mass))
    return belief, plant


def _add3(a: Vec3, b: Vec3) -> Vec3:
    return (float(a[0] + b[0]), float(a[1] + b[1]), float(a[2] + b[2]))


class TrialScene(Scene):
    """A scene whose simulated plant differs from what the controller is told.

    ``cfg`` (planner, controller gains, the Pinocchio model) is the controller's view; the
    MuJoCo model is built from ``plant``.

    Args:
        belief: The controller's scene configuration.
        plant: The simulated scene configuration.
    """

    def __init__(self, belief: SceneCfg, plant: SceneCfg) -> None:
        super().__init__(belief)
        self.plant = Scene(plant)

    def build_mjmodel(self) -> mujoco.MjModel:
        """The simulated plant's MuJoCo model."""
        return self.plant.build_mjmodel()

    def build_models(self) -> tuple[mujoco.MjModel, pin.Model]:
        """The plant's MuJoCo model and the controller's Pinocchio model."""
        _, pin_model = Scene(self.cfg).build_models()
        return self.plant.build_mjmodel(), pin_model


class NoisyWrench(Controller):
    """A controller that sees the F/T reading plus seeded white noise.

    Args:
        inner: The real controller.
        std: Noise std of force [N] and torque [N·m].
        seed: Seed of the noise stream; :meth:`reset` restarts it.
    """

    def __init__(self, inner: Controller, std: tuple[float, float], seed: tuple[int, ...]):
        self.inner = inner
        self.name = inner.name
        self.wrench_frame = getattr(inner, "wrench_frame", "world")
        self._std = np.repeat(np.asarray(std, float), 3)  # (6,)
        self._seed = seed
        self._rng = np.random.default_rng(seed)

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not yet set (unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    def reset(self) -> None:
        """Reset the controller and restart the noise stream."""
        self.inner.reset()
        self._rng = np.random.default_rng(self._seed)

    def compute(
        self,
        q: npt.ArrayLike,
        v: npt.ArrayLike,
        reference: MotionReference,
        F_ext: npt.ArrayLike,
    ) -> np.ndarray:
        """The controller's torque [N·m] for the noisy wrench; (nv,)."""
        noisy = np.asarray(F_ext, float) + self._std * self._rng.standard_normal(6)
        return self.inner.compute(q, v, reference, noisy)


def true_dock_fields(d: Mapping[str, np.ndarray], dock: DockCfg) -> dict[str, np.ndarray]:
    """The telemetry with depth, lateral error and axis angle measured against ``dock``.

    The same geometry as :class:`mjscope.dock.loop.Probe`, vectorised: tip position in dock
    axes ``c = Dᵀ(p − mouth)``, depth ``−c_z``, lateral ``|(c_x, c_y)|``; axis angle from
    ``b = Rᵀ(−dock z)``: ``atan2(|(b_x, b_y)|, b_z)``.
    """
    out = dict(d)
    p = np.asarray(d["eef_pos"], float).reshape(-1, 3)
    R = np.asarray(d["eef_rot"], float).reshape(-1, 3, 3)
    depth, lateral, angle = dock_geometry(p, R, np.asarray(dock.pos, float), dock_rotation(dock))
    out["insertion_depth"], out["lateral_error"], out["axis_angle"] = depth, lateral, angle
    return out
