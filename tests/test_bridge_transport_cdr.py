"""The bounded CDR decoders: exact on valid samples, a reason (never a crash) on hostile ones."""

from __future__ import annotations

import math
import struct

import pytest
from cyclonedds.idl._support import Endianness
from hypothesis import given, settings
from hypothesis import strategies as st

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.cdr import (
    MAX_SAMPLE_BYTES,
    MAX_SEQUENCE,
    DecodeError,
    decode,
    decode_joint_state,
    decode_string,
)
from mjscope.bridge.transport.dds_config import MAX_DDS_SAMPLE_BYTES
from mjscope.bridge.transport.hostile import encode_joint_state, hostile_samples
from mjscope.bridge.transport.ros2_types import JointState_, String_, from_wire, to_wire

NAMES = [f"left_joint{i}" for i in range(1, 8)]

floats = st.floats(allow_nan=False, width=64)
messages = st.builds(
    JointState,
    stamp=st.builds(Stamp, st.integers(-(2**31), 2**31 - 1), st.integers(0, 2**32 - 1)),
    frame_id=st.text(max_size=20),
    name=st.lists(st.text(max_size=12), max_size=8),
    position=st.lists(floats, max_size=8),
    velocity=st.lists(floats, max_size=8),
    effort=st.lists(floats, max_size=8),
)


@settings(max_examples=300, deadline=None)
@given(messages)
def test_round_trip_equals_the_binding_in_every_encoding(msg: JointState) -> None:
    wire = to_wire(msg)
    for raw in (wire.serialize(), wire.serialize(endianness=Endianness.Big)):
        assert decode(raw, JointState_) == msg
        assert from_wire(JointState_.deserialize(raw)) == msg
    assert decode(wire.serialize(use_version_2=True), JointState_) == msg  # XCDR2: the binding


def test_non_finite_values_are_decoded_as_sent_for_validation_to_reject() -> None:
    raw = encode_joint_state([b"a", b"b"], [math.nan, math.inf], [-math.inf, 0.0])
    got = decode_joint_state(raw)
    assert math.isnan(got.position[0]) and got.position[1] == math.inf
    assert got.velocity == [-math.inf, 0.0] and got.effort == []


def test_strings_round_trip_and_reject_bad_utf8() -> None:
    assert decode(String_(data="reset ✓").serialize(), String_) == "reset ✓"
    bad = b"\x00\x01\x00\x00" + struct.pack("<I", 3) + b"\xff\xfe\x00"
    with pytest.raises(DecodeError, match="not valid UTF-8") as e:
        decode_string(bad)
    assert e.value.reason == "undecodable"


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("utf8_name", "undecodable"),
        ("utf8_frame_id", "undecodable"),
        ("truncated", "undecodable"),
        ("name_count_beyond_payload", "too_large"),
        ("string_length_beyond_payload", "undecodable"),
        ("position_count_beyond_payload", "too_large"),
        ("unterminated_string", "undecodable"),
        ("huge_name", "too_large"),
        ("over_dds_limit", "too_large"),
    ],
)
def test_every_malformed_sample_has_its_reason(kind: str, reason: str) -> None:
    with pytest.raises(DecodeError) as e:
        decode(hostile_samples(NAMES)[kind].data, JointState_)
    assert e.value.reason == reason


def test_lengths_are_checked_before_anything_is_allocated() -> None:
    head = b"\x00\x01\x00\x00" + struct.pack("<iI", 0, 0) + struct.pack("<I", 1) + b"\0\0\0\0"
    beyond = head + struct.pack("<I", MAX_SEQUENCE) + b"\0" * 16  # 4096 names need 16 KiB
    with pytest.raises(DecodeError, match="beyond the"):
        decode_joint_state(beyond)
    with pytest.raises(DecodeError, match="limit 4096"):
        decode_joint_state(head + struct.pack("<I", MAX_SEQUENCE + 1))
    with pytest.raises(DecodeError, match=f"limit {MAX_SAMPLE_BYTES}"):
        decode_joint_state(b"\x00\x01\x00\x00" + b"\0" * MAX_SAMPLE_BYTES)
    assert MAX_SAMPLE_BYTES < 1_000_000 < MAX_DDS_SAMPLE_BYTES  # a 1 MB name is counted


@pytest.mark.parametrize(
    "raw", [b"", b"\x00", b"\x00\x01\x00", b"\x00\x01\x00\x00", b"\x01\x00\x00\x00" + b"\0" * 40]
)
def test_short_and_unknown_headers_are_undecodable(raw: bytes) -> None:
    with pytest.raises(DecodeError) as e:
        decode(raw, JointState_)
    assert e.value.reason == "undecodable"


@settings(max_examples=500, deadline=None)
@given(messages, st.data())
def test_mutated_samples_decode_or_fail_with_a_reason_never_otherwise(
    msg: JointState, data: st.DataObject
) -> None:
    raw = bytearray(to_wire(msg).serialize(use_version_2=data.draw(st.booleans())))
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "grow", "u32"]))
        at = data.draw(st.integers(0, max(0, len(raw) - 1)))
        if op == "flip" and raw:
            raw[at] ^= data.draw(st.integers(1, 255))
        elif op == "cut":
            del raw[at:]
        elif op == "grow":
            raw[at:at] = data.draw(st.binary(max_size=16))
        elif len(raw) >= at + 4:
            raw[at : at + 4] = struct.pack("<I", data.draw(st.integers(0, 2**32 - 1)))
    try:
        got = decode(bytes(raw), JointState_)
    except DecodeError as e:
        assert e.reason in ("undecodable", "too_large")
        return
    assert isinstance(got, JointState)
    assert all(isinstance(n, str) for n in got.name)
    assert all(isinstance(v, float) for v in got.position + got.velocity + got.effort)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=256))
def test_arbitrary_bytes_never_raise_anything_else(raw: bytes) -> None:
    for wire in (JointState_, String_):
        try:
            decode(raw, wire)
        except DecodeError as e:
            assert e.reason in ("undecodable", "too_large")
