"""One mirrored side: its joint-name → ``qpos`` map, subscriber, statistics and status."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mjscope.bridge.transport.base import Subscriber
from mjscope.bridge.validation import ValidFrame
from mjscope.exceptions import ConfigError, UnknownNameError
from mjscope.mirror.config import SideCfg
from mjscope.mirror.stats import TopicStats
from mjscope.models.indexing import JointIndex

_ORDER_CACHE = 64  # distinct message name orders remembered per side


class SideStatus(NamedTuple):
    """One side at a glance (the status line).

    Attributes:
        side: Side name.
        topic: State topic.
        hz: Received rate over the last ~1 s [Hz].
        valid: Valid frames so far.
        rejected: Rejected frames so far.
        age_s: Time since the last valid frame [s] (``inf`` before the first).
        stale: No valid frame for longer than ``stale_after_s``.
        publishers: Publishers seen on the topic.
        stamp_age_s: Wall-clock time minus the newest valid frame's header stamp [s]
            (``inf`` before the first): how old the mirrored pose is.
        rejected_by_reason: Rejected frames so far by reason (``undecodable`` included).
    """

    side: str
    topic: str
    hz: float
    valid: int
    rejected: int
    age_s: float
    stale: bool
    publishers: int
    stamp_age_s: float
    rejected_by_reason: dict[str, int]


class MirrorSide:
    """A side's name map, subscriber and statistics."""

    def __init__(self, name: str, cfg: SideCfg, index: JointIndex) -> None:
        self.name, self.cfg = name, cfg
        self.expected = frozenset(cfg.joint_names)  # built once, not per frame
        model_names = cfg.model_joint_names()
        missing = [n for n in model_names if n not in index]
        if missing:
            raise UnknownNameError(
                "joint",
                missing[0],
                index.names,
                f"side {name!r} needs model joints {list(model_names)}; map message names to "
                "the model's with joint_map in the rig config (--config) or --map-prefix",
            )
        addrs = index.scalar_qpos_addresses(model_names).tolist()
        self.addr = dict(zip(cfg.joint_names, addrs, strict=True))
        self.model_names = dict(zip(cfg.joint_names, model_names, strict=True))
        self.orders: dict[tuple[str, ...], np.ndarray] = {}
        self.stats = TopicStats(cfg.state_topic)
        self.sub: Subscriber | None = None
        self.pending: ValidFrame | None = None
        self.stale = False

    def addresses(self, names: tuple[str, ...]) -> np.ndarray:
        """``qpos`` addresses for a (validated) message name order, cached."""
        a = self.orders.get(names)
        if a is None:
            a = np.fromiter((self.addr[n] for n in names), dtype=np.intp, count=len(names))
            if len(self.orders) < _ORDER_CACHE:
                self.orders[names] = a
        return a


def check_disjoint(sides: dict[str, MirrorSide]) -> None:
    """Raise when two sides write the same ``qpos`` address (their arms would cross)."""
    owner: dict[int, str] = {}
    for name, s in sides.items():
        for joint, adr in s.addr.items():
            if adr in owner:
                raise ConfigError(
                    f"side {name!r} joint {joint!r} maps onto the same model joint as side "
                    f"{owner[adr]!r}; give each side its own joints (joint_map)"
                )
            owner[adr] = name
