"""One arm's outgoing topics: ``joint_states`` (the adapter's feedback) and ``joint_target``.

On the in-process bus a message is built only when the topic has a subscriber, and it is handed
over without a copy (:meth:`~mjscope.bridge.transport.inproc.InprocPublisher.hand_over`): each
message is fresh and never changed after its publish.
"""

from __future__ import annotations

import numpy as np

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.base import Publisher, Transport
from mjscope.bridge.transport.inproc import InprocPublisher
from mjscope.rig import SideCfg


class ArmPublisher:
    """Publishes a side's state and target, named by the side's (message) joint names.

    Args:
        transport: The bus (``None``: publish nothing).
        cfg: The side (topics, joint names).

    Attributes:
        published: State frames published.
    """

    def __init__(self, transport: Transport | None, cfg: SideCfg) -> None:
        self.names = list(cfg.joint_names)
        self.published = 0
        self._state: Publisher | None = None
        self._target: Publisher | None = None
        if transport is not None:
            self._state = transport.publisher(cfg.state_topic, JointState)
            if cfg.target_topic:
                self._target = transport.publisher(cfg.target_topic, JointState)
        # the in-process topics, whose subscribers are asked for before a message is built
        self._state_bus, self._target_bus = (
            p if isinstance(p, InprocPublisher) else None for p in (self._state, self._target)
        )

    def publish(self, state: np.ndarray | None, target: np.ndarray | None) -> None:
        """Publish the feedback ``state`` and the sent ``target`` [rad] (each if given)."""
        if self._state is None:
            return
        stamp = None
        if state is not None:
            self.published += 1
            if self._state_bus is None or self._state_bus.subscribed:
                stamp = Stamp.now()
                _put(self._state, JointState(stamp=stamp, name=self.names, position=state.tolist()))
        bus = self._target_bus
        if target is not None and self._target is not None and (bus is None or bus.subscribed):
            msg = JointState(stamp=stamp or Stamp.now(), name=self.names, position=target.tolist())
            _put(self._target, msg)

    def close(self) -> None:
        """Close both publishers."""
        for p in (self._state, self._target):
            if p is not None:
                p.close()


def _put(p: Publisher, msg: JointState) -> None:
    """Publish a fresh message that nobody changes afterwards (in-process: no copy)."""
    if isinstance(p, InprocPublisher):
        p.hand_over(msg)
    else:
        p.publish(msg)
