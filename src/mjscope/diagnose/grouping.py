"""Grouped findings: one line per code and severity for a family of elements.

Thirty actuators without limits are one problem said thirty times; the terminal shows it once,
with the count and the first names (``--verbose``: one line per element). The JSON report
keeps every finding and adds the groups.
"""

from __future__ import annotations

from typing import Any

SHOWN = 4  # element names listed in a group's line


def group_findings(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Group finding dicts by (code, severity), in the order the codes first appear.

    Returns:
        One dict per group: ``code``, ``severity``, ``count``, ``elements`` (all, in order),
        ``element`` (the family with the count and the first names), ``message`` (the first
        finding's, with how many more), ``fix``, ``source`` (the first's, or ``None``).
    """
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for c in checks:
        groups.setdefault((c["code"], c["severity"]), []).append(c)
    return [_group(members) for members in groups.values()]


def _group(members: list[dict[str, Any]]) -> dict[str, Any]:
    first = members[0]
    n = len(members)
    elements = [m["element"] for m in members]
    out = {
        "code": first["code"],
        "severity": first["severity"],
        "count": n,
        "elements": elements,
        "element": first["element"] if n == 1 else _family(elements),
        "message": first["message"],
        "fix": first["fix"],
        "source": first.get("source"),
    }
    if n > 1:
        out["message"] = f"{first['message']} (first of {n}; --verbose lists each)"
    return out


def _family(elements: list[str]) -> str:
    """``3 actuators: 'a', 'b', 'c'`` from ``actuator 'a'`` ... (mixed kinds: ``3 elements``)."""
    kinds = {e.split(" ", 1)[0] for e in elements}
    if len(kinds) == 1 and all(" " in e for e in elements):
        kind = kinds.pop()
        names = [e.split(" ", 1)[1] for e in elements]
    else:
        kind, names = "element", elements
    plural = kind if kind.endswith("s") else f"{kind}s"
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return f"{len(elements)} {plural}: {', '.join(names[:SHOWN])}{more}"
