"""A live progress line for long runs (rich, on stderr): what, done/total, sim time, rate, ETA.

Shown only on a terminal; in a pipe, a log or a test it prints nothing, so outputs that scripts
read stay clean. Cheap enough to call often: the display is redrawn at most ten times a second.
"""

from __future__ import annotations

import os
import sys
import time
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress

_MIN_REDRAW_S = 0.1


def progress_wanted(show: bool | None = None) -> bool:
    """Whether a progress line should be drawn.

    Args:
        show: ``True``/``False`` to force; ``None``: when stderr is a terminal (not ``TERM=dumb``).
    """
    if show is not None:
        return show
    return sys.stderr.isatty() and os.environ.get("TERM", "") != "dumb"


class RunProgress:
    """A progress line for one run, used as a context manager.

    Args:
        what: What runs ("diagnose rollout", "teleop demo").
        total: Items to do (steps, cycles, trials), or ``None`` when unknown.
        unit: What an item is called, for the count and the rate ("steps").
        dt: Simulated time per item [s]; when given, the line shows the sim time reached.
        show: ``True``/``False`` to force; ``None``: only when stderr is a terminal.
    """

    def __init__(
        self,
        what: str,
        total: float | None = None,
        unit: str = "steps",
        dt: float | None = None,
        show: bool | None = None,
    ) -> None:
        self.what, self.total, self.unit, self.dt = what, total, unit, dt
        self.done = 0.0
        self._status = ""
        self._last = 0.0
        self._t0 = time.monotonic()
        self._bar: RichProgress | None = None
        if progress_wanted(show):
            self._bar = RichProgress(
                TextColumn("[bold]{task.description}"),
                BarColumn(bar_width=24),
                MofNCompleteColumn(),
                TextColumn(unit),
                TaskProgressColumn(),
                TextColumn("{task.fields[sim]}{task.fields[rate]}{task.fields[status]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                refresh_per_second=10,
            )
            self._task = self._bar.add_task(what, total=total, sim="", rate="", status="")

    @property
    def shown(self) -> bool:
        """Whether the line is drawn."""
        return self._bar is not None

    def __enter__(self) -> RunProgress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(
        self,
        et: type[BaseException] | None,
        ev: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._redraw()
            self._bar.stop()

    def update(self, done: float, status: str | None = None) -> None:
        """Items done so far; ``status`` is a short note shown after the rate (``"2 faults"``)."""
        self.done = done
        if status is not None:
            self._status = f"  {status}"
        if self._bar is None:
            return
        now = time.monotonic()
        if now - self._last >= _MIN_REDRAW_S:
            self._last = now
            self._redraw()

    def advance(self, n: float = 1.0, status: str | None = None) -> None:
        """``n`` more items done."""
        self.update(self.done + n, status)

    def _redraw(self) -> None:
        assert self._bar is not None
        elapsed = max(time.monotonic() - self._t0, 1e-9)
        sim = f"  t={self.done * self.dt:.2f} s" if self.dt is not None else ""
        rate = f"  {self.done / elapsed:,.0f} {self.unit}/s"
        self._bar.update(self._task, completed=self.done, sim=sim, rate=rate, status=self._status)
