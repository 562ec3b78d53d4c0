"""XR input sources: UDP datagrams, the XRoboToolkit SDK, replay files.

``make_xr_source(kind, **options)`` builds one; every source is an :class:`XrSource` whose
``poll(now)`` returns the newest :class:`XrFrame` (robot world frame, quaternions w-x-y-z).
"""

from __future__ import annotations

import inspect
from typing import Any

from mjscope.exceptions import ConfigError, UnknownNameError
from mjscope.teleop.xr.base import (
    R_WORLD_XR,
    ControllerState,
    XrFrame,
    XrSource,
    xr_pose_to_world,
)
from mjscope.teleop.xr.fields import REASONS, XrMessageError, world_pose_to_xr
from mjscope.teleop.xr.message import encode_pc_message, parse_pc_message
from mjscope.teleop.xr.record import RecordingXrSource, XrRecorder
from mjscope.teleop.xr.replay import ReplayXrSource, demo_replay_path, load_replay
from mjscope.teleop.xr.sdk import SdkXrSource
from mjscope.teleop.xr.sender import send_udp_frames, stream_replay_udp
from mjscope.teleop.xr.udp import UdpXrSource

__all__ = [
    "KINDS",
    "REASONS",
    "R_WORLD_XR",
    "ControllerState",
    "RecordingXrSource",
    "ReplayXrSource",
    "SdkXrSource",
    "UdpXrSource",
    "XrFrame",
    "XrMessageError",
    "XrRecorder",
    "XrSource",
    "demo_replay_path",
    "encode_pc_message",
    "load_replay",
    "make_xr_source",
    "parse_pc_message",
    "send_udp_frames",
    "stream_replay_udp",
    "world_pose_to_xr",
    "xr_pose_to_world",
]


class _DemoXrSource(ReplayXrSource):
    """The bundled demo replay (``mjscope/data/xr/demo.yaml``)."""

    def __init__(self, loop: bool = False, speed: float = 1.0, start: float | None = None):
        super().__init__(demo_replay_path(), loop=loop, speed=speed, start=start)


#: Source kind → class; ``demo`` is the replay source on the bundled demo session.
KINDS: dict[str, type[XrSource]] = {
    "udp": UdpXrSource,
    "sdk": SdkXrSource,
    "replay": ReplayXrSource,
    "demo": _DemoXrSource,
}


def make_xr_source(kind: str, **options: Any) -> XrSource:
    """Build an XR source.

    Args:
        kind: ``udp`` (options ``port``, ``host``, ``max_bytes``, ``max_per_poll``), ``sdk``
            (no options), ``replay`` (``path``, ``loop``, ``speed``, ``start``) or ``demo``
            (``loop``, ``speed``, ``start``).
        **options: The kind's options (see each class).

    Returns:
        The source; close it (or use it as a context manager) when done.

    Raises:
        UnknownNameError: Unknown kind.
        ConfigError: Unknown option, or a missing required one.
        MjscopeError: The source cannot start (port busy, SDK missing, bad replay file, ...).
    """
    cls = KINDS.get(kind)
    if cls is None:
        raise UnknownNameError("XR source", kind, KINDS, "choose --xr with one of these")
    params = inspect.signature(cls.__init__).parameters
    valid = [n for n in params if n not in ("self", "sdk")]
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ConfigError(
            f"XR source {kind!r}: unknown option(s) {', '.join(map(repr, unknown))}; "
            f"valid options: {', '.join(valid) or '(none)'}"
        )
    missing = [n for n in valid if params[n].default is inspect.Parameter.empty]
    missing = [n for n in missing if n not in options]
    if missing:
        raise ConfigError(f"XR source {kind!r}: missing option(s) {', '.join(missing)}")
    return cls(**options)
