"""The PC service's gRPC schema, recovered from the XRoboToolkit SDK binary at run time.

The schema (``PXREAService.proto``) is not published. The SDK's ``libPXREARobotSDK.so`` embeds
it as a serialized ``FileDescriptorProto`` (protobuf does that for every compiled ``.proto``):
:func:`extract_file_descriptor` finds it by its file name and walks its top-level fields to
its end, and :func:`load_pxrea_schema` builds the message classes from it (no generated code).
In xrobotoolkit-sdk 1.1.0: ``VRPid{int32 pid = 1}``, ``DeviceStateJson{string devid = 1;
string statejson = 2}``, ``ServerFeedback{string name = 1; oneof FeedbackArgs {...;
DeviceStateJson devicestatejson = 15}}``. Needs ``protobuf``.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path
from typing import Any, NamedTuple

from mjscope.exceptions import MjscopeError

SERVICE = "PXREAService.EAService"
PROTO_NAME = "PXREAService.proto"
LIBRARY = "libPXREARobotSDK.so"
GRPC_HINT = "the fake PC service needs grpcio and protobuf: pip install grpcio protobuf"


class PxreaSchema(NamedTuple):
    """Message classes of ``PXREAService.proto`` built at run time."""

    empty: Any
    vr_pid: Any
    server_feedback: Any
    device_state_json: Any


def sdk_library_path() -> Path:
    """The SDK's ``libPXREARobotSDK.so``, found without importing the SDK.

    Raises:
        MjscopeError: ``xrobotoolkit_sdk`` is not installed.
    """
    spec = importlib.util.find_spec("xrobotoolkit_sdk")
    if spec is None or not spec.submodule_search_locations:
        raise MjscopeError("xrobotoolkit_sdk is not installed: pip install 'mjscope[xr]'")
    for folder in spec.submodule_search_locations:
        if (Path(folder) / LIBRARY).is_file():
            return Path(folder) / LIBRARY
    raise MjscopeError(
        f"xrobotoolkit_sdk has no {LIBRARY}; reinstall it: pip install 'mjscope[xr]'"
    )


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    value = 0
    for shift in range(0, 70, 7):
        if i >= len(buf):
            raise ValueError("truncated varint")
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i
    raise ValueError("varint too long")


def _message_end(blob: bytes, start: int, max_field: int = 20) -> int:
    """Where the top-level protobuf fields (numbers 1..``max_field``) from ``start`` stop."""
    i = start
    while i < len(blob):
        try:
            tag, j = _varint(blob, i)
            if not 1 <= tag >> 3 <= max_field or tag & 7 not in (0, 2):
                break
            length, j = _varint(blob, j)
        except ValueError:
            break
        end = j + length if tag & 7 == 2 else j
        if end > len(blob):
            break
        i = end
    return i


def extract_file_descriptor(blob: bytes, name: str = PROTO_NAME) -> bytes:
    """The serialized ``FileDescriptorProto`` of ``name`` embedded in a binary.

    Args:
        blob: The binary's bytes.
        name: The ``.proto`` file name (shorter than 128 bytes).

    Returns:
        The descriptor's bytes.

    Raises:
        MjscopeError: Not found, or protobuf is missing.
    """
    descriptor_pb2 = import_optional("google.protobuf.descriptor_pb2")
    key = b"\n" + bytes([len(name)]) + name.encode()
    start = blob.find(key)
    while start >= 0:
        candidate = blob[start : _message_end(blob, start)]
        try:
            fd = descriptor_pb2.FileDescriptorProto.FromString(candidate)
        except Exception:  # protobuf's DecodeError (or a RuntimeWarning): not this one
            fd = None
        if fd is not None and fd.name == name and fd.service:
            return candidate
        start = blob.find(key, start + 1)
    raise MjscopeError(f"no {name} descriptor found in the binary; is this xrobotoolkit-sdk 1.1.0?")


def import_optional(module: str) -> Any:
    """Import ``grpc`` or a ``google.protobuf`` module, or fail with the install hint.

    gRPC's fork handlers are switched off before its first import (unless the environment
    says otherwise): this process only ever forks to exec (ffmpeg for the demo video), and
    with them a forked child restarted gRPC's poller, which could hang it before its exec.
    """
    os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MjscopeError(f"{GRPC_HINT} ({e})") from e


def load_pxrea_schema(library: str | Path | None = None) -> PxreaSchema:
    """Build the PC-service message classes from the descriptor inside the SDK binary.

    Args:
        library: The ``libPXREARobotSDK.so``; default: the installed SDK's.

    Raises:
        MjscopeError: The SDK, protobuf or the descriptor is missing.
    """
    blob = Path(library or sdk_library_path()).read_bytes()
    serialized = extract_file_descriptor(blob)
    pool_mod = import_optional("google.protobuf.descriptor_pool")
    factory = import_optional("google.protobuf.message_factory")
    empty_pb2 = import_optional("google.protobuf.empty_pb2")
    pool = pool_mod.DescriptorPool()
    pool.AddSerializedFile(empty_pb2.DESCRIPTOR.serialized_pb)
    pool.AddSerializedFile(serialized)

    def cls(full: str) -> Any:
        return factory.GetMessageClass(pool.FindMessageTypeByName(full))

    return PxreaSchema(
        empty=cls("google.protobuf.Empty"),
        vr_pid=cls("PXREAService.VRPid"),
        server_feedback=cls("PXREAService.ServerFeedback"),
        device_state_json=cls("PXREAService.DeviceStateJson"),
    )
