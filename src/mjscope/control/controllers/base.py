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
    the end-effector origin (force [N], moment [N·m]) in the axes the controller declares with
    :attr:`wrench_frame`: ``"world"`` (world-aligned, paired with a LOCAL_WORLD_ALIGNED
    Jacobian) or ``"body"`` (end-effector axes, paired with the LOCAL Jacobian); zeros in
    tracking mode. A controller whose ``observer`` attribute is not ``None`` (``hqp`` with the
    observer source) is also given ``observe(q, v, τ_sent, τ_known)`` after every step.
    """

    name: str = "controller"
    wrench_frame: str = "world"

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
            F_ext: External wrench at the end effector, in :attr:`wrench_frame` axes; (6,).
        """
