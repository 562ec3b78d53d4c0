"""Joint friction and damping feed-forward, shared by every controller.

Two direction models for the Coulomb part (``frictionloss``): ``velocity`` uses the joint
velocity's sign (smoothed with tanh over ``velocity_eps``), ``torque`` uses the sign of the
commanded torque (smoothed over ``torque_eps``), which also helps at rest, where the velocity
is zero. Linear joint damping is fed forward as ``d·v``. All parameters come from the
assembled MuJoCo model (``dof_frictionloss``, ``dof_damping``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mujoco
import numpy as np
import numpy.typing as npt

from mjscope.exceptions import ConfigError

MODELS = ("velocity", "torque")


@dataclass(frozen=True)
class FrictionModel:
    """Dissipation model and its feed-forward.

    Attributes:
        frictionloss: Coulomb friction per joint [N·m]; (nv,).
        damping: Viscous damping per joint [N·m·s/rad]; (nv,).
        model: ``velocity`` or ``torque`` direction model.
        velocity_eps: tanh smoothing width of the velocity model [rad/s].
        torque_eps: tanh smoothing width of the torque model [N·m].
        scale: Fraction of the Coulomb term fed forward [-].
        use_damping: Whether the damping term is fed forward.
    """

    frictionloss: np.ndarray
    damping: np.ndarray
    model: str = "velocity"
    velocity_eps: float = 0.01
    torque_eps: float = 0.5
    scale: float = 1.0
    use_damping: bool = True
    _coulomb: np.ndarray = field(init=False, repr=False, compare=False)  # scale·frictionloss
    _by_velocity: bool = field(init=False, repr=False, compare=False)
    _eps: float = field(init=False, repr=False, compare=False)  # tanh width of the model

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ConfigError(f"friction model {self.model!r} unknown; valid: {', '.join(MODELS)}")
        # Per-step constants (frozen dataclass: set once here).
        object.__setattr__(self, "_coulomb", self.scale * np.asarray(self.frictionloss, float))
        object.__setattr__(self, "_by_velocity", self.model == "velocity")
        object.__setattr__(
            self, "_eps", self.velocity_eps if self._by_velocity else self.torque_eps
        )

    @classmethod
    def from_mjmodel(cls, mj_model: mujoco.MjModel, **kwargs: Any) -> FrictionModel:
        """Read ``dof_frictionloss`` and ``dof_damping`` from a compiled model."""
        damping = np.asarray(mj_model.dof_damping)
        damping = damping[:, 0] if damping.ndim == 2 else damping
        return cls(np.array(mj_model.dof_frictionloss), np.array(damping), **kwargs)

    @property
    def active(self) -> bool:
        """Whether the feed-forward can be non-zero (some friction, or damping fed forward)."""
        return bool(
            np.any(self.frictionloss > 0) or (self.use_damping and np.any(self.damping > 0))
        )

    def feedforward(self, v: npt.ArrayLike, tau_cmd: npt.ArrayLike) -> np.ndarray:
        """Torque that cancels the modelled friction and damping [N·m]; (nv,).

        Args:
            v: Joint velocity [rad/s]; (nv,).
            tau_cmd: Torque commanded before compensation [N·m]; (nv,) (torque model).
        """
        v = np.asarray(v, float)
        x = v if self._by_velocity else np.asarray(tau_cmd, float)
        tau = self._coulomb * np.tanh(x / self._eps)
        if self.use_damping:
            tau += self.damping * v
        return tau
