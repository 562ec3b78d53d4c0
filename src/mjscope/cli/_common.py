"""Shared CLI pieces: console, model arguments, executor arguments, output folders."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from rich.console import Console

if TYPE_CHECKING:  # models imports MuJoCo: commands that need no model (mock-arm) skip it
    from mjscope.models.loading import LoadOptions
    from mjscope.runner import ExecutorCfg

CfgT = TypeVar("CfgT")


def console(args: argparse.Namespace | None = None, own_quiet: bool = False) -> Console:
    """The command's human output: a rich console on stdout.

    With ``--json -`` it writes to stderr (stdout carries the JSON alone); with ``--quiet`` it
    prints nothing (unless ``own_quiet``: the command's ``--quiet`` means less, not nothing, as
    ``diagnose --quiet`` prints its compiler-style findings and the verdict). Not on a terminal
    (pipes, CI logs) it is plain: text lines are never broken (scripts grep them) and tables
    fit ``COLUMNS`` (default 160), a reader's window.
    """
    to_stderr = getattr(args, "json", None) == "-"
    quiet = bool(getattr(args, "quiet", False)) and not own_quiet
    if (sys.stderr if to_stderr else sys.stdout).isatty():
        return Console(highlight=False, soft_wrap=False, stderr=to_stderr, quiet=quiet)
    return Console(  # lines stay whole for grep; tables lay out within the width
        highlight=False,
        soft_wrap=True,
        width=_env_columns(),
        color_system=None,
        stderr=to_stderr,
        quiet=quiet,
    )


def _env_columns(default: int = 160) -> int:
    try:
        cols = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return default
    return cols if 20 <= cols <= 1000 else default


def is_terminal() -> bool:
    """Whether stdout is an interactive terminal (live status lines and progress bars)."""
    return sys.stdout.isatty()


def add_model_arguments(p: argparse.ArgumentParser) -> None:
    """Options every command that loads a model file accepts."""
    p.add_argument(
        "--package-path",
        action="append",
        default=[],
        metavar="DIR",
        help="folder searched for URDF package:// URIs (repeatable; before ROS_PACKAGE_PATH)",
    )
    p.add_argument(
        "--merge-fixed-links",
        action="store_true",
        help="URDF: merge bodies joined by fixed joints (default keeps them)",
    )
    p.add_argument(
        "--no-visual", action="store_true", help="URDF: drop visual-only geoms (default keeps them)"
    )


def add_map_prefix_argument(p: argparse.ArgumentParser) -> None:
    """``--map-prefix OLD=NEW`` (repeatable): message joint names → model joint names."""
    p.add_argument(
        "--map-prefix",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="rename message joints to model joints by prefix, e.g. left_= (repeatable)",
    )


def add_viewer_argument(p: argparse.ArgumentParser, help_text: str) -> None:
    """``--viewer auto|none|native`` (see :func:`mjscope.sim.viewer.resolve_viewer`)."""
    p.add_argument("--viewer", choices=("auto", "none", "native"), default="auto", help=help_text)


def load_options(args: argparse.Namespace) -> LoadOptions:
    """``LoadOptions`` from the arguments added by :func:`add_model_arguments`."""
    from mjscope.models.loading import LoadOptions

    return LoadOptions(
        package_paths=tuple(args.package_path),
        keep_fixed_links=not args.merge_fixed_links,
        keep_visual=not args.no_visual,
    )


def add_executor_arguments(p: argparse.ArgumentParser) -> None:
    """``--jobs N`` (local processes) and ``--ray auto|local|ADDRESS``."""
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="local worker processes (default: one per CPU; 1: this process)",
    )
    p.add_argument(
        "--ray",
        default=None,
        metavar="auto|local|ADDRESS",
        help="run on Ray (pip install \"mjscope[cluster]\"): 'auto' an existing "
        "cluster, 'local' a private head on 127.0.0.1, or HOST:PORT",
    )


def executor_cfg(args: argparse.Namespace) -> ExecutorCfg:
    """The executor options from :func:`add_executor_arguments`'s arguments."""
    from mjscope.runner import ExecutorCfg

    return ExecutorCfg(jobs=args.jobs, ray=args.ray).check()


def out_dir(path: str | Path) -> Path:
    """Create an output folder (one clear error if it cannot be)."""
    from mjscope.paths import ensure_dir

    return ensure_dir(path)


def add_bus_arguments(p: argparse.ArgumentParser, default: str | None = "dds") -> None:
    """``--transport``, ``--domain-id`` and ``--localhost-only``: the bus options of a command."""
    p.add_argument(
        "--transport",
        choices=("inproc", "dds"),
        default=default,
        help="dds: ROS 2-compatible Cyclone DDS; inproc: this process only",
    )
    p.add_argument("--domain-id", type=int, default=None, help="DDS domain (ROS_DOMAIN_ID)")
    p.add_argument(
        "--localhost-only",
        action="store_true",
        default=None,
        help="DDS on the loopback interface only (also ROS_LOCALHOST_ONLY=1)",
    )


DEFAULT_SIZE = "640x480"


def add_size_argument(p: argparse.ArgumentParser) -> None:
    """``--size WxH``: the frame size of renders (videos and snapshots)."""
    p.add_argument(
        "--size",
        default=DEFAULT_SIZE,
        metavar="WxH",
        help=f"frame size of videos and snapshots [px] (default {DEFAULT_SIZE})",
    )


def parse_size(text: str) -> tuple[int, int]:
    """``"640x480"`` → ``(640, 480)``.

    Raises:
        MjscopeError: Not ``WxH`` with each side from 64 to 3840 px.
    """
    from mjscope.exceptions import MjscopeError

    parts = text.lower().split("x")
    if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
        w, h = (int(p) for p in parts)
        if 64 <= w <= 3840 and 64 <= h <= 3840:
            return w, h
    raise MjscopeError(
        f"--size {text!r}: give WIDTHxHEIGHT in pixels, 64..3840 each, e.g. 1280x720"
    )


def split_list(text: str | None) -> tuple[str, ...]:
    """``"a, b,,c"`` → ``("a", "b", "c")``; ``None`` or empty → ``()``."""
    return tuple(s.strip() for s in (text or "").split(",") if s.strip())


def cfg_from_args(cls: type[CfgT], args: argparse.Namespace, **overrides: Any) -> CfgT:
    """A feature's command config from the parsed arguments of the same names.

    Args:
        cls: A dataclass whose field names match the parser's ``dest`` names.
        args: The parsed arguments; lists become tuples (configs are frozen).
        **overrides: Fields that need a conversion or have no argument of their name.

    Returns:
        ``cls(**fields)``.
    """
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values = {
        k: tuple(v) if isinstance(v, list) else v for k, v in vars(args).items() if k in names
    }
    return cls(**{**values, **overrides})
