"""In-process transport: the embedded default. Subscribers get deep copies."""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from typing import Any

from mjscope.bridge.transport.base import Publisher, Subscriber, Transport


class _Bus:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.subs: dict[str, list[InprocSubscriber]] = defaultdict(list)
        self.pubs: dict[str, int] = defaultdict(int)


class InprocPublisher(Publisher):
    """Publisher on an in-process bus."""

    def __init__(self, bus: _Bus, topic: str) -> None:
        self._bus, self.topic, self._open = bus, topic, True
        with bus.lock:
            bus.pubs[topic] += 1

    def publish(self, msg: Any) -> None:
        """Deliver a copy of ``msg`` to every subscriber of the topic."""
        with self._bus.lock:
            subs = list(self._bus.subs.get(self.topic, ()))
        for s in subs:
            s._deliver(msg.copy() if hasattr(msg, "copy") else msg)

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
        with bus.lock:
            bus.subs[topic].append(self)

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
        with self._bus.lock:
            if self in self._bus.subs.get(self.topic, []):
                self._bus.subs[self.topic].remove(self)


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
