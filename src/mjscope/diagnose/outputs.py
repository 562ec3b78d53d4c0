"""How diagnose writes its files: an earlier output is only ever replaced by a complete one.

The naming rule, for every file diagnose writes (``--csv``, ``--json``, ``--plot`` PNGs, the
demo's report): the content goes first to ``<stem>.partial<suffix>`` beside the target
(``run.csv`` → ``run.partial.csv``) and is renamed over the target once it is complete.

- The CSV streams row blocks during the rollout. When the rollout is interrupted (Ctrl-C,
  SIGTERM) or fails, ``run.partial.csv`` stays: the rows recorded so far, whole rows only,
  readable by ``mjscope diagnose compare``; ``run.csv`` is untouched. :class:`Interrupted`
  carries its path so the command can say where it is.
- JSON, text and PNG files are written whole in one go: a failed write leaves nothing behind
  but the earlier file.

:func:`~mjscope.signals.sigterm_as_interrupt` (re-exported here) makes SIGTERM end a command
like Ctrl-C, so the same clean-up runs (the CSV writer process is stopped, the partial file is
named).
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mjscope.exceptions import OutputError
from mjscope.signals import sigterm_as_interrupt as sigterm_as_interrupt

logger = logging.getLogger(__name__)

PARTIAL = ".partial"


def partial_path(path: str | Path) -> Path:
    """The file an output is written to until it is complete: ``x.csv`` → ``x.partial.csv``."""
    p = Path(path)
    return p.with_name(f"{p.stem}{PARTIAL}{p.suffix}")


def commit(partial: Path, final: Path) -> Path:
    """Rename the complete ``partial`` over ``final`` (atomic on one file system).

    Raises:
        OutputError: The rename failed; ``partial`` is left where it is.
    """
    try:
        os.replace(partial, final)
    except OSError as e:
        raise OutputError(
            f"cannot rename {str(partial)!r} to {str(final)!r}: {e.strerror}; "
            "the complete file is the partial one, rename it yourself"
        ) from e
    return final


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped a rollout; ``kept`` names the partial files it left.

    A ``KeyboardInterrupt``, so everything that handles Ctrl-C handles it (exit code 130).

    Args:
        kept: ``(partial, final)`` path pairs: the rows so far are in ``partial``; ``final``
            (an earlier output, if any) is unchanged.
    """

    def __init__(self, kept: tuple[tuple[Path, Path], ...] = ()) -> None:
        super().__init__(kept)
        self.kept = kept

    def __reduce__(self) -> tuple[type, tuple[tuple[tuple[Path, Path], ...]]]:
        # Rebuilt from ``kept``, so it survives a process pool's pickling.
        return type(self), (self.kept,)

    def lines(self) -> list[str]:
        """One line per kept file, saying where the partial rows are."""
        return [f"interrupted: the rows so far are in {p} ({f} not changed)" for p, f in self.kept]


@contextmanager
def third_party_warnings_to_log() -> Iterator[None]:
    """Python warnings raised inside go to this module's logger (debug), not the terminal.

    For library calls whose warnings the user cannot act on (matplotlib layout and legend
    notes, NumPy arithmetic on a diverged run's NaN/inf): they are recorded while inside and
    logged, so ``-v -v`` still shows them. The user's own warning filters are untouched outside.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        logger.debug("%s: %s (%s:%s)", w.category.__name__, w.message, w.filename, w.lineno)


def save_figure(fig: Any, path: str | Path, dpi: int = 110) -> Path:
    """Save a matplotlib figure whole: into the partial file, then renamed over ``path``.

    Raises:
        OutputError: The file cannot be written (the partial file is removed).
    """
    final = Path(path)
    part = partial_path(final)
    try:
        fig.savefig(part, dpi=dpi, format=final.suffix.lstrip(".") or "png")
    except OSError as e:
        part.unlink(missing_ok=True)
        raise OutputError(f"cannot write {str(final)!r}: {e.strerror}; choose another") from e
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return commit(part, final)
