"""The transport contract: topic publishers and subscribers with non-blocking take."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class Publisher(ABC):
    """Publishes messages on one topic."""

    topic: str

    @abstractmethod
    def publish(self, msg: Any) -> None:
        """Send one message (never blocks for long)."""

    @abstractmethod
    def close(self) -> None:
        """Stop publishing; the topic's publisher count drops."""


class Subscriber(ABC):
    """Receives messages on one topic into a bounded queue."""

    topic: str

    @abstractmethod
    def take(self) -> list[Any]:
        """All messages received since the last call, oldest first (non-blocking).

        A sample that arrived but could not be decoded is an
        :class:`~mjscope.bridge.messages.UndecodableSample` in its place (network transports);
        validation rejects it with its reason. ``take`` itself never raises for a bad sample.
        """

    def poll(self) -> Any | None:
        """The newest message received since the last call, or ``None`` (drops older ones).

        Like :meth:`take`, it may hand back an
        :class:`~mjscope.bridge.messages.UndecodableSample`.
        """
        msgs = self.take()
        return msgs[-1] if msgs else None

    @abstractmethod
    def publisher_count(self) -> int:
        """How many publishers are currently seen on this topic."""

    @abstractmethod
    def close(self) -> None:
        """Stop receiving."""


class Transport(ABC):
    """A message bus: creates publishers and subscribers by topic name.

    Topic names are ROS-style (``/xr_rm/left_rm75/joint_states``). Message types are the
    dataclasses of :mod:`mjscope.bridge.messages` (plus ``str`` for command topics).
    """

    @abstractmethod
    def publisher(self, topic: str, msg_type: type) -> Publisher:
        """Create a publisher on ``topic`` for messages of ``msg_type``."""

    @abstractmethod
    def subscriber(self, topic: str, msg_type: type, depth: int = 100) -> Subscriber:
        """Create a subscriber on ``topic`` keeping at most ``depth`` unread messages."""

    @abstractmethod
    def close(self) -> None:
        """Close every endpoint created by this transport."""

    def __enter__(self) -> Transport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
