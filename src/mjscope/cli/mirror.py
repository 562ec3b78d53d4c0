"""``mjscope mirror``: show a rig's live joint states in MuJoCo, by joint name.

Follows the two arms' ``joint_states`` topics over DDS (ROS 2 wire format) or the in-process
bus, validates every frame whole, writes ``qpos`` by name and calls ``mj_forward`` (never
``mj_step``); the picture refreshes on its own clock at ``render_rate_hz``.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

DEMO_ORDER = 20
DEFAULT_MODEL = "dual_rm75"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``mirror`` subcommand."""
    from mjscope.cli._common import add_model_arguments

    p = sub.add_parser(
        "mirror",
        help="mirror a rig's live joint states in MuJoCo (by name)",
        description="Follow each side's sensor_msgs/JointState topic (DDS, ROS 2 wire format, or "
        "in-process), validate every frame whole, write qpos by joint name, mj_forward only. "
        "Example: mjscope mirror --demo --duration 5 --record arms.mp4",
    )
    p.add_argument("--model", default=DEFAULT_MODEL, help="bundled name or URDF/MJCF file")
    add_model_arguments(p)
    p.add_argument("--config", default=None, help="rig YAML (default: dual_arm_rm75.yaml)")
    p.add_argument("--mujoco-config", default=None, help="render YAML (dual_arm_mujoco.yaml)")
    p.add_argument("--sides", default=None, help="comma-separated subset of sides, e.g. left")
    p.add_argument(
        "--map-prefix",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="rename message joints to model joints by prefix, e.g. left_= (repeatable)",
    )
    p.add_argument(
        "--transport",
        choices=("inproc", "dds"),
        default=None,
        help="dds: ROS 2-compatible Cyclone DDS (default); inproc: this process (--demo default)",
    )
    p.add_argument("--domain-id", type=int, default=None, help="DDS domain (ROS_DOMAIN_ID)")
    p.add_argument(
        "--viewer",
        choices=("auto", "none", "native"),
        default="auto",
        help="native: MuJoCo window; none: headless; auto: native when DISPLAY is set",
    )
    p.add_argument("--record", default=None, metavar="FILE", help="offscreen video .mp4/.gif")
    p.add_argument("--snapshot", default=None, metavar="FILE", help="final pose as .png")
    p.add_argument(
        "--duration", type=float, default=None, help="run time [s] (default: until closed)"
    )
    p.add_argument("--report", default=None, metavar="FILE", help="write a JSON report")
    p.add_argument("--demo", action="store_true", help="mock arms in this process (inproc)")
    p.add_argument("--motion", choices=("none", "sine"), default="sine", help="--demo motion")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the mirror and print a summary; exit 1 when a side never delivered a valid frame."""
    from mjscope.bridge.mock_arm import MockArm, run_mock_arms
    from mjscope.bridge.transport import make_transport
    from mjscope.cli._bus import transport_options
    from mjscope.cli._common import console, is_terminal
    from mjscope.cli._mirror_run import LoopOptions, run_loop, stop_on_sigterm

    if args.duration is not None and not args.duration > 0:
        raise _usage(f"--duration {args.duration} must be > 0 seconds")
    rig, render = _configs(args)
    model = _model(args)
    opts = LoopOptions(
        duration=args.duration,
        viewer=_viewer(args.viewer),
        record=_out(args.record, (".mp4", ".gif")),
        snapshot=_out(args.snapshot, (".png",)),
        live_status=is_terminal(),
    )
    report_path = _out(args.report, (".json",))
    kind = args.transport or ("inproc" if args.demo else "dds")
    con = console()
    if kind == "inproc" and not args.demo:
        con.print("note: inproc carries only this process's messages; use dds for a robot or mock")
    with make_transport(kind, **transport_options(kind, args.domain_id)) as transport:
        stop = threading.Event()
        mocks = None
        if args.demo:
            arms = [MockArm(transport, n, s, args.motion) for n, s in rig.sides.items()]
            mocks = threading.Thread(target=run_mock_arms, args=(arms, None, stop), daemon=True)
            mocks.start()
        con.print(
            f"mirroring {', '.join(rig.sides)} on {kind} ({_topics(rig)}); Ctrl-C ends",
            soft_wrap=True,
        )
        try:
            with stop_on_sigterm(stop):
                mirror, _ = run_loop(model, rig, render, transport, opts, stop)
        finally:
            stop.set()
            if mocks is not None:
                mocks.join(timeout=2.0)
    report = mirror.report()
    if report_path is not None:
        _write_report(report, report_path)
    _print_summary(con, report, opts, report_path)
    return 0 if mirror.ready else 1


def _usage(msg: str) -> Exception:
    from mjscope.exceptions import MjscopeError

    return MjscopeError(msg)


def _configs(args: argparse.Namespace) -> tuple[Any, Any]:
    from mjscope.bridge.config import check_rig_cfg, load_render_cfg, load_rig_cfg
    from mjscope.exceptions import UnknownNameError

    rig = load_rig_cfg(args.config)
    if args.sides:
        want = [s.strip() for s in args.sides.split(",") if s.strip()]
        for s in want:
            if s not in rig.sides:
                raise UnknownNameError("side", s, rig.sides, "use --sides with configured sides")
        rig = replace(rig, sides={s: rig.sides[s] for s in want})
    if args.map_prefix:
        rig = replace(rig, sides={n: _map_prefix(s, args.map_prefix) for n, s in rig.sides.items()})
    check_rig_cfg(rig, "--config")
    return rig, load_render_cfg(args.mujoco_config)


def _map_prefix(side: Any, rules: list[str]) -> Any:
    jm = dict(side.joint_map)
    for rule in rules:
        if "=" not in rule:
            raise _usage(f"--map-prefix {rule!r} needs the form OLD=NEW (e.g. left_=)")
        old, new = rule.split("=", 1)
        for n in side.joint_names:
            src = jm.get(n, n)
            if old and src.startswith(old):
                jm[n] = new + src[len(old) :]
    return replace(side, joint_map=jm)


def _model(args: argparse.Namespace) -> Any:
    from mjscope.cli._common import load_options
    from mjscope.models import compile_spec, load_spec
    from mjscope.models.scene import add_light, set_offscreen_size

    spec = load_spec(args.model, load_options(args))
    if not spec.lights:
        add_light(spec)
    set_offscreen_size(spec, 1280, 960)
    return compile_spec(spec, str(args.model))


def _viewer(choice: str) -> str:
    if choice == "auto":
        return "native" if os.environ.get("DISPLAY") else "none"
    return choice


def _out(path: str | None, suffixes: tuple[str, ...]) -> Path | None:
    if path is None:
        return None
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise _usage(f"output {path!r} must end in {' or '.join(suffixes)}")
    from mjscope.paths import check_writable

    return check_writable(p)


def _write_report(report: dict[str, Any], path: Path) -> None:
    from mjscope.exceptions import OutputError

    try:
        path.write_text(json.dumps(report, indent=2))
    except OSError as e:
        raise OutputError(f"cannot write {str(path)!r}: {e.strerror}; choose another path") from e


def _topics(rig: Any) -> str:
    return ", ".join(s.state_topic for s in rig.sides.values())


def _print_summary(con: Any, report: dict[str, Any], opts: Any, report_path: Path | None) -> None:
    for topic, t in report["topics"].items():
        rej = t["rejected_by_reason"] or "none"
        con.print(
            f"{t['side']:>6} {topic}: {t['received']} frames ({t['received_rate_hz']:.1f} Hz), "
            f"valid {t['valid']}, rejected {rej}, publishers {t['publisher_count']}",
            soft_wrap=True,
        )
    if report["waiting_for"]:
        con.print(f"[red]never received a valid frame from: {', '.join(report['waiting_for'])}[/]")
    elif opts.snapshot is not None:
        con.print(f"wrote {opts.snapshot}")
    if opts.record is not None and report["ready"]:
        con.print(f"wrote {opts.record}")
    if report_path is not None:
        con.print(f"wrote {report_path}")


def demo(out: Path) -> tuple[list[Path], int]:
    """Mock arms + mirror in one process (virtual clock): a GIF, a PNG strip and a report."""
    from mjscope.cli._mirror_demo import run_demo

    return run_demo(Path(out) / "mirror")
