"""Bounded decoding of untrusted ROS 2 samples from plain CDR (XCDR1), one sample at a time.

Every byte from the network is hostile: a sample larger than :data:`MAX_SAMPLE_BYTES` is not
decoded at all; every length is checked against what is left of the payload before anything is
read or allocated; strings must be valid UTF-8. A sample that fails raises :class:`DecodeError`
with a stable reason (``too_large`` or ``undecodable``) instead of an arbitrary exception.

Layout of ``sensor_msgs/msg/JointState`` (offsets relative to the byte after the 4-byte
encapsulation header; 8-byte values aligned to 8, as XCDR1 does)::

    int32 sec, uint32 nanosec, string frame_id,
    sequence<string> name, sequence<float64> position, velocity, effort
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from cyclonedds.idl import IdlStruct

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.ros2_types import from_wire

MAX_SAMPLE_BYTES = 256 * 1024  # far above any valid JointState (256 joints x 256-char names)
MAX_SEQUENCE = 4096  # entries per sequence; validation caps joints far lower (max_joints)

_CDR_BE, _CDR_LE = b"\x00\x00", b"\x00\x01"  # plain CDR (XCDR1) encapsulation identifiers
_CDR2 = (b"\x00\x06", b"\x00\x07")  # plain XCDR2, big/little endian (final types)
_LITTLE = ("<", struct.Struct("<I"), struct.Struct("<iI"))
_BIG = (">", struct.Struct(">I"), struct.Struct(">iI"))


class DecodeError(ValueError):
    """A sample could not be decoded.

    Attributes:
        reason: ``too_large`` or ``undecodable``.
        detail: What was wrong, for the log (never echoes more than a few bytes).
    """

    def __init__(self, reason: str, detail: str) -> None:
        self.reason, self.detail = reason, detail
        super().__init__(f"{reason}: {detail}")


class _Reader:
    """A cursor over one payload that checks every read against the payload's end."""

    def __init__(self, data: bytes, little: bool) -> None:
        self.data, self.pos, self.end = data, 4, len(data)
        self._e, self._u32, self._time = _LITTLE if little else _BIG

    def _need(self, n: int, what: str) -> None:
        if n > self.end - self.pos:
            raise DecodeError(
                "undecodable",
                f"{what} needs {n} bytes, {self.end - self.pos} left of {self.end}",
            )

    def align(self, n: int) -> None:
        self.pos += -(self.pos - 4) % n  # alignment is relative to the payload start

    def time(self) -> tuple[int, int]:
        self._need(8, "stamp")
        sec, nanosec = self._time.unpack_from(self.data, self.pos)
        self.pos += 8
        return int(sec), int(nanosec)

    def count(self, what: str, min_item: int) -> int:
        self.align(4)
        self._need(4, f"{what} length")
        n = int(self._u32.unpack_from(self.data, self.pos)[0])
        self.pos += 4
        if n > MAX_SEQUENCE:
            raise DecodeError("too_large", f"{what} has {n} entries (limit {MAX_SEQUENCE})")
        if n * min_item > self.end - self.pos:
            raise DecodeError(
                "undecodable", f"{what} claims {n} entries, beyond the {self.end} byte payload"
            )
        return n

    def string(self, what: str) -> str:
        self.align(4)
        self._need(4, f"{what} length")
        n = int(self._u32.unpack_from(self.data, self.pos)[0])
        self.pos += 4
        if n == 0:  # not strictly CDR, but some implementations send it for ""
            return ""
        self._need(n, what)
        raw = self.data[self.pos : self.pos + n]
        self.pos += n
        if raw[-1] != 0:
            raise DecodeError("undecodable", f"{what} is not NUL-terminated")
        try:
            return raw[:-1].decode("utf-8")
        except UnicodeDecodeError as e:
            raise DecodeError(
                "undecodable", f"{what} is not valid UTF-8 (byte {e.start} of {n - 1})"
            ) from None

    def doubles(self, what: str) -> list[float]:
        n = self.count(what, 8)
        if n == 0:
            return []
        self.align(8)
        self._need(8 * n, what)
        out = list(struct.unpack_from(f"{self._e}{n}d", self.data, self.pos))
        self.pos += 8 * n
        return out


def _check_size(data: bytes) -> None:
    if len(data) > MAX_SAMPLE_BYTES:
        raise DecodeError("too_large", f"{len(data)} byte sample (limit {MAX_SAMPLE_BYTES})")
    if len(data) < 4:
        raise DecodeError("undecodable", f"{len(data)} byte sample has no CDR header")


def _reader(data: bytes) -> _Reader:
    _check_size(data)
    kind = data[:2]
    if kind not in (_CDR_LE, _CDR_BE):
        raise DecodeError("undecodable", f"encapsulation 0x{kind.hex()} is not plain CDR")
    return _Reader(data, kind == _CDR_LE)


def decode_joint_state(data: bytes) -> JointState:
    """Decode one serialized ``sensor_msgs/msg/JointState`` (with its encapsulation header).

    Args:
        data: The sample's bytes as received (untrusted).

    Returns:
        The message, fields as received (validation decides whether it is usable).

    Raises:
        DecodeError: ``too_large`` (over :data:`MAX_SAMPLE_BYTES`, or a sequence over
            :data:`MAX_SEQUENCE`) or ``undecodable`` (not plain CDR, truncated, a length beyond
            the payload, a string that is not NUL-terminated UTF-8).
    """
    r = _reader(data)
    sec, nanosec = r.time()
    frame_id = r.string("frame_id")
    n = r.count("name", 4)
    names = [r.string(f"name[{i}]") for i in range(n)]
    position, velocity, effort = (r.doubles(f) for f in ("position", "velocity", "effort"))
    return JointState(Stamp(sec, nanosec), frame_id, names, position, velocity, effort)


def decode_string(data: bytes) -> str:
    """Decode one serialized ``std_msgs/msg/String``.

    Raises:
        DecodeError: As :func:`decode_joint_state`.
    """
    return _reader(data).string("data")


def decode(data: bytes, wire: type[IdlStruct]) -> Any:
    """Decode one sample of ``wire`` (a type of :mod:`ros2_types`) into an mjscope message.

    Plain CDR, what ROS 2 sends, goes through the bounded decoders of this module. Plain XCDR2,
    which a DDS writer may offer too, goes, size-checked, through the Cyclone DDS binding's own
    deserializer; any failure of it on hostile bytes becomes ``undecodable``. Any other
    encapsulation is ``undecodable``.

    Args:
        data: The serialized sample with its encapsulation header (untrusted).
        wire: Its wire type.

    Returns:
        A ``JointState`` or ``str``.

    Raises:
        DecodeError: With reason ``too_large`` or ``undecodable``.
    """
    fast = _DECODERS.get(wire.__idl_typename__)
    if fast is not None and data[:2] in (_CDR_LE, _CDR_BE):
        return fast(data)
    _check_size(data)
    if data[:2] not in _CDR2:
        raise DecodeError("undecodable", f"encapsulation 0x{data[:2].hex()} is not plain CDR")
    try:
        return from_wire(wire.deserialize(data))
    except Exception as e:  # the binding raises many kinds on malformed input
        raise DecodeError(
            "undecodable", f"encapsulation 0x{data[:2].hex()}: {type(e).__name__}"
        ) from None


_DECODERS: dict[str, Callable[[bytes], Any]] = {
    "sensor_msgs::msg::dds_::JointState_": decode_joint_state,
    "std_msgs::msg::dds_::String_": decode_string,
}
