"""Bundled models, registered by name.

Each module in :mod:`mjscope.models.robots` registers its builders with :func:`register`;
a builder returns an uncompiled ``mujoco.MjSpec``. Modules are discovered on first use, so a
new robot is one new file.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mujoco

from mjscope.exceptions import UnknownNameError

Builder = Callable[..., mujoco.MjSpec]


@dataclass(frozen=True)
class ModelEntry:
    """A bundled model.

    Attributes:
        name: Registry name (``mjscope models`` lists it).
        kind: Short category: ``arm``, ``dual-arm``, ``hand``, ``legged``, ``mechanism``, ...
        description: One line saying what it is.
        builder: Returns the ``MjSpec``; keyword arguments are model options.
    """

    name: str
    kind: str
    description: str
    builder: Builder


_REGISTRY: dict[str, ModelEntry] = {}
_discovered = False


def register(name: str, kind: str, description: str) -> Callable[[Builder], Builder]:
    """Decorator registering a spec builder under ``name``.

    Args:
        name: Registry name.
        kind: Short category.
        description: One-line description.

    Returns:
        The decorator (returns the builder unchanged).
    """

    def deco(fn: Builder) -> Builder:
        _REGISTRY[name] = ModelEntry(name, kind, description, fn)
        return fn

    return deco


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    import mjscope.models.robots as robots

    for info in sorted(pkgutil.iter_modules(robots.__path__), key=lambda i: i.name):
        if not info.name.startswith("_") and not info.name.endswith("_constants"):
            importlib.import_module(f"{robots.__name__}.{info.name}")
    _discovered = True


def entries() -> list[ModelEntry]:
    """All bundled models, sorted by name."""
    _discover()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def names() -> list[str]:
    """All bundled model names, sorted."""
    return [e.name for e in entries()]


def get(name: str) -> ModelEntry:
    """The entry for a bundled model.

    Raises:
        UnknownNameError: ``name`` is not bundled (the message lists the known names).
    """
    _discover()
    if name not in _REGISTRY:
        raise UnknownNameError(
            "model", name, _REGISTRY, "Run `mjscope models` to list them, or pass a file path"
        )
    return _REGISTRY[name]


def build_spec(name: str, **options: Any) -> mujoco.MjSpec:
    """Build the spec of a bundled model.

    Args:
        name: Bundled model name.
        **options: Passed to the model's builder.

    Returns:
        A fresh ``MjSpec``.
    """
    return get(name).builder(**options)
