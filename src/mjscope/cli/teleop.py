"""``mjscope teleop``: XR (PICO) teleoperation of the dual RM75 rig through a Placo QP IK.

Per arm at ``control_rate_hz``: XR input → clutch (grip) → target → workspace and Cartesian
speed limits → Placo QP IK → joint speed/acceleration limits → adapter (``--mock`` or
``--real``) → ``joint_states`` + ``joint_target``. ``--mujoco`` (with ``--arm both`` only)
runs the MuJoCo mirror in this process on the same transport; without it MuJoCo is never
imported. This module is the one place where teleop and the mirror meet.
"""

from __future__ import annotations

import argparse
import functools
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from mjscope.bridge.transport.base import Transport
    from mjscope.rig import RigCfg

logger = logging.getLogger(__name__)

MIRROR_MODEL = "dual_rm75"  # the mirror's model when no --urdf is given
DEMO_OUT = "mjscope-out"  # where --demo writes (as `mjscope demo` does)
LOAD_WAIT_S = 30.0  # how long teleop waits for the mirror's model before starting anyway [s]
STOP_WAIT_S = 60.0  # how long teleop waits for the mirror to finish its recording at the end [s]


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``teleop`` subcommand."""
    from mjscope.cli._common import (
        add_bus_arguments,
        add_map_prefix_argument,
        add_model_arguments,
        add_size_argument,
        add_viewer_argument,
    )

    p = sub.add_parser(
        "teleop",
        help="XR (PICO) teleoperation of the dual RM75 rig (clutch, limits, Placo QP IK)",
        description="Drive the rig's arms from XR controllers: grip = clutch, X/A = reset the "
        "left/right arm. Examples: mjscope teleop --demo; "
        "mjscope teleop --mock --mujoco --xr demo --duration 10",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--mock", dest="mode", action="store_const", const="mock", help="mock arms")
    mode.add_argument("--real", dest="mode", action="store_const", const="real", help="real arms")
    mode.add_argument(
        "--demo",
        action="store_true",
        help=f"scripted XR session, both mock arms, filmed by the mirror into ./{DEMO_OUT}/teleop/",
    )
    p.add_argument("--arm", choices=("both", "left", "right"), default="both", help="arms to drive")
    p.add_argument("--mujoco", action="store_true", help="show the arms in MuJoCo (--arm both)")
    p.add_argument("--config", default=None, help="rig YAML (default: dual_arm_rm75.yaml)")
    p.add_argument("--urdf", default=None, help="IK model URDF (default: bundled dual_rm75)")
    add_map_prefix_argument(p)
    add_model_arguments(p)
    add_bus_arguments(p, default="dds")
    p.add_argument(
        "--xr",
        choices=("udp", "sdk", "replay", "demo"),
        default=None,
        help="XR input: udp (PC-service datagrams), sdk (xrobotoolkit-sdk), replay (--replay "
        "FILE), demo (the bundled replay); default udp, or replay with --replay",
    )
    p.add_argument("--xr-port", type=int, default=None, help="--xr udp port (config: xr_port)")
    p.add_argument("--xr-host", default="127.0.0.1", help="--xr udp address to bind")
    p.add_argument("--replay", default=None, metavar="FILE", help="XR replay .yaml/.jsonl")
    p.add_argument("--left-addr", default=None, metavar="HOST:PORT", help="--real left arm")
    p.add_argument("--right-addr", default=None, metavar="HOST:PORT", help="--real right arm")
    p.add_argument("--duration", type=float, default=None, help="run time [s] (default: Ctrl-C)")
    p.add_argument("--report", default=None, metavar="FILE", help="same as --json FILE")
    p.add_argument(
        "--html", default=None, metavar="FILE", help="one-page HTML report of the run (or demo)"
    )
    p.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help=f"--demo: output folder (default ./{DEMO_OUT}; files go to DIR/teleop/)",
    )
    p.add_argument(
        "--log", default=None, metavar="FILE", help="CSV: one row per cycle per arm, with stages"
    )
    p.add_argument(
        "--isolate-faults",
        action="store_true",
        help="a safe stop of one arm leaves the other running (exit 1 at the end); default: "
        "both stop and teleop exits 1 at once",
    )
    p.add_argument(
        "--rt-priority",
        type=int,
        default=None,
        metavar="N",
        help="run each arm's worker under SCHED_FIFO at priority N (1-99; Linux, root or "
        "CAP_SYS_NICE): steady cycles on a busy machine",
    )
    add_viewer_argument(
        p, "--mujoco window: native, none (headless) or auto (native when DISPLAY is set)"
    )
    p.add_argument("--record", default=None, metavar="FILE", help="--mujoco video .mp4/.gif")
    add_size_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run teleop (or ``--demo``); exit 1 when an arm ended in a safe stop."""
    from mjscope.cli._common import DEFAULT_SIZE, cfg_from_args, console, parse_size
    from mjscope.exceptions import MjscopeError
    from mjscope.teleop.session import TeleopCmdCfg, run_teleop

    size = parse_size(args.size)
    if args.demo:
        return _run_demo(args, size)
    if args.mode is None:
        raise MjscopeError("choose the arms: --mock, --real (hardware), or --demo")
    if args.size != DEFAULT_SIZE and args.record is None:
        raise MjscopeError(
            f"--size {args.size} sizes the --demo frames or the --mujoco --record video; "
            "add one of those or drop --size"
        )
    if args.out is not None:
        raise MjscopeError("--out is for --demo; a teleop run writes --report and --log")
    xr = args.xr or ("replay" if args.replay is not None else "udp")
    cfg = cfg_from_args(TeleopCmdCfg, args, xr=xr, report=args.json or args.report)
    companion = MirrorCompanion(args, size) if cfg.mujoco else None
    return run_teleop(cfg, console(args), companion)


def _run_demo(args: argparse.Namespace, size: tuple[int, int]) -> int:
    """``--demo``: the files it wrote on the console, its summary to ``--json``."""
    from mjscope.cli._common import console, out_dir
    from mjscope.paths import check_json_path, write_json
    from mjscope.teleop.demo import run_demo

    json_path = args.json or args.report
    check_json_path(json_path)
    con = console(args)
    picture = functools.partial(MirrorPicture, size=size)
    out = out_dir(args.out or DEMO_OUT)
    written, code, summary = run_demo(out, con, picture, args.duration, args.html)
    for path in written:
        con.print(f"wrote {path}")
    if json_path is not None:
        write_json(json_path, summary)
    return code


class MirrorCompanion:
    """The MuJoCo mirror on teleop's transport, in a thread of its own.

    Its failures are its own: a model that does not load, an exception, a closed window end the
    mirror only (logged and reported), never the arms' commands or safe stops.
    """

    def __init__(self, args: argparse.Namespace, size: tuple[int, int] = (640, 480)) -> None:
        from mjscope.cli._common import load_options
        from mjscope.sim.viewer import resolve_viewer

        self.model = args.urdf or MIRROR_MODEL
        self.load = load_options(args)
        self.viewer = resolve_viewer(args.viewer)
        self.record = Path(args.record) if args.record else None
        self.size = size
        if self.record is not None:
            from mjscope.paths import check_writable

            check_writable(self.record)
        self._stop = threading.Event()
        self._loaded = threading.Event()
        self._thread: threading.Thread | None = None
        self._result: dict[str, Any] = {}

    def start(self, transport: Transport, rig: RigCfg) -> None:
        """Start the mirror thread on ``transport`` (returns once its model is loaded)."""
        self._thread = threading.Thread(
            target=self._run, args=(transport, rig), name="mjscope-mirror", daemon=True
        )
        self._thread.start()
        self._loaded.wait(LOAD_WAIT_S)  # MuJoCo's import and compile, before the arms start

    def _run(self, transport: Transport, rig: RigCfg) -> None:
        try:
            from mjscope.mirror.config import load_render_cfg
            from mjscope.mirror.loop import LoopOptions, run_loop

            opts = LoopOptions(viewer=self.viewer, record=self.record, size=self.size)
            try:
                model = _mirror_model(self.model, self.load, self.size)
            finally:
                self._loaded.set()
            mirror, _ = run_loop(model, rig, load_render_cfg(), transport, opts, self._stop)
            self._result = mirror.report()
            if self.record is not None and mirror.ready and self.record.is_file():
                self._result["record"] = str(self.record)
        except Exception as e:  # the mirror's failure must not touch teleop
            logger.error("MuJoCo mirror stopped: %s", e)
            self._result = {"error": str(e)}

    def stop(self) -> dict[str, Any]:
        """Stop the mirror and return its report (``{"error": ...}`` when it failed)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=STOP_WAIT_S)  # its video is finished on its thread
        return self._result


def _mirror_model(name: str, load: Any, size: tuple[int, int]) -> Any:
    from mjscope.models import compile_spec, load_spec
    from mjscope.models.scene import add_light, set_offscreen_size

    spec = load_spec(name, load)
    if not spec.lights:
        add_light(spec)
    set_offscreen_size(spec, *size)
    return compile_spec(spec, name)


class MirrorPicture:
    """The demo's picture: the mirror on the demo's bus, rendered offscreen on its clock.

    The camera is fitted to both arms at the first frame; every frame carries a caption with
    the model and the sim time.
    """

    def __init__(
        self, transport: Transport, rig: RigCfg, size: tuple[int, int] = (640, 480)
    ) -> None:
        import mujoco

        from mjscope.mirror.config import load_render_cfg
        from mjscope.mirror.mirror import Mirror
        from mjscope.sim.render import OffscreenRenderer

        model = _mirror_model(MIRROR_MODEL, None, size)
        model.light_castshadow[:] = 0  # headless GL renders in software: shadows cost 6× a frame
        self._t = 0.0
        self.mirror = Mirror(
            model, mujoco.MjData(model), rig, load_render_cfg(), transport, clock=lambda: self._t
        )
        self._renderer = OffscreenRenderer(model, *size)  # camera None: fitted to the arms

    def frame(self, t: float) -> Any:
        """The mirror's picture at ``t`` (``None`` until both arms were seen)."""
        from mjscope.sim.render import caption_text

        self._t = t
        self.mirror.update(t)
        if not self.mirror.ready:
            return None
        return self._renderer.render(self.mirror.data, caption_text(self.mirror.model, t))

    def report(self, t: float) -> dict[str, Any]:
        """The mirror's report."""
        return self.mirror.report(now=t)

    def close(self) -> None:
        """Release the renderer."""
        self._renderer.close()


def demo(out: Path, con: Console) -> tuple[list[Path], int]:
    """A scripted XR session drives both mock arms through teleop; the mirror films it."""
    from mjscope.teleop.demo import run_demo

    written, code, _ = run_demo(out, con, MirrorPicture)
    return written, code
