"""Package faces that import their members on first use (so light commands stay light)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``exports[name]`` when ``name`` is first used.

    Args:
        package: The package's ``__name__`` (for the error message).
        exports: Public name → the module that defines it.

    Returns:
        The ``__getattr__`` to assign in the package's ``__init__``.
    """

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(exports[name]), name)

    return __getattr__
