"""Messages, validation and transports shared by the mirror, the hand bridge and teleop."""

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.base import Publisher, Subscriber, Transport

__all__ = ["JointState", "Publisher", "Stamp", "Subscriber", "Transport"]
