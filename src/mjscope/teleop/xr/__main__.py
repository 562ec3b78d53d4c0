"""``python -m mjscope.teleop.xr``: drive a teleop's XR input without a headset.

``send`` plays a replay file as PC-service UDP datagrams (for the ``udp`` XR source);
``serve`` runs the fake PC service on 127.0.0.1:60061 that the XRoboToolkit SDK reads (the
``sdk`` source; run it in its own process). ``--replay demo`` is the bundled demo session.
Exit codes: 0 done, 2 a user error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mjscope.exceptions import MjscopeError
from mjscope.teleop.xr.replay import demo_replay_path


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--replay", default="demo", help="replay file, or 'demo' (the bundled one)")
    p.add_argument("--speed", type=float, default=1.0, help="playback speed factor")
    p.add_argument("--loop", action="store_true", help="start over after the last row")


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``send`` and ``serve``."""
    p = argparse.ArgumentParser(prog="python -m mjscope.teleop.xr", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    send = sub.add_parser("send", help="play a replay file as UDP datagrams")
    send.add_argument("--port", type=int, required=True, help="the teleop's XR UDP port")
    send.add_argument("--host", default="127.0.0.1", help="the teleop's address")
    send.add_argument("--duration", type=float, default=None, help="stop after this long [s]")
    _common(send)
    serve = sub.add_parser("serve", help="fake PC service for the XRoboToolkit SDK")
    serve.add_argument("--duration", type=float, default=60.0, help="serve this long [s]")
    _common(serve)
    return p


def _send(args: argparse.Namespace, path: Path) -> str:
    from mjscope.teleop.xr.sender import stream_replay_udp

    n = stream_replay_udp(path, args.port, args.host, args.speed, args.loop, args.duration)
    return f"sent {n} XR datagrams to {args.host}:{args.port}"


def _serve(args: argparse.Namespace, path: Path) -> str:
    from mjscope.teleop.xr.fake_service import FakePcService, serve_replay

    def ready(service: FakePcService) -> None:
        print(f"ready {service.host}:{service.port}", flush=True)

    s = serve_replay(path, args.duration, args.speed, args.loop, ready)
    return f"done: {s.beats} beats, {s.watchers} watchers, {s.sent} states"


def main(argv: list[str] | None = None) -> int:
    """Run ``send`` or ``serve``; returns the exit code."""
    args = build_parser().parse_args(argv)
    path = demo_replay_path() if args.replay == "demo" else Path(args.replay)
    try:
        done = (_send if args.command == "send" else _serve)(args, path)
    except MjscopeError as e:
        print(f"error: {e}", file=sys.stderr, flush=True)
        return 2
    except KeyboardInterrupt:
        return 130
    print(done, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
