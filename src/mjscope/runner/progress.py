"""Progress of a run on a terminal (rich): items done, failures, retries, ETA; silent in pipes."""

from __future__ import annotations

import sys
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress


class Progress:
    """A progress bar on stderr, shown only when wanted (default: stderr is a terminal).

    Args:
        label: What the items are called ("trials").
        total: Number of items, when known.
        show: ``True``/``False`` to force; ``None``: when stderr is a terminal.
    """

    def __init__(self, label: str, total: int | None, show: bool | None = None) -> None:
        self.failed = self.retried = 0
        self._bar: RichProgress | None = None
        if show is None:
            show = sys.stderr.isatty()
        if show:
            self._bar = RichProgress(
                TextColumn(f"{label}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("failed {task.fields[failed]} retried {task.fields[retried]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
            )
            self._task = self._bar.add_task(label, total=total, failed=0, retried=0)

    def __enter__(self) -> Progress:
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
            self._bar.stop()

    def advance(self, failed: bool) -> None:
        """One item finished (``failed``: after every attempt)."""
        self.failed += failed
        if self._bar is not None:
            self._bar.update(self._task, advance=1, failed=self.failed)

    def note_retry(self, why: str) -> None:
        """An attempt failed and its item will run again."""
        self.retried += 1
        if self._bar is not None:
            self._bar.update(self._task, retried=self.retried)
