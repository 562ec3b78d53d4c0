"""The arm adapter contract: one adapter per arm node, chosen only by ``--mock`` / ``--real``.

An adapter takes joint targets [rad] that are already within every limit (it never "fixes up"
a command) and gives back the arm's joint feedback [rad]. A real adapter that cannot connect or
loses feedback raises :class:`AdapterError` — never a fallback to the mock.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
import numpy.typing as npt

from mjscope.exceptions import MjscopeError
from mjscope.teleop.feedback import AdapterError, Feedback

__all__ = ["AdapterError", "ArmAdapter", "Feedback"]


class ArmAdapter(ABC):
    """One arm.

    Args:
        side: ``left`` or ``right``.
        joint_names: The arm's joint names, in command order.
        initial_q: ``(n,)`` the YAML initial pose [rad] (reset target).

    Attributes:
        kind: ``mock`` or ``real``.
        grip_release_after_reset: Whether teleop must see the grip released before it moves the
            arm again after a reset (real: yes, the seed; mock: no, it re-anchors at once).
    """

    kind: str = ""
    grip_release_after_reset: bool = False

    def __init__(self, side: str, joint_names: tuple[str, ...], initial_q: npt.ArrayLike) -> None:
        self.side = side
        self.joint_names = tuple(joint_names)
        self.initial_q = np.asarray(initial_q, dtype=float).copy()
        if self.initial_q.shape != (len(self.joint_names),):
            raise MjscopeError(
                f"{side}: initial pose has {self.initial_q.size} angles for "
                f"{len(self.joint_names)} joints; give one per joint"
            )

    @abstractmethod
    def connect(self) -> None:
        """Open the connection (a mock publishes nothing here; the node publishes state).

        Raises:
            AdapterError: The arm cannot be reached or does not answer.
        """

    @abstractmethod
    def feedback(self, now: float) -> Feedback | None:
        """The newest joint feedback, or ``None`` before the first one."""

    @abstractmethod
    def send(self, q: npt.ArrayLike, now: float) -> None:
        """Send one joint target [rad] (pass-through at the control rate).

        Raises:
            AdapterError: The command could not be sent.
        """

    @abstractmethod
    def reset(self, now: float) -> None:
        """Return to ``initial_q``: a mock jumps there at once; a real arm moves there.

        Raises:
            AdapterError: The arm refused or did not arrive.
        """

    def close(self) -> None:  # noqa: B027  (optional hook)
        """Close the connection; never moves the arm."""
