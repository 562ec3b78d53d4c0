"""The package's shape: no import circles, rooms talk downward only (DESIGN.md, "Layout").

Every import in ``src/mjscope`` is read from the source (module level, inside functions and
under ``TYPE_CHECKING`` alike), so a circle hidden by a function-level import is found too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mjscope

ROOT = Path(mjscope.__file__).parent
#: Shared layers: used by two or more features; they never import a feature or the CLI.
SHARED = {
    "models",
    "sim",
    "control",
    "bridge",
    "runner",
    "config",
    "exceptions",
    "paths",
    "signals",
    "rig",
    "lazy",
    "progress",
    "text",
    "report",
}
#: Feature packages: one per command; they import shared layers and themselves only.
FEATURES = {"diagnose", "mirror", "hand", "teleop", "dock"}
#: Entry points on top: they may import anything below them.
TOP = {"cli", "benchmarks", "__main__", "_console"}


def module_name(path: Path) -> str:
    parts = ["mjscope", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}
# compiled modules, through their stubs (they import nothing of ours)
MODULES |= {
    module_name(p): p for p in sorted(ROOT.rglob("*.pyi")) if not p.with_suffix(".py").exists()
}


def imports_of(name: str) -> set[str]:
    """The mjscope modules ``name`` imports, wherever in the file the import stands."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.add(sub if sub in MODULES else base)
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: imports_of(name) for name in MODULES}


def room(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "mjscope"


def find_cycle() -> list[str] | None:
    """One import cycle as a list of modules, or ``None``."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(GRAPH[n]):
            if state.get(m) == 1:
                return [*stack[stack.index(m) :], m]
            if m not in state and (c := visit(m)) is not None:
                return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(GRAPH):
        if n not in state and (c := visit(n)) is not None:
            return c
    return None


def test_the_graph_is_read_from_real_imports() -> None:
    # Guards against a parser that finds nothing (then every check below would pass).
    assert "mjscope.mirror.loop" in GRAPH["mjscope.mirror.session"]
    assert "mjscope.bridge.messages" in GRAPH["mjscope.bridge.validation"]
    assert len(MODULES) > 80 and sum(map(len, GRAPH.values())) > 200


def test_no_import_cycles() -> None:
    assert find_cycle() is None, " -> ".join(find_cycle() or [])


def test_every_module_is_in_a_known_room() -> None:
    rooms = {room(n) for n in MODULES}
    assert rooms <= SHARED | FEATURES | TOP | {"mjscope"}, rooms - (SHARED | FEATURES | TOP)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_rooms_talk_downward_only(name: str) -> None:
    here = room(name)
    if here in TOP:
        return
    allowed = SHARED | {"mjscope"} | ({here} if here in FEATURES else set())
    wrong = sorted(m for m in GRAPH[name] if room(m) not in allowed)
    assert not wrong, f"{name} ({here}) imports {wrong}"


def test_the_old_rooms_are_gone() -> None:
    assert not (ROOT / "experiments").exists()
    assert not (ROOT / "sim" / "env.py").exists() and not (ROOT / "control" / "config.py").exists()
    for kept in ("messages", "validation", "transport"):
        assert (ROOT / "bridge" / kept).with_suffix("" if kept == "transport" else ".py").exists()
    extra = {p.stem for p in (ROOT / "bridge").glob("*.py")} - {
        "__init__",
        "messages",
        "validation",
    }
    assert not extra, f"bridge/ holds only messages, validation and transports: {extra}"
