"""One arm's outgoing topics: ``joint_states`` (the adapter's feedback) and ``joint_target``."""

from __future__ import annotations

import numpy as np

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.base import Publisher, Transport
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

    def publish(self, state: np.ndarray | None, target: np.ndarray | None) -> None:
        """Publish the feedback ``state`` and the sent ``target`` [rad] (each if given)."""
        if self._state is None:
            return
        stamp = Stamp.now()
        if state is not None:
            self._state.publish(JointState(stamp=stamp, name=self.names, position=state.tolist()))
            self.published += 1
        if target is not None and self._target is not None:
            msg = JointState(stamp=stamp, name=list(self.names), position=target.tolist())
            self._target.publish(msg)

    def close(self) -> None:
        """Close both publishers."""
        for p in (self._state, self._target):
            if p is not None:
                p.close()
