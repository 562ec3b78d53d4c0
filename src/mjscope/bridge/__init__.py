"""Messages, validation and transports shared by the mirror, the hand bridge and teleop."""

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.mirror import Mirror
from mjscope.bridge.mock_arm import MockArm
from mjscope.bridge.transport import make_transport
from mjscope.bridge.transport.base import Publisher, Subscriber, Transport
from mjscope.bridge.validation import InvalidFrame, ValidFrame, validate_joint_state

__all__ = [
    "InvalidFrame",
    "JointState",
    "Mirror",
    "MockArm",
    "Publisher",
    "Stamp",
    "Subscriber",
    "Transport",
    "ValidFrame",
    "make_transport",
    "validate_joint_state",
]
