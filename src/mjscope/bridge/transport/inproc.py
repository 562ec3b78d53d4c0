"""In-process transport: the embedded default.

:meth:`InprocPublisher.publish` hands every subscriber its own deep copy (a subscriber may
change what it gets, and the publisher may reuse its message). :meth:`InprocPublisher.hand_over`
is the copy-free way for a publisher that builds a fresh message per publish and never touches
it again (teleop's ``joint_states`` at the control rate): every subscriber gets that very
object and must treat it as read-only (the mirror only reads). Publishing reads a snapshot of
the topic's subscribers without taking the bus lock (it is replaced, never changed, under the
lock), so a topic nobody subscribes to costs a dictionary look-up.
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from typing import Any

from mjscope.bridge.transport.base import Publisher, Subscriber, Transport


class _Bus:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.subs: dict[str, tuple[InprocSubscriber, ...]] = {}  # replaced under the lock
        self.pubs: dict[str, int] = defaultdict(int)

    def add(self, topic: str, sub: InprocSubscriber) -> None:
        with self.lock:
            self.subs[topic] = (*self.subs.get(topic, ()), sub)

    def remove(self, topic: str, sub: InprocSubscriber) -> None:
        with self.lock:
            self.subs[topic] = tuple(s for s in self.subs.get(topic, ()) if s is not sub)


class InprocPublisher(Publisher):
    """Publisher on an in-process bus."""

    def __init__(self, bus: _Bus, topic: str) -> None:
        self._bus, self.topic, self._open = bus, topic, True
        with bus.lock:
            bus.pubs[topic] += 1

    @property
    def subscribed(self) -> bool:
        """Whether the topic has a subscriber now (else a publish reaches no one)."""
        return bool(self._bus.subs.get(self.topic))

    def publish(self, msg: Any) -> None:
        """Deliver a copy of ``msg`` to every subscriber of the topic."""
        for s in self._bus.subs.get(self.topic, ()):
            s._deliver(msg.copy() if hasattr(msg, "copy") else msg)

    def hand_over(self, msg: Any) -> None:
        """Deliver ``msg`` itself to every subscriber (no copy).

        The caller gives the message up: it must not change it afterwards, and subscribers
        must not change it either (they all share it).
        """
        for s in self._bus.subs.get(self.topic, ()):
            s._deliver(msg)

    def close(self) -> None:
        """Unregister from the topic."""
        if self._open:
            with self._bus.lock:
                self._bus.pubs[self.topic] -= 1
            self._open = False


class InprocSubscriber(Subscriber):
    """Subscriber on an in-process bus with a bounded queue (oldest dropped when full)."""

    def __init__(self, bus: _Bus, topic: str, depth: int) -> None:
        self._bus, self.topic = bus, topic
        self._queue: deque[Any] = deque(maxlen=depth)
        self._lock = threading.Lock()
        bus.add(topic, self)

    def _deliver(self, msg: Any) -> None:
        with self._lock:
            self._queue.append(msg)

    def take(self) -> list[Any]:
        """All queued messages, oldest first."""
        with self._lock:
            out = list(self._queue)
            self._queue.clear()
        return out

    def publisher_count(self) -> int:
        """Publishers currently open on the topic."""
        with self._bus.lock:
            return self._bus.pubs.get(self.topic, 0)

    def close(self) -> None:
        """Unregister from the topic."""
        self._bus.remove(self.topic, self)


class InprocTransport(Transport):
    """A bus shared by every endpoint created from this transport object."""

    def __init__(self) -> None:
        self._bus = _Bus()
        self._endpoints: list[Publisher | Subscriber] = []

    def publisher(self, topic: str, msg_type: type) -> Publisher:
        """Create a publisher on ``topic``."""
        p = InprocPublisher(self._bus, topic)
        self._endpoints.append(p)
        return p

    def subscriber(self, topic: str, msg_type: type, depth: int = 100) -> Subscriber:
        """Create a subscriber on ``topic``."""
        s = InprocSubscriber(self._bus, topic, depth)
        self._endpoints.append(s)
        return s

    def close(self) -> None:
        """Close every endpoint."""
        for e in self._endpoints:
            e.close()
        self._endpoints.clear()
