"""ROS 2 message types on the DDS wire, declared for Cyclone DDS, and their conversions.

``sensor_msgs/msg/JointState`` is ``sensor_msgs::msg::dds_::JointState_`` with nested
``std_msgs::msg::dds_::Header_`` and ``builtin_interfaces::msg::dds_::Time_``;
``std_msgs/msg/String`` is ``std_msgs::msg::dds_::String_``. Every type is ``@final``: plain
CDR (XCDR1) without XTypes information, which is what rmw_cyclonedds and Fast DDS exchange.
"""

# No `from __future__ import annotations`: cyclonedds resolves IDL field types at runtime.

from dataclasses import dataclass
from typing import Any

from cyclonedds.idl import IdlStruct
from cyclonedds.idl.annotations import final
from cyclonedds.idl.types import float64, int32, sequence, uint32

from mjscope.bridge.messages import JointState, Stamp
from mjscope.exceptions import MjscopeError


@final
@dataclass
class Time_(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    """``builtin_interfaces/msg/Time``."""

    sec: int32
    nanosec: uint32


@final
@dataclass
class Header_(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    """``std_msgs/msg/Header``."""

    stamp: Time_
    frame_id: str


@final
@dataclass
class JointState_(IdlStruct, typename="sensor_msgs::msg::dds_::JointState_"):
    """``sensor_msgs/msg/JointState``."""

    header: Header_
    name: sequence[str]  # type: ignore[type-arg]
    position: sequence[float64]  # type: ignore[type-arg]
    velocity: sequence[float64]  # type: ignore[type-arg]
    effort: sequence[float64]  # type: ignore[type-arg]


@final
@dataclass
class String_(IdlStruct, typename="std_msgs::msg::dds_::String_"):
    """``std_msgs/msg/String``."""

    data: str


def dds_topic_name(topic: str) -> str:
    """ROS 2 topic name → DDS topic name (``/a/b`` → ``rt/a/b``)."""
    return "rt/" + topic.lstrip("/")


def to_wire(msg: Any) -> Any:
    """Convert an mjscope message (``JointState`` or ``str``) to its ROS 2 wire type.

    Raises:
        MjscopeError: The message cannot be represented (wrong type or non-numeric values).
    """
    if isinstance(msg, str):
        return String_(data=msg)
    if not isinstance(msg, JointState):
        raise MjscopeError(f"cannot publish a {type(msg).__name__} over DDS; use JointState or str")
    try:
        stamp = Time_(sec=int(msg.stamp.sec), nanosec=int(msg.stamp.nanosec))
        make: Any = JointState_  # cyclonedds' ``sequence`` fields take lists
        return make(
            header=Header_(stamp=stamp, frame_id=str(msg.frame_id)),
            name=[str(n) for n in msg.name],
            position=[float(v) for v in msg.position],
            velocity=[float(v) for v in msg.velocity],
            effort=[float(v) for v in msg.effort],
        )
    except (TypeError, ValueError) as e:
        raise MjscopeError(f"cannot publish this JointState over DDS: {e}") from e


def from_wire(sample: Any) -> JointState | str:
    """Convert a received wire sample to an mjscope message."""
    if isinstance(sample, String_):
        return sample.data
    st = sample.header.stamp
    return JointState(
        stamp=Stamp(int(st.sec), int(st.nanosec)),
        frame_id=sample.header.frame_id,
        name=list(sample.name),
        position=list(sample.position),
        velocity=list(sample.velocity),
        effort=list(sample.effort),
    )


def wire_type(msg_type: type) -> type[IdlStruct]:
    """The wire type for an mjscope message type (``JointState`` or ``str``)."""
    if msg_type is JointState:
        return JointState_
    if msg_type is str:
        return String_
    raise MjscopeError(
        f"DDS transport carries JointState or str, not {getattr(msg_type, '__name__', msg_type)}"
    )
