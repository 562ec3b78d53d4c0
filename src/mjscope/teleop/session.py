"""One ``mjscope teleop`` run: config, IK models, adapters, XR source, transport, loop, outputs.

The launch matrix of the seed: ``--arm both|left|right``, ``--mock`` or ``--real`` (the only
thing that picks the adapter), ``--mujoco`` (the mirror on the same transport, ``--arm both``
only; without it MuJoCo is never imported). The mirror is started by the CLI through a
:class:`Companion` — this feature package does not import the mirror — and whatever happens to
it (fails to start, raises, its window closes) never changes the arms' commands or stops.
"""

from __future__ import annotations

import threading
import time
import xml.etree.ElementTree as ET
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rich.console import Console

from mjscope.bridge.transport import open_transport
from mjscope.bridge.transport.base import Transport
from mjscope.exceptions import MjscopeError
from mjscope.paths import check_json_path, check_writable, write_json
from mjscope.report import write_html
from mjscope.rig import RigCfg, check_rig_cfg, load_rig_cfg, map_prefixes, select_sides
from mjscope.signals import INTERRUPTS, exit_code, stop_on_sigterm
from mjscope.teleop.build import MODES, build_arm, configure_controller, make_adapter
from mjscope.teleop.html_page import teleop_page
from mjscope.teleop.loop import Teleop
from mjscope.teleop.node import TeleopArm
from mjscope.teleop.report import CycleLog, arm_report, loop_dict
from mjscope.teleop.summary import print_end, print_summary
from mjscope.teleop.urdf import read_urdf
from mjscope.teleop.xr.base import XrSource

ARMS = ("both", "left", "right")
XR_KINDS = ("udp", "sdk", "replay", "demo")


class Companion(Protocol):
    """Something run beside teleop on its transport (the MuJoCo mirror, from the CLI)."""

    def start(self, transport: Transport, rig: RigCfg) -> None:
        """Start (in the background) on ``transport``; must not raise for its own failures."""

    def stop(self) -> dict[str, Any]:
        """Stop and return a report (``{"error": ...}`` when it failed)."""


@dataclass(frozen=True)
class TeleopCmdCfg:
    """What one ``mjscope teleop`` run does.

    Attributes:
        arm: ``both``, ``left`` or ``right``.
        mode: ``mock`` or ``real`` — the adapter; nothing else selects it.
        mujoco: Show the arms in the MuJoCo mirror (only with ``arm = both``).
        config: Rig YAML (``None``: the bundled ``dual_arm_rm75.yaml``).
        urdf: IK model URDF (``None``: the bundled ``dual_rm75`` export).
        map_prefix: ``OLD=NEW`` renames from message to model joint names.
        transport: ``inproc`` or ``dds`` (``None``: ``dds``).
        domain_id: DDS domain (``None``: ``ROS_DOMAIN_ID`` or 0).
        localhost_only: DDS on loopback only (``None``: ``ROS_LOCALHOST_ONLY``).
        xr: XR source: ``udp``, ``sdk``, ``replay`` (``--replay FILE``) or ``demo`` (the
            bundled replay).
        xr_port: ``--xr udp`` port (``None``: the config's ``xr_port``).
        xr_host: ``--xr udp`` address to bind (loopback unless told otherwise).
        replay: Replay file of ``--xr replay``.
        duration: Run time [s]; ``None``: until Ctrl-C.
        report: JSON report path or ``None``.
        html: One-page HTML report path or ``None``.
        log: CSV log path (one row per cycle per side) or ``None``.
        left_addr: ``--real``: left controller ``HOST:PORT`` (``None``: from the config).
        right_addr: ``--real``: right controller ``HOST:PORT``.
        viewer: Mirror window: ``auto``, ``none`` or ``native`` (with ``mujoco``).
        record: Mirror video ``.mp4``/``.gif`` (with ``mujoco``).
        isolate_faults: A safe stop of one arm leaves the other running (the seed's per-node
            semantics; exit 1 at the end). Default: both stop and the run ends at once.
        rt_priority: ``SCHED_FIFO`` priority (1–99) of each arm's worker thread, or ``None``.
    """

    arm: str = "both"
    mode: str = "mock"
    mujoco: bool = False
    config: str | None = None
    urdf: str | None = None
    map_prefix: tuple[str, ...] = ()
    transport: str | None = None
    domain_id: int | None = None
    localhost_only: bool | None = None
    xr: str = "udp"
    xr_port: int | None = None
    xr_host: str = "127.0.0.1"
    replay: str | None = None
    duration: float | None = None
    report: str | None = None
    html: str | None = None
    log: str | None = None
    left_addr: str | None = None
    right_addr: str | None = None
    viewer: str = "auto"
    record: str | None = None
    isolate_faults: bool = False
    rt_priority: int | None = None


def check_cmd_cfg(cfg: TeleopCmdCfg) -> None:
    """The launch matrix and option combinations.

    Raises:
        MjscopeError: One line naming the bad option and the fix.
    """
    if cfg.arm not in ARMS:
        raise MjscopeError(f"--arm {cfg.arm!r}: use one of {', '.join(ARMS)}")
    if cfg.mode not in MODES:
        raise MjscopeError(f"unknown mode {cfg.mode!r}: pass --mock or --real")
    if cfg.mujoco and cfg.arm != "both":
        raise MjscopeError(
            f"--mujoco needs --arm both (got --arm {cfg.arm}): the mirror shows both arms"
        )
    if not cfg.mujoco and (cfg.record is not None or cfg.viewer == "native"):
        raise MjscopeError("--record and --viewer native show the mirror: add --mujoco")
    if cfg.duration is not None and not cfg.duration > 0:
        raise MjscopeError(f"--duration {cfg.duration} must be > 0 seconds")
    if cfg.xr not in XR_KINDS:
        raise MjscopeError(f"--xr {cfg.xr!r}: use one of {', '.join(XR_KINDS)}")
    if (cfg.xr == "replay") != (cfg.replay is not None):
        raise MjscopeError("--xr replay and --replay FILE go together; give both or neither")
    if cfg.xr_port is not None and cfg.xr != "udp":
        raise MjscopeError(f"--xr-port is for --xr udp, not --xr {cfg.xr}")
    if cfg.rt_priority is not None and not 1 <= cfg.rt_priority <= 99:
        raise MjscopeError(f"--rt-priority {cfg.rt_priority}: use a SCHED_FIFO priority 1..99")
    if cfg.mode == "mock" and (cfg.left_addr or cfg.right_addr):
        raise MjscopeError("--left-addr/--right-addr need --real; mock arms have no address")


def load_rig(cfg: TeleopCmdCfg) -> RigCfg:
    """The rig of the run: the YAML, the selected sides, the prefix rules."""
    rig = load_rig_cfg(cfg.config)
    rig = select_sides(rig, () if cfg.arm == "both" else (cfg.arm,))
    if cfg.map_prefix:
        rig = map_prefixes(rig, cfg.map_prefix)
    check_rig_cfg(rig, "--config")
    return rig


def open_xr(cfg: TeleopCmdCfg, rig: RigCfg) -> XrSource:
    """The XR source of ``--xr`` (the XR package's factory)."""
    from mjscope.teleop.xr import make_xr_source

    if cfg.xr == "udp":
        port = rig.xr_port if cfg.xr_port is None else cfg.xr_port
        return make_xr_source("udp", port=port, host=cfg.xr_host)
    if cfg.xr == "replay":
        return make_xr_source("replay", path=str(cfg.replay))
    return make_xr_source(cfg.xr)


def build_arms(
    cfg: TeleopCmdCfg, rig: RigCfg, root: ET.Element, transport: Transport | None
) -> dict[str, TeleopArm]:
    """One chain per side, each with the one adapter its mode names."""
    addr = {"left": cfg.left_addr, "right": cfg.right_addr}
    return {
        name: build_arm(root, name, s, make_adapter(cfg.mode, name, s, addr.get(name)), transport)
        for name, s in rig.sides.items()
    }


def run_teleop(cfg: TeleopCmdCfg, con: Console, companion: Companion | None = None) -> int:
    """Run teleop until ``duration`` or Ctrl-C; print a summary, write the outputs.

    Args:
        cfg: The run.
        con: Console for the summary.
        companion: The mirror for ``--mujoco`` (started on the run's transport).

    Returns:
        0; 1 when an arm ended in a safe stop (lost feedback, a closed connection, a controller
        error); 130 when Ctrl-C or SIGTERM ended the run (the arms braked to rest first).

    Raises:
        MjscopeError: A bad option, config, model, address or output path (checked before any
            arm moves), or an arm that cannot be reached.
    """
    check_cmd_cfg(cfg)
    if cfg.mujoco and companion is None:
        raise MjscopeError("--mujoco needs the mirror; run it through the mjscope command")
    rig = load_rig(cfg)
    report_path = check_json_path(cfg.report)
    log_path = _out(cfg.log, ".csv")
    html_path = _out(cfg.html, ".html")
    root = read_urdf(cfg.urdf)
    kind = cfg.transport or "dds"
    result: dict[str, Any] = {}
    with ExitStack() as stack:
        transport = stack.enter_context(open_transport(kind, cfg.domain_id, cfg.localhost_only))
        arms = build_arms(cfg, rig, root, transport)
        xr = stack.enter_context(open_xr(cfg, rig))
        sink = None
        if log_path is not None:
            n = max(len(s.joint_names) for s in rig.sides.values())
            sink = stack.enter_context(CycleLog(log_path, n))
        teleop = Teleop(arms, xr, sink)
        stack.callback(teleop.close)
        if companion is not None:
            companion.start(transport, rig)
            stack.callback(lambda: result.update(mirror=companion.stop()))
        stop = threading.Event()  # SIGTERM sets it: the run ends as on Ctrl-C
        try:
            with stop_on_sigterm(stop):
                _announce(con, cfg, kind, rig)
                _run(teleop, cfg, stop)
        except KeyboardInterrupt:  # before the run took it (during it, the arms brake first)
            teleop.interrupted = True
        if teleop.interrupted:
            INTERRUPTS.note()
    report = session_report(cfg, kind, teleop, result.get("mirror"))
    if report_path is not None:
        write_json(report_path, report)
    # Ctrl-C/SIGTERM always cut a teleop run (130, after the brake): the rule, even
    # without --duration (unlike a mirror, whose normal end Ctrl-C is).
    code = exit_code(failed=bool(teleop.stopped), endless=False)
    if html_path is not None:
        write_html(html_path, teleop_page(report, [], code))
    print_summary(con, report, report_path, log_path, html_path)
    print_end(con, teleop.fault, teleop.interrupted, cfg.isolate_faults)
    return code


def _run(teleop: Teleop, cfg: TeleopCmdCfg, stop: threading.Event) -> None:
    teleop.start(time.monotonic())
    for arm in teleop.arms.values():
        configure_controller(arm)
    teleop.run(cfg.duration, stop, isolate_faults=cfg.isolate_faults, rt_priority=cfg.rt_priority)


def _out(path: str | None, suffix: str) -> Path | None:
    if path is None:
        return None
    if Path(path).suffix.lower() != suffix:
        raise MjscopeError(f"output {path!r} must end in {suffix}")
    return check_writable(path)


def _announce(con: Console, cfg: TeleopCmdCfg, kind: str, rig: RigCfg) -> None:
    topics = ", ".join(s.state_topic for s in rig.sides.values())
    xr = f"{cfg.xr} {cfg.replay}" if cfg.replay else cfg.xr
    con.print(
        f"teleop {', '.join(rig.sides)} ({cfg.mode}) from XR {xr}, publishing on {kind} "
        f"({topics}){'; MuJoCo mirror on' if cfg.mujoco else ''}; Ctrl-C ends",
        soft_wrap=True,
    )


def session_report(
    cfg: TeleopCmdCfg, kind: str, teleop: Teleop, mirror: dict[str, Any] | None
) -> dict[str, Any]:
    """The ``--report`` content: the run, its loop timing, each side, the mirror's report."""
    lp = teleop.loop
    return {
        "mode": cfg.mode,
        "arm": cfg.arm,
        "xr": xr_dict(cfg, teleop),
        "transport": kind,
        "loop": loop_dict(lp),
        "fault_policy": "isolate" if cfg.isolate_faults else "stop_all",
        "fault": dict(zip(("side", "cause"), teleop.fault, strict=True)) if teleop.fault else None,
        "interrupted": teleop.interrupted,
        "sides": {name: side_report(teleop, name) for name in teleop.arms},
        "mujoco": mirror,
    }


def xr_dict(cfg: TeleopCmdCfg, teleop: Teleop) -> dict[str, Any]:
    """The XR input's counters: frames, rejects by reason, superseded datagrams, poll cost."""
    hub = teleop.hub
    return {
        "kind": cfg.xr,
        "frames": teleop.frames,
        "rejects": dict(teleop.xr.rejects),
        "dropped": int(getattr(teleop.xr, "dropped", 0)),
        "worst_poll_ms": round(hub.worst_poll_s * 1e3, 3) if hub is not None else None,
        "error": (hub.error or None) if hub is not None else None,
    }


def side_report(teleop: Teleop, side: str) -> dict[str, Any]:
    """One side's report, with its worker's timing when it ran on one."""
    r = arm_report(teleop.arms[side])
    w = teleop.workers.get(side)
    if w is not None:
        r["loop"] = loop_dict(w.stats)
    return r
