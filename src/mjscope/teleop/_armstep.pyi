"""Types of the compiled engaged arm cycle (``_armstep.c``; it imports ``_chain``'s C API)."""

from typing import Any

from mjscope.teleop.cycle import Cycle

class Stepper:
    """One arm's engaged cycle (built by :func:`mjscope.teleop.native_step.stepper`)."""

    def __init__(
        self,
        objects: tuple[Any, ...],
        numbers: tuple[float, ...],
        idx: tuple[int, ...],
        addresses: tuple[int, int, int, int],
        ring_rows: int,
        /,
    ) -> None: ...
    def step(self, now: float, ctrl: Any, rx: float | None, /) -> Cycle | None:
        """The plain engaged cycle's record, or ``None`` (the Python path runs the cycle)."""

def chain_version() -> int:
    """The ``_chain`` C API version in use."""
