"""Transports: ``inproc`` (embedded, one process) and ``dds`` (ROS 2-compatible Cyclone DDS)."""

from __future__ import annotations

from typing import Any

from mjscope.bridge.transport.base import Publisher, Subscriber, Transport
from mjscope.exceptions import UnknownNameError

TRANSPORTS = ("inproc", "dds")


def make_transport(kind: str, **options: Any) -> Transport:
    """Create a transport by name.

    Args:
        kind: ``inproc`` or ``dds``.
        **options: Passed to the implementation (e.g. ``domain_id`` for ``dds``).

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


__all__ = ["TRANSPORTS", "Publisher", "Subscriber", "Transport", "make_transport"]
