"""The fake PC service: schema recovery from a binary, and the gRPC server (port 0, in-process).

The server test talks to it with a plain grpcio client, never the SDK, so running both in one
process is safe here.
"""

from __future__ import annotations

import importlib.util
import json
import threading

import numpy as np
import pytest

from mjscope.exceptions import MjscopeError
from mjscope.teleop.xr import parse_pc_message
from mjscope.teleop.xr.fake_service import FakePcService
from mjscope.teleop.xr.schema import (
    SERVICE,
    PxreaSchema,
    extract_file_descriptor,
    load_pxrea_schema,
)
from tests.utils import import_optional, skip_optional

pb2 = import_optional("google.protobuf.descriptor_pb2", "protobuf not installed (dev extra)")

#: What the schema recovery found in xrobotoolkit-sdk 1.1.0 (the part the SDK source needs).
EXPECTED_FIELDS = {
    "VRPid": {"pid": (1, pb2.FieldDescriptorProto.TYPE_INT32)},
    "DeviceStateJson": {
        "devid": (1, pb2.FieldDescriptorProto.TYPE_STRING),
        "statejson": (2, pb2.FieldDescriptorProto.TYPE_STRING),
    },
    "ServerFeedback": {
        "name": (1, pb2.FieldDescriptorProto.TYPE_STRING),
        "devicestatejson": (15, pb2.FieldDescriptorProto.TYPE_MESSAGE),
    },
}


def minimal_descriptor() -> bytes:
    """A ``PXREAService.proto`` with just the messages and methods the SDK source uses."""
    T = pb2.FieldDescriptorProto
    fd = pb2.FileDescriptorProto(
        name="PXREAService.proto",
        package="PXREAService",
        dependency=["google/protobuf/empty.proto"],
        syntax="proto3",
    )
    for msg, fields in EXPECTED_FIELDS.items():
        m = fd.message_type.add(name=msg)
        for name, (number, kind) in fields.items():
            f = m.field.add(name=name, number=number, type=kind, label=T.LABEL_OPTIONAL)
            if kind == T.TYPE_MESSAGE:
                f.type_name = ".PXREAService.DeviceStateJson"
    svc = fd.service.add(name="EAService")
    svc.method.add(
        name="SendBeat",
        input_type=".google.protobuf.Empty",
        output_type=".google.protobuf.Empty",
    )
    svc.method.add(
        name="WatchServerFeedback",
        input_type=".PXREAService.VRPid",
        output_type=".PXREAService.ServerFeedback",
        server_streaming=True,
    )
    return fd.SerializeToString()


def test_extract_finds_the_descriptor_among_decoys():
    rng = np.random.default_rng(0)
    good = minimal_descriptor()
    decoy = b"\n\x12PXREAService.proto\xff\xff\xff"  # the name, then no valid descriptor
    blob = rng.bytes(5000) + decoy + rng.bytes(100) + good + b"\x00" * 16 + rng.bytes(3000)
    assert extract_file_descriptor(blob) == good


def test_extract_fails_clearly_without_a_descriptor():
    with pytest.raises(MjscopeError, match=r"no PXREAService\.proto descriptor"):
        extract_file_descriptor(b"\x00" * 100 + b"\n\x12PXREAService.proto")


def test_schema_from_a_file(tmp_path):
    lib = tmp_path / "libfake.so"
    lib.write_bytes(b"\x7fELF" + bytes(200) + minimal_descriptor() + bytes(8))
    s = load_pxrea_schema(lib)
    msg = s.server_feedback(name="deviceStateJson", devicestatejson=s.device_state_json(devid="x"))
    assert s.server_feedback.FromString(msg.SerializeToString()).devicestatejson.devid == "x"


def test_schema_recovered_from_the_installed_sdk_has_the_expected_fields():
    if importlib.util.find_spec("xrobotoolkit_sdk") is None:  # only its file is read
        skip_optional("xrobotoolkit_sdk not installed (extra xr)")
    s = load_pxrea_schema()
    for cls, name in ((s.vr_pid, "VRPid"), (s.server_feedback, "ServerFeedback")):
        assert cls.DESCRIPTOR.full_name == f"PXREAService.{name}"
    for cls, name in ((s.device_state_json, "DeviceStateJson"), (s.vr_pid, "VRPid")):
        fields = {f.name: (f.number, f.type) for f in cls.DESCRIPTOR.fields}
        assert fields == EXPECTED_FIELDS[name]
    sf = {f.name: f.number for f in s.server_feedback.DESCRIPTOR.fields}
    assert sf["name"] == 1 and sf["devicestatejson"] == 15
    svc = s.server_feedback.DESCRIPTOR.file.services_by_name["EAService"]
    assert svc.methods_by_name["WatchServerFeedback"].output_type.name == "ServerFeedback"


@pytest.fixture
def service(tmp_path):
    grpc = import_optional("grpc", "grpcio not installed (dev extra)")
    lib = tmp_path / "lib.so"
    lib.write_bytes(minimal_descriptor())
    svc = FakePcService(schema=load_pxrea_schema(lib), port=0, max_messages=3)
    svc.start()
    yield grpc, svc
    svc.stop()


def _client(grpc, svc: FakePcService):
    s: PxreaSchema = svc.schema
    channel = grpc.insecure_channel(f"127.0.0.1:{svc.port}")
    beat = channel.unary_unary(
        f"/{SERVICE}/SendBeat",
        request_serializer=s.empty.SerializeToString,
        response_deserializer=s.empty.FromString,
    )
    watch = channel.unary_stream(
        f"/{SERVICE}/WatchServerFeedback",
        request_serializer=s.vr_pid.SerializeToString,
        response_deserializer=s.server_feedback.FromString,
    )
    return channel, beat, watch


def test_server_beats_and_streams_each_new_state(service):
    grpc, svc = service
    assert svc.port > 0
    channel, beat, watch = _client(grpc, svc)
    with channel:
        beat(svc.schema.empty(), timeout=5.0)
        assert svc.beats == 1
        states = [
            json.dumps({"value": json.dumps({"Controller": {}, "timeStampNs": k})})
            for k in (1, 2, 3)
        ]
        feeder = threading.Timer(0.2, lambda: [svc.set_state(x) for x in states[:1]])
        feeder.start()
        got = []
        for k, reply in enumerate(watch(svc.schema.vr_pid(pid=42), timeout=10.0)):
            assert reply.name == "deviceStateJson" and reply.devicestatejson.devid == "PICO-FAKE"
            got.append(reply.devicestatejson.statejson)
            if k + 1 < len(states):
                svc.set_state(states[k + 1])
        feeder.join()
    assert got == states  # then the stream ended: max_messages = 3
    assert svc.watchers == 1 and svc.sent == 3


def test_streamed_state_parses_as_a_frame(service):
    grpc, svc = service
    msg = json.dumps({"value": json.dumps({"Controller": {"left": {"pose": "0,1,0,0,0,0,1"}}})})
    svc.set_state(msg)
    channel, _, watch = _client(grpc, svc)
    with channel:
        reply = next(iter(watch(svc.schema.vr_pid(pid=1), timeout=10.0)))
    f = parse_pc_message(reply.devicestatejson.statejson, now_ns=5)
    assert f.left is not None and f.left.pose[2] == pytest.approx(1.0)


def test_a_busy_port_is_a_clear_error(service):
    _, svc = service
    other = FakePcService(schema=svc.schema, port=svc.port)
    with pytest.raises(MjscopeError, match=f"127.0.0.1:{svc.port}: busy"):
        other.start()
