"""Transports: ``inproc`` (embedded, one process) and ``dds`` (ROS 2-compatible Cyclone DDS)."""

from __future__ import annotations

import os
from typing import Any

from mjscope.bridge.transport.base import Publisher, Subscriber, Transport
from mjscope.exceptions import MjscopeError, UnknownNameError

TRANSPORTS = ("inproc", "dds")


def make_transport(kind: str, **options: Any) -> Transport:
    """Create a transport by name.

    Args:
        kind: ``inproc`` or ``dds``.
        **options: Passed to the implementation (``domain_id`` and ``localhost_only`` for
            ``dds``; see :func:`transport_options`).

    Returns:
        The transport.

    Raises:
        UnknownNameError: ``kind`` is not a known transport.
    """
    if kind == "inproc":
        from mjscope.bridge.transport.inproc import InprocTransport

        return InprocTransport(**options)
    if kind == "dds":
        from mjscope.bridge.transport.dds import DdsTransport

        return DdsTransport(**options)
    raise UnknownNameError("transport", kind, TRANSPORTS)


def transport_options(
    kind: str, domain_id: int | None, localhost_only: bool | None = None
) -> dict[str, Any]:
    """Keyword arguments for ``make_transport(kind, ...)`` from the bus options of a command.

    Args:
        kind: ``inproc`` or ``dds``.
        domain_id: ``--domain-id``; ``None`` falls back to ``ROS_DOMAIN_ID`` (default 0), as a
            ROS 2 node does.
        localhost_only: ``--localhost-only``; ``None`` falls back to ``ROS_LOCALHOST_ONLY``
            (true when it is ``1``), as a ROS 2 node does.

    Returns:
        ``{"domain_id": n, "localhost_only": b}`` for DDS, else nothing.

    Raises:
        MjscopeError: ``ROS_DOMAIN_ID`` is set but not a number.
    """
    if kind != "dds":
        return {}
    if localhost_only is None:
        localhost_only = localhost_only_from_env()
    if domain_id is None:
        env = os.environ.get("ROS_DOMAIN_ID", "0").strip() or "0"
        if not env.isdigit():
            raise MjscopeError(
                f"ROS_DOMAIN_ID={env!r} is not a number; unset it or pass --domain-id"
            )
        domain_id = int(env)
    return {"domain_id": domain_id, "localhost_only": bool(localhost_only)}


def open_transport(kind: str, domain_id: int | None, localhost_only: bool | None) -> Transport:
    """``make_transport`` with a command's bus options (see :func:`transport_options`)."""
    return make_transport(kind, **transport_options(kind, domain_id, localhost_only))


def localhost_only_from_env() -> bool:
    """Whether ``ROS_LOCALHOST_ONLY=1`` is set (ROS 2's switch for loopback-only DDS)."""
    return os.environ.get("ROS_LOCALHOST_ONLY", "").strip() == "1"


__all__ = [
    "TRANSPORTS",
    "Publisher",
    "Subscriber",
    "Transport",
    "localhost_only_from_env",
    "make_transport",
    "open_transport",
    "transport_options",
]
