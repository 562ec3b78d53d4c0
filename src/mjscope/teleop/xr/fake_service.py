"""A stand-in for the XRoboToolkit PC service: feeds the SDK source without a headset.

The SDK (``xrobotoolkit_sdk``) connects over gRPC to 127.0.0.1:60061, calls
``PXREAService.EAService/SendBeat`` every 0.5 s and ``WatchServerFeedback(VRPid{pid})``, a
stream of ``ServerFeedback{name="deviceStateJson", devicestatejson=DeviceStateJson{devid,
statejson}}`` whose ``statejson`` is the PC-service message. The message schema is not
published: :func:`~mjscope.teleop.xr.schema.load_pxrea_schema` recovers it from the SDK
binary and builds the classes at run time; the server uses grpcio's generic handlers. Needs
``grpcio`` and ``protobuf`` (the dev extra).

Run it in **another process** than the SDK: the SDK's ``close()`` holds the GIL while it waits
for the stream to end, which an in-process Python server then can never end::

    python -m mjscope.teleop.xr serve --replay demo --duration 60
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent import futures
from pathlib import Path
from typing import Any

from mjscope.exceptions import MjscopeError
from mjscope.teleop.xr.message import encode_pc_message
from mjscope.teleop.xr.replay import load_replay
from mjscope.teleop.xr.schema import SERVICE, PxreaSchema, import_optional, load_pxrea_schema
from mjscope.teleop.xr.sender import timed_frames

SDK_HOST, SDK_PORT = "127.0.0.1", 60061


class FakePcService:
    """A gRPC server answering the SDK's ``SendBeat`` and ``WatchServerFeedback``.

    Each stream sends the current state (:meth:`set_state`) whenever it changes.

    Args:
        schema: The message classes; default: :func:`load_pxrea_schema`.
        host: Address to bind.
        port: Port to bind (the SDK only knows 60061).
        devid: The ``devid`` sent with each state.
        max_messages: Most messages one stream sends before it ends.

    Attributes:
        beats: ``SendBeat`` calls served.
        watchers: ``WatchServerFeedback`` streams opened.
        sent: State messages sent, over all streams.
    """

    def __init__(
        self,
        schema: PxreaSchema | None = None,
        host: str = SDK_HOST,
        port: int = SDK_PORT,
        devid: str = "PICO-FAKE",
        max_messages: int = 1_000_000,
    ) -> None:
        self.schema = schema or load_pxrea_schema()
        self.host, self.port, self.devid, self.max_messages = host, port, devid, max_messages
        self.beats = self.watchers = self.sent = 0
        self._cond = threading.Condition()
        self._state: str | None = None
        self._version = 0
        self._stopped = False
        self._server: Any = None

    def set_state(self, statejson: str) -> None:
        """Publish a PC-service message (``{"value": "<inner JSON>"}``) to every stream."""
        with self._cond:
            self._state, self._version = statejson, self._version + 1
            self._cond.notify_all()

    def _beat(self, request: Any, context: Any) -> Any:
        self.beats += 1
        return self.schema.empty()

    def _next_state(self, seen: int, timeout_s: float) -> tuple[int, str | None]:
        with self._cond:
            self._cond.wait_for(lambda: self._stopped or self._version != seen, timeout_s)
            if self._stopped or self._version == seen:
                return seen, None
            return self._version, self._state

    def _watch(self, request: Any, context: Any) -> Any:
        self.watchers += 1
        seen, count = 0, 0
        while not self._stopped and context.is_active() and count < self.max_messages:
            seen, state = self._next_state(seen, 0.05)
            if state is None:
                continue
            s = self.schema
            dsj = s.device_state_json(devid=self.devid, statejson=state)
            yield s.server_feedback(name="deviceStateJson", devicestatejson=dsj)
            count += 1
            self.sent += 1

    def _handler(self) -> Any:
        grpc = import_optional("grpc")
        s = self.schema
        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "SendBeat": grpc.unary_unary_rpc_method_handler(
                    self._beat,
                    request_deserializer=s.empty.FromString,
                    response_serializer=s.empty.SerializeToString,
                ),
                "WatchServerFeedback": grpc.unary_stream_rpc_method_handler(
                    self._watch,
                    request_deserializer=s.vr_pid.FromString,
                    response_serializer=s.server_feedback.SerializeToString,
                ),
            },
        )

    def start(self) -> None:
        """Bind and serve (``port`` 0 picks a free port, then :attr:`port` holds it).

        Raises:
            MjscopeError: The port is busy (no port sharing: ``grpc.so_reuseport`` is off).
        """
        grpc = import_optional("grpc")
        server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=4), options=[("grpc.so_reuseport", 0)]
        )
        server.add_generic_rpc_handlers((self._handler(),))
        try:
            bound = server.add_insecure_port(f"{self.host}:{self.port}")
        except RuntimeError:
            bound = 0
        if not bound:
            raise MjscopeError(f"cannot serve the fake PC service on {self.host}:{self.port}: busy")
        server.start()
        self.port, self._server = bound, server

    def stop(self, grace_s: float = 0.2) -> None:
        """End every stream and stop the server."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._server is not None:
            self._server.stop(grace_s).wait(timeout=5.0)
            self._server = None


def _wait(until: Callable[[], bool], deadline: float) -> None:
    while not until() and time.monotonic() < deadline:
        time.sleep(0.01)


def serve_replay(
    path: str | Path,
    duration_s: float,
    speed: float = 1.0,
    loop: bool = False,
    on_ready: Callable[[FakePcService], None] | None = None,
) -> FakePcService:
    """Serve a replay file to the SDK: the replay starts when the SDK first watches.

    Args:
        path: The replay file.
        duration_s: Stop after this long [s] in all (waiting included).
        speed: Playback speed factor.
        loop: Start over after the last row.
        on_ready: Called once the server listens.

    Returns:
        The stopped service (for its counters).
    """
    rows = load_replay(path)
    service = FakePcService()
    service.start()
    deadline = time.monotonic() + duration_s
    try:
        if on_ready is not None:
            on_ready(service)
        _wait(lambda: service.watchers > 0, deadline)
        left = max(0.0, deadline - time.monotonic())
        for frame in timed_frames(rows, speed, loop, left):
            service.set_state(encode_pc_message(frame))
        _wait(lambda: False, deadline)
    finally:
        service.stop()
    return service
