"""Rules on the model's source file: ``<default>`` inheritance in MJCF, what a URDF lacks.

- DEFAULT_CLASS_DEEP: a ``<default>`` class nested more than :data:`MAX_DEPTH` levels below
  the main one (S1.12: "a deep inheritance chain hides where a value comes from").
- DEFAULT_CLASS_WIDE: a class overriding more than :data:`MAX_OVERRIDES` attributes (S1.12:
  "each class should override only a few key fields").
- URDF_NO_ACTUATORS / URDF_NO_SENSORS: a URDF has no ``<actuator>`` or ``<sensor>`` section
  (MuJoCo's URDF import makes none); info, with how to add them.

The MJCF is read with ``xml.etree`` (following ``<include file=…>`` relative to the including
file); an unreadable file yields nothing here (loading has already reported it).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco

from mjscope.diagnose.checks.base import Finding

MAX_DEPTH = 3  # class levels below the main default [1]
MAX_OVERRIDES = 12  # attributes one class sets [1]


def source_checks(model: mujoco.MjModel, source: str | Path | None) -> list[Finding]:
    """The rules for the file ``source`` (nothing for a bundled name or ``None``)."""
    if source is None:
        return []
    p = Path(source)
    if not p.is_file():
        return []
    if p.suffix.lower() == ".urdf":
        return urdf_rules(model)
    return default_rules(p)


def urdf_rules(model: mujoco.MjModel) -> list[Finding]:
    """URDF_NO_ACTUATORS and URDF_NO_SENSORS (info)."""
    out = []
    if model.nu == 0:
        out.append(
            Finding(
                "URDF_NO_ACTUATORS",
                "info",
                "URDF",
                f"the URDF gave {model.njnt} joints and no actuators: ctrl has size 0, nothing "
                "drives the joints",
                "add a <mujoco> MJCF that <include>s the model (or save it with mj_saveLastXML) "
                'and an <actuator> section, e.g. <position joint="…" kp="…" ctrlrange="…"/>',
            )
        )
    if model.nsensor == 0:
        out.append(
            Finding(
                "URDF_NO_SENSORS",
                "info",
                "URDF",
                "the URDF gave no sensors: sensordata is empty",
                'add a <sensor> section to the MJCF, e.g. <jointpos joint="…"/>, '
                '<framequat objtype="site" objname="…"/>, <touch site="…"/>',
            )
        )
    return out


def default_rules(path: Path) -> list[Finding]:
    """DEFAULT_CLASS_DEEP and DEFAULT_CLASS_WIDE (info) for an MJCF file and its includes."""
    out: list[Finding] = []
    for root in _roots(path, set()):
        for top in root.iter("default"):
            if top in _nested(root):
                continue
            _walk(top, 0, out)
    return out


def _roots(path: Path, seen: set[Path]) -> list[ET.Element]:
    p = path.resolve()
    if p in seen:
        return []
    seen.add(p)
    try:
        root = ET.parse(p).getroot()
    except (ET.ParseError, OSError):
        return []
    out = [root]
    for inc in root.iter("include"):
        f = inc.get("file")
        if f:
            out += _roots(p.parent / f, seen)
    return out


def _nested(root: ET.Element) -> set[ET.Element]:
    """The ``<default>`` elements inside another ``<default>``."""
    return {d for outer in root.iter("default") for d in outer if d.tag == "default"}


def _walk(node: ET.Element, depth: int, out: list[Finding]) -> None:
    name = node.get("class", "main")
    if depth > MAX_DEPTH:
        out.append(
            Finding(
                "DEFAULT_CLASS_DEEP",
                "info",
                f"default class '{name}'",
                f"nested {depth} levels below the main default (> {MAX_DEPTH}): a value's source "
                "is hard to find",
                "flatten the classes: a few levels (robot → visual/collision) are enough",
            )
        )
    n = sum(len(c.attrib) for c in node if c.tag != "default")
    if n > MAX_OVERRIDES:
        out.append(
            Finding(
                "DEFAULT_CLASS_WIDE",
                "info",
                f"default class '{name}'",
                f"sets {n} attributes (> {MAX_OVERRIDES}): it overrides much of what it inherits",
                "keep each class to the few key fields it exists for; set the rest on elements",
            )
        )
    for child in node:
        if child.tag == "default":
            _walk(child, depth + 1, out)
