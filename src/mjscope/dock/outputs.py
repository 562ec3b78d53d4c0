"""The ``--json`` summary and the ``--html`` page of a dock run, written after it.

The page embeds the run's figures; when ``--plot`` was not given they are drawn into a
temporary folder (:func:`figures_for_page`) that is removed once the page is written.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from mjscope.paths import STDOUT, check_writable, write_json
from mjscope.report import Report, write_html


def check_outputs(json_path: str | None, html: str | None) -> None:
    """Both outputs are checked writable before the run (``-`` is stdout)."""
    for path in (json_path, html):
        if path is not None and path != STDOUT:
            check_writable(path)


def pngs(files: Sequence[Path], prefix: str = "") -> list[Path]:
    """The PNG files of ``files`` whose name starts with ``prefix``."""
    return [f for f in files if f.suffix == ".png" and f.name.startswith(prefix)]


@contextlib.contextmanager
def figures_for_page(
    wanted: bool, have: Sequence[Path], draw: Callable[[Path], Sequence[Path]]
) -> Iterator[list[Path]]:
    """The PNGs for the page (none when no page is wanted).

    ``have`` when not empty, else ``draw(tmp)``'s, in a temporary folder removed on exit.
    """
    if not wanted or have:
        yield list(have) if wanted else []
        return
    tmp = Path(tempfile.mkdtemp(prefix="mjscope-dock-figures-"))
    try:
        yield pngs(draw(tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def write_outputs(
    con: Console,
    json_path: str | None,
    summary: dict[str, Any],
    html: str | None,
    page: Callable[[], Report],
) -> None:
    """Write the JSON summary (``-``: stdout alone) and the HTML page; say where."""
    if html is not None:
        con.print(f"wrote {write_html(html, page())}")
    if json_path is not None:
        written = write_json(json_path, summary)
        if json_path != STDOUT:
            con.print(f"wrote {written}")
