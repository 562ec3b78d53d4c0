"""YAML configuration into frozen dataclasses, with unknown keys as errors.

Defaults live in the dataclasses; a YAML file only overrides them. Nested dataclass fields
are filled recursively. Package data is read with :mod:`importlib.resources`.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import yaml

from mjscope.exceptions import ConfigError

T = TypeVar("T")


MAX_YAML_BYTES = 16 * 1024 * 1024
"""Largest YAML file any command reads [bytes]; a larger one is refused before parsing."""

MAX_YAML_DEPTH = 64
"""Deepest nesting of mappings and lists a YAML file may have (ours nest 4 deep at most)."""


class _TooDeep(yaml.YAMLError):
    """A document nested deeper than :data:`MAX_YAML_DEPTH`."""


class _CappedLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses nesting deeper than :data:`MAX_YAML_DEPTH`."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark
                raise _TooDeep(f"nests deeper than {MAX_YAML_DEPTH} levels at line {mark.line + 1}")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_yaml_text(text: str, where: str) -> Any:
    """Parse YAML text with the safe loader behind the size and depth caps.

    Args:
        text: The document.
        where: The file (or option) it came from, for messages.

    Returns:
        The parsed document (any YAML value; ``None`` for an empty one).

    Raises:
        ConfigError: Too large, nested too deep, or not valid YAML.
    """
    if len(text) > MAX_YAML_BYTES:
        raise ConfigError(
            f"{where} is {len(text) / 2**20:.0f} MiB, over the {MAX_YAML_BYTES // 2**20} MiB "
            "YAML limit; pass a smaller file"
        )
    try:
        return yaml.load(text, Loader=_CappedLoader)
    except RecursionError as e:  # pragma: no cover - the depth cap fires first
        raise ConfigError(f"{where} is nested too deep to read; flatten it") from e
    except _TooDeep as e:
        raise ConfigError(f"{where} {e}; no mjscope file needs that, flatten it") from e
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        if mark is None:
            raise ConfigError(f"{where} is not valid YAML ({e}): fix the file") from e
        raise ConfigError(
            f"{where} is not valid YAML at line {mark.line + 1}: fix the syntax"
        ) from e


def read_yaml_any(path: str | Path) -> Any:
    """Read a YAML file (any top-level value) through the caps of :func:`load_yaml_text`.

    Raises:
        ConfigError: The file is missing, unreadable, too large, too deep or not YAML.
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"config file {str(p)!r} not found; pass an existing YAML file")
    try:
        size = p.stat().st_size
        if size > MAX_YAML_BYTES:
            raise ConfigError(
                f"config file {str(p)!r} is {size / 2**20:.0f} MiB, over the "
                f"{MAX_YAML_BYTES // 2**20} MiB YAML limit; pass a smaller file"
            )
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:  # no permission, or a binary file
        why = e.strerror if isinstance(e, OSError) else "not UTF-8 text"
        raise ConfigError(f"cannot read config file {str(p)!r}: {why}; pass a YAML file") from e
    return load_yaml_text(text, f"config file {str(p)!r}")


def read_yaml(path: str | Path) -> dict[str, Any]:
    """Read a YAML mapping from a file (size and depth capped).

    Args:
        path: File to read.

    Returns:
        The top-level mapping (empty for an empty file).

    Raises:
        ConfigError: The file is missing, unreadable, too large, too deep, not YAML, or not a
            mapping.
    """
    data = read_yaml_any(path)
    if data is None:
        return {}
    if not isinstance(data, dict):
        p = str(Path(path))
        raise ConfigError(f"config file {p!r} must hold a mapping, got {type(data).__name__}")
    return data


def ros_parameters(data: dict[str, Any], where: str = "config") -> dict[str, Any]:
    """The parameters of a ROS 2 parameter file, or ``data`` itself when it is not one.

    A ROS 2 node's YAML nests its parameters as ``<node>: {ros__parameters: {...}}``; such a
    file (one node) reads the same as the flat mapping, so a rig's launch files keep working.

    Args:
        data: The file's top-level mapping.
        where: The file, for messages.

    Returns:
        The node's parameters, or ``data`` unchanged.

    Raises:
        ConfigError: Several nodes, or ``ros__parameters`` that is not a mapping.
    """
    wrapped = {k: v for k, v in data.items() if isinstance(v, dict) and "ros__parameters" in v}
    if not wrapped:
        return data
    if len(data) != 1 or len(wrapped) != 1:
        raise ConfigError(
            f"{where}: holds ROS 2 parameters of several nodes ({', '.join(map(str, data))}); "
            "give one node's ros__parameters per file"
        )
    node, body = next(iter(wrapped.items()))
    params = body["ros__parameters"]
    if set(body) != {"ros__parameters"} or not isinstance(params, dict):
        raise ConfigError(f"{where}: {node}.ros__parameters must be the node's only key, a mapping")
    return params


def package_data_path(*parts: str) -> Path:
    """Path of a file under ``mjscope/data``.

    Args:
        *parts: Path components below ``data/`` (e.g. ``"config", "dual_arm_rm75.yaml"``).

    Returns:
        A filesystem path to the packaged file.
    """
    root = resources.files("mjscope").joinpath("data")
    for part in parts:
        root = root.joinpath(part)
    return Path(str(root))


def from_dict(cls: type[T], data: dict[str, Any], where: str = "config") -> T:
    """Build a (frozen) dataclass from a mapping, rejecting unknown keys.

    Args:
        cls: The dataclass type.
        data: Values that override the dataclass defaults.
        where: Location used in error messages (e.g. the file and section).

    Returns:
        An instance of ``cls``.

    Raises:
        ConfigError: Unknown key, missing required key, or a value of the wrong kind.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping, got {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; "
            f"valid keys: {', '.join(sorted(fields))}"
        )
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        kwargs[name] = _coerce(hints[name], value, f"{where}.{name}")
    try:
        return cls(**kwargs)
    except TypeError as e:
        raise ConfigError(f"{where}: {e}") from e


def _coerce(tp: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return from_dict(tp, value, where)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _coerce(inner[0], value, where) if len(inner) == 1 else value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected an integer, got {value!r}")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true/false, got {value!r}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_coerce(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise ConfigError(f"{where}: expected {len(args)} values, got {len(value)}")
        return tuple(
            _coerce(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=True))
        )
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a mapping, got {value!r}")
        _, vt = typing.get_args(tp)
        return {str(k): _coerce(vt, v, f"{where}.{k}") for k, v in value.items()}
    return value
