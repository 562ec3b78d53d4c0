"""What a report page holds: sections of text, findings, tables and figures."""

from __future__ import annotations

import base64
import platform
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

VERSIONED = ("mjscope", "mujoco", "pin", "placo", "numpy", "ray")


@dataclass(frozen=True)
class Finding:
    """One finding: ``severity`` (``error``/``warning``/``info``), code, message, fix, where."""

    severity: str
    code: str
    message: str
    fix: str = ""
    where: str = ""


@dataclass(frozen=True)
class Table:
    """A table: column names and rows of cells (formatted by :func:`cell`)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""

    @classmethod
    def from_records(cls, records: Sequence[Mapping[str, Any]], caption: str = "") -> Table:
        """A table of dicts: the columns are the keys in first-seen order."""
        cols: list[str] = []
        for r in records:
            cols += [k for k in r if k not in cols]
        rows = tuple(tuple(cell(r.get(c, "")) for c in cols) for r in records)
        return cls(tuple(cols), rows, caption)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], caption: str = "") -> Table:
        """A two-column table (name, value) of a flat mapping."""
        rows = tuple((str(k), cell(v)) for k, v in values.items())
        return cls(("name", "value"), rows, caption)


@dataclass(frozen=True)
class Figure:
    """A figure embedded as a base64 PNG (``data``), with its caption."""

    caption: str
    data: str

    @classmethod
    def from_png(cls, path: str | Path, caption: str = "") -> Figure:
        """Embed a PNG file.

        Raises:
            OSError: The file cannot be read.
        """
        p = Path(path)
        return cls(caption or p.stem.replace("_", " "), base64.b64encode(p.read_bytes()).decode())


@dataclass(frozen=True)
class Section:
    """A heading with paragraphs, findings, tables and figures (any of them may be empty)."""

    title: str
    paragraphs: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    tables: tuple[Table, ...] = ()
    figures: tuple[Figure, ...] = ()


@dataclass(frozen=True)
class Report:
    """A whole page.

    Attributes:
        title: The page's heading ("mjscope diagnose · franka_emika_panda/scene.xml").
        verdict: ``PASS``/``FAIL``/``OK``/``WARN``… shown as a badge, or ``""``.
        summary: One line under the title.
        sections: The body, in order.
        command: The command line that produced the run.
        versions: Package versions (default: :func:`versions`).
        links: ``(label, href)`` pairs (the demo's index).
    """

    title: str
    verdict: str = ""
    summary: str = ""
    sections: tuple[Section, ...] = ()
    command: str = field(default_factory=lambda: command_line())
    versions: Mapping[str, str] = field(default_factory=lambda: versions())
    links: tuple[tuple[str, str], ...] = ()


def cell(value: Any) -> str:
    """A table cell: floats to 4 significant digits, lists joined, ``None`` empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ", ".join(cell(v) for v in value)
    return str(value)


_ARGV: list[list[str]] = []  # the arguments of the command running now (set by the CLI)


def set_command(argv: Sequence[str]) -> None:
    """Remember the running command's arguments (``mjscope.cli.main`` calls it)."""
    _ARGV[:] = [list(argv)]


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command as a user would type it (``mjscope …``)."""
    if argv is None:
        argv = _ARGV[0] if _ARGV else sys.argv[1:]
    return shlex.join(["mjscope", *argv])


def versions() -> dict[str, str]:
    """Python, the platform and the installed versions of :data:`VERSIONED`."""
    out = {"python": platform.python_version(), "platform": platform.platform(terse=True)}
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out
