"""Cyclone DDS transport speaking the ROS 2 wire format.

A ROS 2 topic ``/a/b`` is the DDS topic ``rt/a/b``; ``sensor_msgs/msg/JointState`` is the DDS
type ``sensor_msgs::msg::dds_::JointState_`` (nested ``std_msgs::msg::dds_::Header_`` and
``builtin_interfaces::msg::dds_::Time_``), ``std_msgs/msg/String`` is
``std_msgs::msg::dds_::String_``. Types are ``@final`` (plain CDR / XCDR1, what rmw_cyclonedds
and Fast DDS use), so a ROS 2 Humble node can publish to or echo these topics.

QoS: subscribers are best-effort (they match reliable *and* best-effort publishers), publishers
are reliable (they reach reliable and best-effort subscribers); both volatile, keep-last.

Received samples are untrusted: subscribers take them serialized and decode each one with the
bounded decoders of :mod:`~mjscope.bridge.transport.cdr`, so one undecodable sample (a name
that is not UTF-8, a sample far too large) becomes an
:class:`~mjscope.bridge.messages.UndecodableSample` in its place (counted by the consumer like
any rejected frame) instead of an exception that ends the take. Samples that are not even valid
CDR (truncated, lengths beyond the payload) are dropped by Cyclone DDS itself before they reach
the application: it logs a warning naming the topic, and mjscope cannot count them. Domains are
configured by :mod:`~mjscope.bridge.transport.dds_config` (``localhost_only``, lease, size cap).
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from cyclonedds._clayer import ddspy_take  # DataReader.take without its deserialization
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
from cyclonedds.idl import IdlStruct
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration

from mjscope.bridge.messages import UndecodableSample
from mjscope.bridge.transport.base import Publisher, Subscriber, Transport
from mjscope.bridge.transport.cdr import DecodeError, decode
from mjscope.bridge.transport.dds_config import acquire_domain, release_domain
from mjscope.bridge.transport.ros2_types import dds_topic_name, to_wire, wire_type
from mjscope.exceptions import MjscopeError

logger = logging.getLogger(__name__)

MAX_DOMAIN_ID = 232  # DDS port mapping limit for domain ids
TAKE_CHUNK = 64  # samples taken from DDS at once: bounds the bytes held before decoding
_ANY = SampleState.Any | ViewState.Any | InstanceState.Any


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
        rejected: Samples that could not be decoded, by reason (each was handed out as an
            :class:`~mjscope.bridge.messages.UndecodableSample`).
    """

    def __init__(
        self, reader: DataReader, topic: str, wire: type[IdlStruct], depth: int, waitset: WaitSet
    ) -> None:
        self._reader, self.topic, self._depth, self._open = reader, topic, depth, True
        self._wire = wire
        self.rejected: Counter[str] = Counter()
        self._waitset = waitset
        self._cond = ReadCondition(reader, _ANY)
        waitset.attach(self._cond)  # wakes DdsTransport.wait_any

    def take(self) -> list[Any]:
        """All samples received since the last call, oldest first (non-blocking).

        A sample that cannot be decoded is an
        :class:`~mjscope.bridge.messages.UndecodableSample` in its place: a bad sample never
        raises, nor costs the samples taken with it.

        Raises:
            MjscopeError: DDS itself fails (a broken library or participant).
        """
        if not self._open:
            return []
        out: list[Any] = []
        left = self._depth
        while left > 0:
            n = min(TAKE_CHUNK, left)
            got = ddspy_take(self._reader._ref, _ANY, n)
            if isinstance(got, int):
                raise MjscopeError(f"DDS take on {self.topic} failed: {DDSException(got)}")
            for data, info in got:
                if info.valid_data:  # else a state change (writer gone), not data
                    out.append(self._decode(data))
            if len(got) < n:
                break
            left -= len(got)
        return out

    def _decode(self, data: bytes) -> Any:
        try:
            return decode(data, self._wire)
        except DecodeError as e:
            self.rejected[e.reason] += 1
            return UndecodableSample(e.reason, e.detail, len(data))

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
        localhost_only: Keep all DDS traffic on the loopback interface (127.0.0.1): only
            processes on this machine can publish to us or hear us.
        depth: Keep-last history depth of publishers.

    Raises:
        MjscopeError: Invalid domain id, a ``localhost_only`` that cannot be kept (see
            :func:`~mjscope.bridge.transport.dds_config.cyclone_config`), or Cyclone DDS cannot
            start (network configuration).
    """

    def __init__(
        self, domain_id: int = 0, localhost_only: bool = False, *, depth: int = 10
    ) -> None:
        if isinstance(domain_id, bool) or not isinstance(domain_id, int):
            raise MjscopeError(f"DDS domain id {domain_id!r} is not an integer; use 0..232")
        if not 0 <= domain_id <= MAX_DOMAIN_ID:
            raise MjscopeError(f"DDS domain id {domain_id} is out of range; use 0..232")
        if not isinstance(localhost_only, bool):
            raise MjscopeError(f"localhost_only {localhost_only!r} must be True or False")
        self.domain_id, self.localhost_only, self._depth = domain_id, localhost_only, depth
        acquire_domain(domain_id, localhost_only)
        try:
            self._dp: DomainParticipant | None = DomainParticipant(domain_id)
        except DDSException as e:
            release_domain(domain_id)
            raise MjscopeError(
                f"cannot start Cyclone DDS on domain {domain_id}: {e}; "
                "check CYCLONEDDS_URI and the network interfaces"
            ) from e
        self._topics: dict[str, Topic] = {}
        self._endpoints: list[DdsPublisher | DdsSubscriber] = []
        self._waitset = WaitSet(self._dp)

    @property
    def participant(self) -> DomainParticipant:
        """The DDS domain participant.

        Raises:
            MjscopeError: The transport is closed.
        """
        if self._dp is None:
            raise MjscopeError(f"the DDS transport on domain {self.domain_id} is closed")
        return self._dp

    def _topic(self, topic: str, msg_type: type) -> Topic:
        wire = wire_type(msg_type)
        name = dds_topic_name(topic)
        key = f"{name}|{wire.__name__}"
        if key not in self._topics:
            if len(name) > 256:
                raise MjscopeError(f"topic {topic[:40]!r}... is longer than 256 characters")
            try:
                self._topics[key] = Topic(self.participant, name, wire)
            except DDSException as e:
                raise MjscopeError(f"cannot create DDS topic {name!r}: {e}") from e
        return self._topics[key]

    def publisher(self, topic: str, msg_type: type) -> Publisher:
        """Create a reliable publisher on ``topic`` (``JointState`` or ``str``)."""
        t = self._topic(topic, msg_type)
        try:
            w = DataWriter(self.participant, t, qos=_qos(True, self._depth))
        except DDSException as e:
            raise MjscopeError(f"cannot create DDS writer on {topic}: {e}") from e
        p = DdsPublisher(w, topic)
        self._endpoints.append(p)
        return p

    def subscriber(self, topic: str, msg_type: type, depth: int = 100) -> Subscriber:
        """Create a best-effort subscriber on ``topic`` keeping ``depth`` unread samples."""
        t = self._topic(topic, msg_type)
        try:
            r = DataReader(self.participant, t, qos=_qos(False, max(1, depth)))
        except DDSException as e:
            raise MjscopeError(f"cannot create DDS reader on {topic}: {e}") from e
        s = DdsSubscriber(r, topic, wire_type(msg_type), max(1, depth), self._waitset)
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
            _delete(self._waitset)
            _delete(self._dp)
            self._dp = None
            release_domain(self.domain_id)
