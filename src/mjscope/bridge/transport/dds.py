"""Cyclone DDS transport speaking the ROS 2 wire format.

A ROS 2 topic ``/a/b`` is the DDS topic ``rt/a/b``; ``sensor_msgs/msg/JointState`` is the DDS
type ``sensor_msgs::msg::dds_::JointState_`` (nested ``std_msgs::msg::dds_::Header_`` and
``builtin_interfaces::msg::dds_::Time_``), ``std_msgs/msg/String`` is
``std_msgs::msg::dds_::String_``. Types are ``@final`` (plain CDR / XCDR1, what rmw_cyclonedds
and Fast DDS use), so a ROS 2 Humble node can publish to or echo these topics.

QoS: subscribers are best-effort (they match reliable *and* best-effort publishers), publishers
are reliable (they reach reliable and best-effort subscribers); both volatile, keep-last.
"""

from __future__ import annotations

import logging
from typing import Any

from cyclonedds.core import (
    DDSException,
    InstanceState,
    Policy,
    Qos,
    ReadCondition,
    SampleState,
    ViewState,
    WaitSet,
)
from cyclonedds.domain import DomainParticipant
from cyclonedds.internal import InvalidSample
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration

from mjscope.bridge.transport.base import Publisher, Subscriber, Transport
from mjscope.bridge.transport.ros2_types import dds_topic_name, from_wire, to_wire, wire_type
from mjscope.exceptions import MjscopeError

logger = logging.getLogger(__name__)

MAX_DOMAIN_ID = 232  # DDS port mapping limit for domain ids


def _qos(reliable: bool, depth: int) -> Qos:
    rel = Policy.Reliability.Reliable(0) if reliable else Policy.Reliability.BestEffort
    return Qos(rel, Policy.Durability.Volatile, Policy.History.KeepLast(depth))


class DdsPublisher(Publisher):
    """Reliable, volatile, keep-last publisher on one ROS 2 topic."""

    def __init__(self, writer: DataWriter, topic: str) -> None:
        self._writer, self.topic, self._open = writer, topic, True

    def publish(self, msg: Any) -> None:
        """Serialise and send one message.

        Raises:
            MjscopeError: The message cannot be converted or DDS refused it.
        """
        try:
            self._writer.write(to_wire(msg))
        except DDSException as e:
            raise MjscopeError(f"DDS write on {self.topic} failed: {e}") from e

    def subscriber_count(self) -> int:
        """Subscribers currently matched on this topic (any process)."""
        if not self._open:
            return 0
        try:
            return len(self._writer.get_matched_subscriptions())
        except DDSException as e:
            raise MjscopeError(f"DDS matched-subscription query on {self.topic} failed: {e}") from e

    def close(self) -> None:
        """Delete the writer (remote subscribers see one publisher fewer)."""
        if self._open:
            self._open = False
            _delete(self._writer)


class DdsSubscriber(Subscriber):
    """Best-effort, volatile, keep-last subscriber on one ROS 2 topic.

    Attributes:
        decode_errors: Samples that could not be decoded (skipped).
    """

    def __init__(self, reader: DataReader, topic: str, depth: int, waitset: WaitSet) -> None:
        self._reader, self.topic, self._depth, self._open = reader, topic, depth, True
        self.decode_errors = 0
        self._waitset = waitset
        self._cond = ReadCondition(reader, SampleState.Any | ViewState.Any | InstanceState.Any)
        waitset.attach(self._cond)  # wakes DdsTransport.wait_any

    def take(self) -> list[Any]:
        """All samples received since the last call, oldest first (non-blocking)."""
        if not self._open:
            return []
        try:
            samples = self._reader.take(N=self._depth)
        except DDSException as e:
            raise MjscopeError(f"DDS take on {self.topic} failed: {e}") from e
        out = []
        for s in samples:
            if isinstance(s, InvalidSample):
                continue  # a state change (writer gone), not data
            try:
                out.append(from_wire(s))
            except (AttributeError, TypeError, ValueError):
                self.decode_errors += 1
        return out

    def publisher_count(self) -> int:
        """Publishers currently matched on this topic (any process, any QoS that matches)."""
        if not self._open:
            return 0
        try:
            return len(self._reader.get_matched_publications())
        except DDSException as e:
            raise MjscopeError(f"DDS matched-publication query on {self.topic} failed: {e}") from e

    def close(self) -> None:
        """Detach from the transport's wait set and delete the reader."""
        if self._open:
            self._open = False
            try:
                self._waitset.detach(self._cond)
            except DDSException as e:  # pragma: no cover - only on a broken DDS library
                logger.debug("DDS wait-set detach failed: %s", e)
            _delete(self._reader)


def _delete(entity: Any) -> None:
    try:
        entity.__del__()
    except DDSException as e:  # pragma: no cover - only on a broken DDS library
        logger.debug("DDS entity delete failed: %s", e)


class DdsTransport(Transport):
    """A DDS domain participant; endpoints speak the ROS 2 wire format.

    Args:
        domain_id: DDS domain (``ROS_DOMAIN_ID``), 0..232.
        depth: Keep-last history depth of publishers.

    Raises:
        MjscopeError: Invalid domain id, or Cyclone DDS cannot start (network configuration).
    """

    def __init__(self, domain_id: int = 0, depth: int = 10) -> None:
        if isinstance(domain_id, bool) or not isinstance(domain_id, int):
            raise MjscopeError(f"DDS domain id {domain_id!r} is not an integer; use 0..232")
        if not 0 <= domain_id <= MAX_DOMAIN_ID:
            raise MjscopeError(f"DDS domain id {domain_id} is out of range; use 0..232")
        self.domain_id, self._depth = domain_id, depth
        try:
            self._dp = DomainParticipant(domain_id)
        except DDSException as e:
            raise MjscopeError(
                f"cannot start Cyclone DDS on domain {domain_id}: {e}; "
                "check CYCLONEDDS_URI and the network interfaces"
            ) from e
        self._topics: dict[str, Topic] = {}
        self._endpoints: list[DdsPublisher | DdsSubscriber] = []
        self._waitset = WaitSet(self._dp)

    def _topic(self, topic: str, msg_type: type) -> Topic:
        wire = wire_type(msg_type)
        name = dds_topic_name(topic)
        key = f"{name}|{wire.__name__}"
        if key not in self._topics:
            if len(name) > 256:
                raise MjscopeError(f"topic {topic[:40]!r}... is longer than 256 characters")
            try:
                self._topics[key] = Topic(self._dp, name, wire)
            except DDSException as e:
                raise MjscopeError(f"cannot create DDS topic {name!r}: {e}") from e
        return self._topics[key]

    def publisher(self, topic: str, msg_type: type) -> Publisher:
        """Create a reliable publisher on ``topic`` (``JointState`` or ``str``)."""
        t = self._topic(topic, msg_type)
        try:
            w = DataWriter(self._dp, t, qos=_qos(True, self._depth))
        except DDSException as e:
            raise MjscopeError(f"cannot create DDS writer on {topic}: {e}") from e
        p = DdsPublisher(w, topic)
        self._endpoints.append(p)
        return p

    def subscriber(self, topic: str, msg_type: type, depth: int = 100) -> Subscriber:
        """Create a best-effort subscriber on ``topic`` keeping ``depth`` unread samples."""
        t = self._topic(topic, msg_type)
        try:
            r = DataReader(self._dp, t, qos=_qos(False, max(1, depth)))
        except DDSException as e:
            raise MjscopeError(f"cannot create DDS reader on {topic}: {e}") from e
        s = DdsSubscriber(r, topic, max(1, depth), self._waitset)
        self._endpoints.append(s)
        return s

    def wait_any(self, timeout_s: float) -> bool:
        """Block until any subscriber of this transport has a sample, or ``timeout_s`` [s].

        Returns:
            Whether data is available.
        """
        try:
            return self._waitset.wait(duration(seconds=max(0.0, timeout_s))) > 0
        except DDSException as e:
            raise MjscopeError(f"DDS wait failed: {e}") from e

    def close(self) -> None:
        """Delete every endpoint and the participant."""
        for e in self._endpoints:
            e.close()
        self._endpoints.clear()
        self._topics.clear()
        if self._dp is not None:
            _delete(self._dp)
            self._dp = None  # type: ignore[assignment]
