"""``mjscope hand``: the LinkerHand G20 bridge in MuJoCo (seed 000, §11 flags).

Default: listen for legacy 0–255 commands on ``/g20/cb_left_hand_control_cmd``, hard-write with
penetration projection, slew 5 rad/s, publish ``/sim/mujoco/g20/left/joint_state`` at 50 Hz.
``--track-test`` runs the built-in tracking check (exit 0 PASS, 2 FAIL); ``--command`` applies
one pose and reports it.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

DEMO_ORDER = 30
DEFAULT_MODEL = "g20_left"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``hand`` subcommand."""
    from mjscope.cli._common import add_model_arguments

    p = sub.add_parser("hand", help="dexterous-hand bridge: SDK/radian commands → MuJoCo hand")
    p.add_argument("--model", default=DEFAULT_MODEL, help="bundled name or URDF/MJCF file")
    p.add_argument("--profile", default="g20_left", help="bundled profile name or YAML file")
    add_model_arguments(p)
    p.add_argument("--plan-nominal", action="store_true", help="listen for radians by joint name")
    p.add_argument("--legacy-sdk", action="store_true", help="real driver topics /cb_left_hand_*")
    p.add_argument("--pd-drive", action="store_true", help="PD actuators + mj_step")
    p.add_argument("--hand-gravity", action="store_true", help="gravity on the hand (PD only)")
    p.add_argument(
        "--no-self-collision",
        action="store_true",
        help="off: penetration projection (hard-write), hand-hand contacts (PD)",
    )
    p.add_argument("--collide-all", action="store_true", help="g20_left: every link collides")
    p.add_argument(
        "--slew-rad-s",
        type=float,
        default=None,
        help="max joint speed [rad/s] (default 5, 0 = instant; track test 0)",
    )
    p.add_argument(
        "--penetration-tol",
        type=float,
        default=1e-3,
        help="allowed penetration [m] (default 0.001)",
    )
    p.add_argument("--publish-sdk-state", action="store_true", help="also publish 0–255 state")
    p.add_argument("--track-test", action="store_true", help="built-in tracking check")
    p.add_argument(
        "--command",
        dest="pose",
        default=None,
        help="open | fist | FILE (YAML/JSON: sdk: [20 values] or joint: rad): apply once, report",
    )
    p.add_argument(
        "--transport", choices=("inproc", "dds"), default="dds", help="bus (default dds: ROS 2)"
    )
    p.add_argument("--domain-id", type=int, default=None, help="DDS domain (ROS_DOMAIN_ID)")
    p.add_argument("--viewer", choices=("none", "native"), default="none")
    p.add_argument("--record", default=None, metavar="FILE", help="video .mp4/.gif")
    p.add_argument("--snapshot", default=None, metavar="FILE", help="final pose .png")
    p.add_argument("--duration", type=float, default=None, help="run time [s] (default: forever)")
    p.add_argument("--report", default=None, metavar="FILE", help="JSON report")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the bridge, the track test or a single command."""
    from mjscope.cli._common import console

    _check_args(args)
    con = console()
    if args.track_test:
        return _track(args, con)
    bridge = _bridge(args, slew=5.0 if args.pose is None else 0.0)
    if args.pose is not None:
        return _command(args, bridge, con)
    return _live(args, con)


def _check_args(args: argparse.Namespace) -> None:
    from mjscope.exceptions import MjscopeError
    from mjscope.paths import check_writable

    if args.slew_rad_s is not None and not args.slew_rad_s >= 0:
        raise MjscopeError(f"--slew-rad-s {args.slew_rad_s} must be >= 0 (0 = instant)")
    if not args.penetration_tol > 0:
        raise MjscopeError(f"--penetration-tol {args.penetration_tol} must be > 0 metres")
    if args.duration is not None and not args.duration > 0:
        raise MjscopeError(f"--duration {args.duration} must be > 0 seconds")
    if (args.track_test or args.pose is not None) and (args.record or args.viewer != "none"):
        raise MjscopeError(
            "--record/--viewer run with the live bridge; with --track-test or --command "
            "use --snapshot FILE.png"
        )
    if args.hand_gravity and not args.pd_drive:
        raise MjscopeError("--hand-gravity needs --pd-drive (hard-write never steps physics)")
    for flag, value, suffixes in (
        ("--record", args.record, (".mp4", ".gif")),
        ("--snapshot", args.snapshot, (".png",)),
        ("--report", args.report, (".json",)),
    ):
        if value is not None and Path(value).suffix.lower() not in suffixes:
            raise MjscopeError(f"{flag} {value!r}: use a {' or '.join(suffixes)} file name")
        if value is not None:
            check_writable(value)  # fail before the run, not after it


def _bridge(args: argparse.Namespace, slew: float, transport: Any = None) -> Any:
    from mjscope.cli._common import load_options
    from mjscope.hand.bridge import HandBridge, HandBridgeCfg
    from mjscope.hand.model import build_hand_model
    from mjscope.hand.profile import load_profile

    profile = load_profile(args.profile)
    hand = build_hand_model(
        args.model,
        profile,
        pd=args.pd_drive,
        gravity=args.hand_gravity,
        collide_all=args.collide_all,
        self_collision=not args.no_self_collision,
        load_options=load_options(args),
    )
    cfg = HandBridgeCfg(
        pd_drive=args.pd_drive,
        self_collision=not args.no_self_collision,
        slew_rad_s=slew if args.slew_rad_s is None else args.slew_rad_s,
        penetration_tol=args.penetration_tol,
        plan_nominal=args.plan_nominal,
        legacy_sdk=args.legacy_sdk,
        publish_sdk_state=args.publish_sdk_state,
    )
    return HandBridge(hand, cfg, transport)


def _mode(args: argparse.Namespace) -> str:
    return "pd" if args.pd_drive else "hard-write"


def _track(args: argparse.Namespace, con: Any) -> int:
    from mjscope.hand.track import run_track_test

    args.no_self_collision = args.no_self_collision or not args.pd_drive  # seed: projection off
    bridge = _bridge(args, slew=0.0)
    res = run_track_test(bridge)
    verdict = "PASS" if res.passed else "FAIL"
    con.print(
        f"track test ({_mode(args)}): max error {res.max_error:.5f} rad, mean "
        f"{res.mean_error:.5f} rad, threshold {res.threshold} rad, {res.steps} steps, "
        f"recoveries {res.recoveries} → {verdict}"
    )
    _finish(args, bridge, {"track_test": res._asdict(), "mode": _mode(args)})
    return 0 if res.passed else 2


def _command(args: argparse.Namespace, bridge: Any, con: Any) -> int:
    from rich.table import Table

    from mjscope.hand.session import apply_command, parse_command

    rep = apply_command(bridge, parse_command(args.pose, bridge.profile))
    table = Table(title=f"--command {args.pose} ({_mode(args)})")
    for col in ("joint", "goal [rad]", "applied [rad]"):
        table.add_column(col, justify="left" if col == "joint" else "right")
    for j, q in rep["applied"].items():
        table.add_row(j, f"{rep['goal'][j]:.4f}", f"{q:.4f}")
    con.print(table)
    con.print(
        f"max penetration {rep['max_penetration_m'] * 1000:.3f} mm, contacts {rep['contacts']}, "
        f"stopped short: {', '.join(rep['limited_chains']) or 'none'}"
    )
    _finish(args, bridge, {"command": args.pose, "mode": _mode(args), **rep})
    return 0


def _live(args: argparse.Namespace, con: Any) -> int:
    from mjscope.bridge.transport import make_transport
    from mjscope.cli._bus import transport_options
    from mjscope.cli._common import is_terminal
    from mjscope.hand.session import LiveOptions, run_live

    opts = transport_options(args.transport, args.domain_id)
    with make_transport(args.transport, **opts) as transport:
        bridge = _bridge(args, slew=5.0, transport=transport)
        con.print(
            f"hand bridge ({_mode(args)}): listening on {bridge.command_topic} "
            f"({args.transport}), state on /sim/mujoco/g20/left/joint_state"
            + ("" if args.duration or not is_terminal() else "; Ctrl-C to stop")
        )
        t0 = time.monotonic()
        rec = Path(args.record) if args.record else None
        steps = run_live(bridge, LiveOptions(args.duration, args.viewer, rec))
        wall = time.monotonic() - t0
        err = bridge.tracking_error()
        con.print(
            f"{steps} steps in {wall:.1f} s; rejected frames {bridge.rejects.total}"
            f"{_reasons(bridge.rejects.as_dict())}; recoveries {bridge.recoveries}; "
            f"tracking error max {err[0]:.4f} rad"
        )
        _finish(
            args,
            bridge,
            {
                "mode": _mode(args),
                "steps": steps,
                "wall_s": wall,
                "rejected": bridge.rejects.as_dict(),
                "recoveries": bridge.recoveries,
                "tracking_error_rad": err,
                "applied": bridge.positions(),
            },
        )
    return 0  # the transport closes the bridge's endpoints


def _reasons(counts: dict[str, int]) -> str:
    return " (" + ", ".join(f"{k} {v}" for k, v in counts.items()) + ")" if counts else ""


def _finish(args: argparse.Namespace, bridge: Any, report: dict[str, Any]) -> None:
    from mjscope.exceptions import OutputError
    from mjscope.hand.session import snapshot
    from mjscope.paths import check_writable

    if args.snapshot:
        snapshot(bridge, Path(args.snapshot))
    if args.report:
        path = check_writable(args.report)
        try:
            path.write_text(json.dumps(report, indent=2, default=float))
        except OSError as e:
            raise OutputError(f"cannot write {str(path)!r}: {e.strerror}; choose another") from e


def demo(out: Path) -> tuple[list[Path], int]:
    """Open → fist → open on the bundled hand: a GIF and a PNG strip into ``out/hand/``."""
    from mjscope.hand.bridge import HandBridge, HandBridgeCfg
    from mjscope.hand.model import build_hand_model
    from mjscope.hand.profile import load_profile
    from mjscope.sim.render import OffscreenRenderer, image_strip, save_png, write_video

    profile = load_profile()
    bridge = HandBridge(build_hand_model(DEFAULT_MODEL, profile), HandBridgeCfg(slew_rad_s=3.0))
    frames, keys = [], []
    with OffscreenRenderer(bridge.model, 320, 240, "compare") as r:
        for cmd in (profile.open_command, profile.fist_command, profile.open_command):
            bridge.command_sdk(cmd)
            for i in range(60):
                bridge.step()
                if i % 3 == 0:
                    frames.append(r.render(bridge.data))
            keys.append(frames[-1])
    folder = out / "hand"
    gif = write_video(frames, folder / "open_fist_open.gif", fps=15)
    strip = save_png(image_strip(keys), folder / "open_fist_open.png")
    return [gif, strip], 0
