"""``mjscope dock``: run a docking or tracking scene, print metrics and the PASS/FAIL gate.

Exit codes: 0 gate PASS, 1 gate FAIL (or the run stopped early), 2 a user error.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

DEMO_ORDER = 40


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``dock`` subcommand."""
    p = sub.add_parser(
        "dock",
        help="docking/tracking control experiment: metrics and a PASS/FAIL gate",
        description="Run a scene (bundled name or YAML file) with a controller at 1 kHz, "
        "print the metrics and the gate; exit 1 on FAIL.",
    )
    p.add_argument("--scene", default="iiwa14_docking", help="bundled scene name or YAML file")
    p.add_argument("--controller", default="cic", help="controller (default: cic)")
    p.add_argument("--quick", action="store_true", help="shorter run (time budget + 0.5 s)")
    p.add_argument("--plot", action="store_true", help="write figures into OUT/figure/<scene>/")
    p.add_argument("--record", action="store_true", help="write OUT/video/<scene>_<ctrl>.mp4")
    fc = p.add_mutually_exclusive_group()
    fc.add_argument("--friction-comp", dest="friction_comp", action="store_true", default=None,
                    help="force friction/damping feed-forward on")  # fmt: skip
    fc.add_argument("--no-friction-comp", dest="friction_comp", action="store_false",
                    help="force friction/damping feed-forward off")  # fmt: skip
    p.add_argument("--out", default="mjscope-out", help="output folder (default ./mjscope-out)")
    p.add_argument("--list", action="store_true", help="list the bundled scenes and exit")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the scene and print the report."""
    from mjscope.cli._common import console, out_dir
    from mjscope.experiments.scene import load_scene, scene_names

    con = console()
    if args.list:
        for name in scene_names():
            con.print(f"{name}: {load_scene(name).cfg.description}")
        return 0
    scene = load_scene(args.scene)
    root = out_dir(args.out)
    report = _run(scene, args, root)
    print_report(con, report)
    return 0 if report.passed else 1


def _run(scene: Any, args: argparse.Namespace, root: Path) -> Any:
    from mjscope.experiments.run_docking import main

    return main(scene, args.controller, plot=args.plot, quick=args.quick, out=root,
                friction_comp=args.friction_comp, record=args.record)  # fmt: skip


def print_report(con: Any, report: Any, show_files: bool = True) -> None:
    """Print the run summary, the metrics by level, the gate (and the files written)."""
    from rich.table import Table

    from mjscope.experiments.metric_units import LEVELS, UNITS

    r = report.result
    fc = "on" if r.friction_comp else "off"
    con.print(
        f"scene {r.scene.name} ({r.scene.mode}), controller {r.controller}, friction comp {fc}: "
        f"{r.steps} steps, {r.steps * r.scene.cfg.control_period:.2f} s simulated, "
        f"real-time factor {r.real_time_factor:.1f}x"
    )
    if r.status != "ok":
        con.print(f"[red]run stopped early[/red]: {r.message} (samples so far kept)")
    table = Table(title="metrics")
    for col in ("level", "metric", "value", "unit"):
        table.add_column(col)
    for level, names in LEVELS.items():
        for n in names:
            if n in report.metrics:
                table.add_row(level, n, _fmt(report.metrics[n]), UNITS[n])
    con.print(table)
    gate = Table(title="gate")
    for col in ("check", "value", "limit", "unit", "result"):
        gate.add_column(col)
    for c in report.gate.checks:
        ok = "[green]PASS[/green]" if c.passed else "[red]FAIL[/red]"
        gate.add_row(c.name, _fmt(c.value), f"{c.op} {_fmt(c.threshold)}", c.unit, ok)
    con.print(gate)
    verdict = "[green]PASS[/green]" if report.passed else "[red]FAIL[/red]"
    con.print(f"gate: {verdict}")
    for f in report.files if show_files else []:
        con.print(f"wrote {f}")


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    try:
        return f"{float(v):.4g}"
    except (TypeError, ValueError):
        return str(v)


def demo(out: Path) -> tuple[list[Path], int]:
    """Quick iiwa14 docking run with plots into ``out/dock/``."""
    from mjscope.cli._common import console
    from mjscope.experiments.run_docking import main

    report = main("iiwa14_docking", "cic", plot=True, quick=True, out=out / "dock")
    print_report(console(), report, show_files=False)
    return list(report.files), 0 if report.passed else 1
