"""Transport options shared by the bus commands (``mirror``, ``mock-arm``, ``hand``)."""

from __future__ import annotations

import os
from typing import Any

from mjscope.exceptions import MjscopeError


def transport_options(kind: str, domain_id: int | None) -> dict[str, Any]:
    """Keyword arguments for ``make_transport(kind, ...)``.

    Args:
        kind: ``inproc`` or ``dds``.
        domain_id: ``--domain-id``; ``None`` falls back to ``ROS_DOMAIN_ID`` (default 0), as a
            ROS 2 node does.

    Returns:
        ``{"domain_id": n}`` for DDS, else nothing.

    Raises:
        MjscopeError: ``ROS_DOMAIN_ID`` is set but not a number.
    """
    if kind != "dds":
        return {}
    if domain_id is not None:
        return {"domain_id": domain_id}
    env = os.environ.get("ROS_DOMAIN_ID", "0").strip() or "0"
    if not env.isdigit():
        raise MjscopeError(f"ROS_DOMAIN_ID={env!r} is not a number; unset it or pass --domain-id")
    return {"domain_id": int(env)}
