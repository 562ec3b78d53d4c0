"""Exceptions raised by mjscope.

Every error a user can cause derives from :class:`MjscopeError`. Its message names the bad
value, what was valid and the fix; the CLI prints it on one line and exits 2.
"""

from __future__ import annotations

from collections.abc import Iterable


class MjscopeError(Exception):
    """Root of all mjscope errors."""


class ConfigError(MjscopeError):
    """A configuration file or value is invalid."""


class ModelLoadError(MjscopeError):
    """A model file or bundled model name could not be loaded."""


class UnknownNameError(MjscopeError, KeyError):
    """A name (joint, model, scene, ...) is not among the known ones."""

    def __init__(self, kind: str, name: str, known: Iterable[str], hint: str = "") -> None:
        self.kind = kind
        self.name = name
        self.known = sorted(known)
        self.hint = hint
        shown = ", ".join(self.known[:40]) + (" ..." if len(self.known) > 40 else "")
        msg = f"unknown {kind} {name!r}; known: {shown or '(none)'}"
        if hint:
            msg += f". {hint}"
        super().__init__(msg)

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[type, tuple[str, str, list[str], str]]:
        # Rebuild from the constructor's arguments (the default would pass only the message),
        # so the error survives a process pool's pickling.
        return type(self), (self.kind, self.name, self.known, self.hint)


class OutputError(MjscopeError):
    """An output path cannot be written."""


class SimulationError(MjscopeError):
    """The simulation became invalid (NaN, divergence) and could not continue."""
