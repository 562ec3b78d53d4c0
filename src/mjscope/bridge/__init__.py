"""Messages, validation and transports shared by the mirror, the hand bridge and teleop.

No feature logic lives here: a feature subscribes to topics through a :class:`Transport`,
validates each :class:`JointState` whole and keeps what it needs.
"""

from mjscope.bridge.messages import JointState, Stamp, UndecodableSample
from mjscope.bridge.transport import make_transport, transport_options
from mjscope.bridge.transport.base import Publisher, Subscriber, Transport
from mjscope.bridge.validation import InvalidFrame, ValidFrame, validate_joint_state

__all__ = [
    "InvalidFrame",
    "JointState",
    "Publisher",
    "Stamp",
    "Subscriber",
    "Transport",
    "UndecodableSample",
    "ValidFrame",
    "make_transport",
    "transport_options",
    "validate_joint_state",
]
