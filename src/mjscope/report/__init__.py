"""One self-contained HTML page per run: command line, versions, verdict, findings, tables, figures.

A feature builds a :class:`Report` from what its run produced and writes it with
:func:`write_html`; the page embeds every figure (base64 PNG), so it opens offline, mailed or
attached to an issue. No feature logic lives here.
"""

from mjscope.report.model import Figure, Finding, Report, Section, Table
from mjscope.report.render import render_html, write_html

__all__ = ["Figure", "Finding", "Report", "Section", "Table", "render_html", "write_html"]
