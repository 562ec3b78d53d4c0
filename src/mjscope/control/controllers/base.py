"""The controller contract used by the docking loop."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
import numpy.typing as npt

from mjscope.control.planners.reference import MotionReference


class Controller(ABC):
    """A joint-torque controller.

    The loop calls :meth:`compute` once per control period; friction feed-forward and torque
    limits are applied by the loop afterwards. ``F_ext`` is the external wrench on the tool at
    the end-effector origin in world axes (force [N], moment [N·m]); zeros in tracking mode.
    """

    name: str = "controller"

    def reset(self) -> None:  # noqa: B027 (optional hook)
        """Clear internal state (integrators, filters)."""

    @abstractmethod
    def compute(
        self,
        q: npt.ArrayLike,
        v: npt.ArrayLike,
        reference: MotionReference,
        F_ext: npt.ArrayLike,
    ) -> np.ndarray:
        """Joint torque [N·m]; (nv,).

        Args:
            q: Joint positions [rad]; (nq,).
            v: Joint velocities [rad/s]; (nv,).
            reference: Desired motion at this instant.
            F_ext: External wrench at the end effector, world axes; (6,).
        """
