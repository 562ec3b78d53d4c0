"""Render a :class:`~mjscope.report.model.Report` to one HTML page (jinja2, autoescaped)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from mjscope.paths import write_text
from mjscope.report.model import Report

_TEMPLATE = "report.html.j2"


def render_html(report: Report) -> str:
    """The page as text (every value escaped; figures inline)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("mjscope.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    created = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return env.get_template(_TEMPLATE).render(r=report, created=created)


def write_html(path: str | Path, report: Report) -> Path:
    """Write the page whole (an earlier file is replaced only by a complete new one).

    Raises:
        OutputError: The file cannot be written.
    """
    return write_text(path, render_html(report))
