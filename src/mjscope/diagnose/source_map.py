"""Where in the MJCF each element is: ``path:line``, ``<include>`` files followed.

A finding names its element (``geom 'foot'``, ``actuator#3``, ``base_link/geom#2``); this
module finds the file and line that element was written on, so the report reads like a
compiler's (``scene.xml:42: warning: ...``) and an editor can jump there.

The MJCF is read with ``expat`` (line numbers, no extra dependency). Elements are matched by
name, unnamed ones by their index: MuJoCo numbers bodies, joints, geoms and sites in the
depth-first order of ``<worldbody>``, and actuators, equalities, tendons, pairs and keyframes
in the order they are written. The index is trusted only when the file has exactly as many
elements of that kind as the compiled model (a ``<replicate>``, ``<attach>`` or a URDF
breaks the count; those elements are then matched by name only). ``<default>`` blocks are
skipped: a ``<geom>`` there is a class, not an element.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from dataclasses import replace
from pathlib import Path

import mujoco

from mjscope.diagnose.checks.base import Finding

_O = mujoco.mjtObj
_ACTUATORS = {
    "general", "motor", "position", "velocity", "intvelocity", "damper", "cylinder", "muscle",
    "adhesion", "plugin",
}  # fmt: skip
_SECTION_KINDS = {
    "actuator": ("actuator", _ACTUATORS),
    "equality": ("equality", {"connect", "weld", "joint", "tendon", "flex", "distance"}),
    "tendon": ("tendon", {"fixed", "spatial"}),
    "contact": ("pair", {"pair"}),
    "keyframe": ("key", {"key"}),
}
_TREE_KINDS = {
    "body": "body",
    "joint": "joint",
    "freejoint": "joint",
    "geom": "geom",
    "site": "site",
}
_OBJ = {
    "body": _O.mjOBJ_BODY, "joint": _O.mjOBJ_JOINT, "geom": _O.mjOBJ_GEOM, "site": _O.mjOBJ_SITE,
    "actuator": _O.mjOBJ_ACTUATOR, "equality": _O.mjOBJ_EQUALITY, "tendon": _O.mjOBJ_TENDON,
    "pair": _O.mjOBJ_PAIR, "key": _O.mjOBJ_KEY,
}  # fmt: skip
_COUNT = {
    "body": "nbody", "joint": "njnt", "geom": "ngeom", "site": "nsite", "actuator": "nu",
    "equality": "neq", "tendon": "ntendon", "pair": "npair", "key": "nkey",
}  # fmt: skip
MAX_FILES = 64  # includes followed at most (a cycle stops here)


class SourceMap:
    """``(kind, id) → 'path:line'`` for one compiled model and its MJCF.

    Args:
        model: The compiled model.
        path: Its top-level MJCF file.
    """

    def __init__(self, model: mujoco.MjModel, path: Path) -> None:
        self.model = model
        self.main = path
        # per kind: (name, 'path:line', body index in depth-first order) in file order
        self.seen: dict[str, list[tuple[str | None, str, int]]] = {k: [] for k in _OBJ}
        self.bodies: list[int] = [0]  # the open <body> elements' indices
        self.option: str | None = None
        self.compiler: str | None = None
        self.files = 0
        self._read(path)
        self.seen["body"].insert(0, (None, f"{path}:1", 0))  # the world
        for kind in ("joint", "geom", "site"):  # MuJoCo numbers them body by body
            self.seen[kind].sort(key=lambda row: row[2])
        self.by_name = {
            kind: {n: loc for n, loc, _ in reversed(rows) if n} for kind, rows in self.seen.items()
        }  # the first element of a name wins

    def _read(self, path: Path) -> None:
        self.files += 1
        if self.files > MAX_FILES:
            return
        parser = xml.parsers.expat.ParserCreate()
        stack: list[str] = []

        def start(tag: str, attrs: dict[str, str]) -> None:
            stack.append(tag)
            if "default" in stack:
                return
            where = f"{path}:{parser.CurrentLineNumber}"
            if tag == "include" and "file" in attrs:
                self._include(path, attrs["file"])
            elif tag == "option" and self.option is None:
                self.option = where
            elif tag == "compiler" and self.compiler is None:
                self.compiler = where
            elif "worldbody" in stack and tag in _TREE_KINDS:
                if tag == "body":
                    self.bodies.append(len(self.seen["body"]) + 1)
                owner = self.bodies[-1] if tag != "body" else self.bodies[-2]
                self.seen[_TREE_KINDS[tag]].append((attrs.get("name"), where, owner))
            else:
                for section, (kind, tags) in _SECTION_KINDS.items():
                    if section in stack[:-1] and tag in tags:
                        self.seen[kind].append((attrs.get("name"), where, 0))

        def end(tag: str) -> None:
            stack.pop()
            if tag == "body" and "worldbody" in stack and "default" not in stack:
                self.bodies.pop()

        parser.StartElementHandler = start
        parser.EndElementHandler = end
        try:
            parser.Parse(path.read_bytes(), True)
        except (OSError, xml.parsers.expat.ExpatError):
            return  # the model compiled, so MuJoCo read it; without lines findings still stand

    def _include(self, path: Path, name: str) -> None:
        for base in (path.parent, self.main.parent):
            candidate = base / name
            if candidate.is_file():
                self._read(candidate)
                return

    def where(self, kind: str, idx: int) -> str | None:
        """``path:line`` of element ``idx`` of ``kind`` (``None`` when it cannot be told)."""
        rows = self.seen.get(kind, [])
        name = mujoco.mj_id2name(self.model, _OBJ[kind], idx) if kind in _OBJ else None
        if name and name in self.by_name[kind]:
            return self.by_name[kind][name]
        if len(rows) == int(getattr(self.model, _COUNT[kind])) and 0 <= idx < len(rows):
            return rows[idx][1]
        return None


_LABEL = re.compile(r"^(body|joint|geom|site|actuator|equality|tendon|pair|key)s? '([^']*)'")
_ID = re.compile(r"#(\d+)$")


def _element(model: mujoco.MjModel, label: str) -> tuple[str, int] | None:
    """(kind, id) of a finding's element label (``geom 'foot'``, ``geoms 'a' / 'b'``)."""
    m = _LABEL.match(label)
    if not m:
        return None
    kind, name = m.group(1), m.group(2)
    if kind == "geom" and " / '" in label:  # a pair: the geom that is not the world's
        names = re.findall(r"'([^']*)'", label)
        ids = [i for i in (_id(model, "geom", n) for n in names) if i is not None]
        moving = [i for i in ids if model.geom_bodyid[i] != 0]
        return ("geom", (moving or ids)[0]) if ids else None
    idx = _id(model, kind, name)
    return (kind, idx) if idx is not None else None


def _id(model: mujoco.MjModel, kind: str, name: str) -> int | None:
    idx = mujoco.mj_name2id(model, _OBJ[kind], name)
    if idx >= 0:
        return int(idx)
    m = _ID.search(name)
    return int(m.group(1)) if m else None


def locate(
    findings: list[Finding], model: mujoco.MjModel, source: str | Path | None
) -> list[Finding]:
    """``findings`` with ``source`` set to the file and line of each one's element.

    Args:
        findings: The findings.
        model: The compiled model.
        source: Its MJCF file (``None``, a bundled name or a URDF: nothing is located).
    """
    if not findings or source is None or Path(source).suffix.lower() != ".xml":
        return findings
    if not Path(source).is_file():
        return findings
    sm = SourceMap(model, Path(source))
    out = []
    for f in findings:
        if f.element.startswith("option"):
            loc = sm.option
        elif f.element.startswith("compiler"):
            loc = sm.compiler
        else:
            el = _element(model, f.element)
            loc = sm.where(*el) if el else None
        out.append(replace(f, source=loc) if loc else f)
    return out
