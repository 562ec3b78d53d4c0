"""A hostile peer for tests and benchmarks: puts arbitrary bytes on a DDS topic, loopback only.

:class:`RawRtpsWriter` speaks just enough RTPS (participant and publication discovery, ``DATA``
and ``DATA_FRAG``, best-effort) to publish samples *no DDS library would write*: truncated CDR,
sequence lengths beyond the payload, names that are not UTF-8, megabyte names. It is what any
process on a DDS domain can do, and what the transports must survive. It sends only to the
default discovery multicast group through the loopback interface with a multicast TTL of 0, so
no packet leaves the machine; it reaches participants that listen on the loopback interface
(``localhost_only``) with Cyclone DDS's default ports and multicast address.

:func:`encode_joint_state` builds plain-CDR ``sensor_msgs/msg/JointState`` samples from raw
bytes; :func:`hostile_samples` is a catalogue of malformed ones with what a receiver should
make of each. Only tests and benchmarks use this module.
"""

from __future__ import annotations

import os
import socket
import struct
import time
from collections.abc import Sequence
from typing import NamedTuple

from mjscope.bridge.transport.dds_config import LOOPBACK, MAX_DDS_SAMPLE_BYTES

JOINT_STATE_TYPE = "sensor_msgs::msg::dds_::JointState_"
SPDP_GROUP = "239.255.0.1"  # Cyclone DDS's (and the RTPS spec's) default discovery group

_SPDP_W, _SPDP_R = bytes.fromhex("000100c2"), bytes.fromhex("000100c7")
_SEDP_PUB_W, _SEDP_PUB_R = bytes.fromhex("000003c2"), bytes.fromhex("000003c7")
_PARTICIPANT = bytes.fromhex("000001c1")
_USER_W = bytes.fromhex("00000103")  # user writer, no key
_VENDOR = bytes([0x01, 0x99])  # not assigned to any DDS vendor
_FRAG = 16384  # DATA_FRAG fragment size [bytes]


def _cdr_string(raw: bytes) -> bytes:
    body = raw + b"\0"
    return struct.pack("<I", len(body)) + body


class _Cdr:
    """A little-endian plain-CDR writer (alignment relative to the payload start)."""

    def __init__(self) -> None:
        self.buf = bytearray()

    def align(self, n: int) -> None:
        self.buf += b"\0" * (-len(self.buf) % n)

    def u32(self, v: int) -> None:
        self.align(4)
        self.buf += struct.pack("<I", v & 0xFFFFFFFF)

    def string(self, raw: bytes) -> None:
        self.align(4)
        self.buf += _cdr_string(raw)

    def doubles(self, values: Sequence[float]) -> None:
        self.u32(len(values))
        if values:
            self.align(8)
            self.buf += struct.pack(f"<{len(values)}d", *values)


def encode_joint_state(
    names: Sequence[bytes],
    position: Sequence[float],
    velocity: Sequence[float] = (),
    effort: Sequence[float] = (),
    frame_id: bytes = b"",
    stamp: tuple[int, int] = (0, 0),
) -> bytes:
    """A plain-CDR (little-endian) ``JointState`` sample from raw name bytes, header included."""
    w = _Cdr()
    w.buf += struct.pack("<iI", *stamp)
    w.string(frame_id)
    w.u32(len(names))
    for n in names:
        w.string(n)
    for values in (position, velocity, effort):
        w.doubles(values)
    return b"\x00\x01\x00\x00" + bytes(w.buf)


class HostileSample(NamedTuple):
    """A malformed sample and what a receiver should make of it.

    Attributes:
        data: The serialized sample, encapsulation header included.
        reason: The reject reason an mjscope consumer counts, or ``None`` when Cyclone DDS
            itself drops the sample as malformed CDR before the application sees it.
    """

    data: bytes
    reason: str | None


def hostile_samples(names: Sequence[str]) -> dict[str, HostileSample]:
    """Malformed ``JointState`` samples built around a valid frame for ``names``.

    Args:
        names: Joint names a receiver expects (the frames are otherwise valid for them).

    Returns:
        Kind → sample. Kinds: ``utf8_name``, ``utf8_frame_id`` (not UTF-8), ``truncated``,
        ``name_count_beyond_payload``, ``string_length_beyond_payload``,
        ``position_count_beyond_payload``, ``unterminated_string`` (malformed CDR),
        ``huge_name`` (a 1 MB name), ``over_dds_limit`` (larger than Cyclone accepts),
        ``nan`` and ``wrong_names`` (well-formed, invalid content).
    """
    raw = [n.encode() for n in names]
    pos = [0.1] * len(names)
    good = encode_joint_state(raw, pos)
    bad_name = [b"\xff\xfe" + raw[0][2:], *raw[1:]]
    head = 4 + 8  # encapsulation header, stamp
    name_count_at = head + 4 + 4  # after frame_id "" (length 1 + NUL, padded to 4)
    first_name_at = name_count_at + 4
    pos_count_at = len(encode_joint_state(raw, [])) - 12  # the position count's offset

    def patch_u32(at: int, v: int) -> bytes:
        return good[:at] + struct.pack("<I", v) + good[at + 4 :]

    nul = first_name_at + 4 + len(raw[0])  # the first name's terminating NUL
    unterminated = good[:nul] + b"x" + good[nul + 1 :]

    return {
        "utf8_name": HostileSample(encode_joint_state(bad_name, pos), "undecodable"),
        "utf8_frame_id": HostileSample(
            encode_joint_state(raw, pos, frame_id=b"base\xc3\x28"), "undecodable"
        ),
        "truncated": HostileSample(good[: len(good) // 2], None),
        "name_count_beyond_payload": HostileSample(patch_u32(name_count_at, 0x7FFFFFFF), None),
        "string_length_beyond_payload": HostileSample(patch_u32(first_name_at, 0x40000000), None),
        "position_count_beyond_payload": HostileSample(patch_u32(pos_count_at, 0x10000000), None),
        "unterminated_string": HostileSample(unterminated, None),
        "huge_name": HostileSample(
            encode_joint_state([b"j" * 1_000_000, *raw[1:]], pos), "too_large"
        ),
        "over_dds_limit": HostileSample(
            encode_joint_state([b"j" * (MAX_DDS_SAMPLE_BYTES + 4096), *raw[1:]], pos), None
        ),
        "nan": HostileSample(encode_joint_state(raw, [float("nan")] * len(raw)), "non_finite"),
        "wrong_names": HostileSample(
            encode_joint_state([b"not_" + n for n in raw], pos), "unknown"
        ),
    }


def _param(pid: int, value: bytes) -> bytes:
    value += b"\0" * (-len(value) % 4)
    return struct.pack("<HH", pid, len(value)) + value


def _locator(port: int) -> bytes:
    return struct.pack("<iI", 1, port) + b"\0" * 12 + socket.inet_aton(LOOPBACK)


class RawRtpsWriter:
    """A best-effort DDS writer on one topic that sends whatever bytes it is given.

    Args:
        domain_id: DDS domain (Cyclone DDS's default port mapping).
        topic: DDS topic name (``rt/...``).
        type_name: DDS type name.
        lease_s: Participant lease announced [s]; :meth:`announce` again within it.
    """

    def __init__(
        self, domain_id: int, topic: str, type_name: str = JOINT_STATE_TYPE, lease_s: float = 10.0
    ) -> None:
        self.prefix = os.urandom(12)
        self.topic, self.type_name, self.lease_s = topic, type_name, lease_s
        self._meta = 7400 + 250 * domain_id  # discovery multicast port (PB + DG * domain)
        self._data = self._meta + 1
        self._seq = 0
        self._disc_seq = 0
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(LOOPBACK))
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 0)  # never leaves the host
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        s.bind((LOOPBACK, 0))
        self._sock = s
        self._port = s.getsockname()[1]

    def _header(self) -> bytes:
        return b"RTPS" + bytes([2, 1]) + _VENDOR + self.prefix

    @staticmethod
    def _submessage(kind: int, flags: int, body: bytes) -> bytes:
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<BBH", kind, flags, len(body)) + body

    def _data_msg(self, reader: bytes, writer: bytes, seq: int, payload: bytes) -> bytes:
        body = struct.pack("<HH", 0, 16) + reader + writer + struct.pack("<iI", 0, seq) + payload
        return self._submessage(0x15, 0x05, body)  # DATA, little endian, data present

    def announce(self) -> None:
        """Send this participant and its writer (discovery); repeat within ``lease_s``."""
        guid = self.prefix + _PARTICIPANT
        lease = struct.pack("<iI", int(self.lease_s), 0)
        spdp = b"\x00\x03\x00\x00" + b"".join(  # PL_CDR_LE parameter list
            [
                _param(0x0015, bytes([2, 1])),  # protocol version
                _param(0x0016, _VENDOR),
                _param(0x0050, guid),
                _param(0x0058, struct.pack("<I", 0x3F)),  # builtin endpoints
                _param(0x0032, _locator(self._port)),  # metatraffic unicast
                _param(0x0031, _locator(self._port)),  # default unicast
                _param(0x0002, lease),
                _param(0x0001, b""),  # sentinel
            ]
        )
        sedp = b"\x00\x03\x00\x00" + b"".join(
            [
                _param(0x005A, self.prefix + _USER_W),  # endpoint guid
                _param(0x0050, guid),
                _param(0x0005, _cdr_string(self.topic.encode())),
                _param(0x0007, _cdr_string(self.type_name.encode())),
                _param(0x001A, struct.pack("<IiI", 1, 0, 0)),  # best effort
                _param(0x001D, struct.pack("<I", 0)),  # volatile
                _param(0x0001, b""),
            ]
        )
        self._disc_seq += 1
        hb = _SEDP_PUB_R + _SEDP_PUB_W + struct.pack("<iIiIi", 0, 1, 0, 1, self._disc_seq)
        self._sock.sendto(
            self._header() + self._data_msg(_SPDP_R, _SPDP_W, 1, spdp), (SPDP_GROUP, self._meta)
        )
        self._sock.sendto(
            self._header()
            + self._data_msg(_SEDP_PUB_R, _SEDP_PUB_W, 1, sedp)
            + self._submessage(0x07, 0x01, hb),  # HEARTBEAT: sample 1 is all there is
            (SPDP_GROUP, self._meta),
        )

    def write(self, payload: bytes) -> None:
        """Send one sample (its bytes as given, encapsulation header included)."""
        self._seq += 1
        if len(payload) <= _FRAG:
            msg = self._data_msg(b"\0\0\0\0", _USER_W, self._seq, payload)
            self._sock.sendto(self._header() + msg, (SPDP_GROUP, self._data))
            return
        n_frags = -(-len(payload) // _FRAG)
        for i in range(n_frags):
            chunk = payload[i * _FRAG : (i + 1) * _FRAG]
            body = (
                struct.pack("<HH", 0, 28)
                + b"\0\0\0\0"
                + _USER_W
                + struct.pack("<iIIHHI", 0, self._seq, i + 1, 1, _FRAG, len(payload))
                + chunk
            )
            self._sock.sendto(
                self._header() + self._submessage(0x16, 0x01, body), (SPDP_GROUP, self._data)
            )
            time.sleep(0.0002)  # do not overrun the receiver's socket buffer

    def close(self) -> None:
        """Close the socket (peers drop this participant when its lease ends)."""
        self._sock.close()

    def __enter__(self) -> RawRtpsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
