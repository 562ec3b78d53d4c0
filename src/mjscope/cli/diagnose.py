"""``mjscope diagnose MODEL`` and ``mjscope diagnose compare A.csv B.csv``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

DEMO_ORDER = 10


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``diagnose`` subcommand (``compare`` is a sub-verb: MODEL == 'compare')."""
    p = sub.add_parser(
        "diagnose",
        help="check a model and a rollout of it; 'diagnose compare A.csv B.csv' compares CSVs",
        description="MODEL is a bundled name, an MJCF or a URDF file. "
        "'mjscope diagnose compare A.csv B.csv [--tol X] [--plot DIR]' compares two CSVs.",
    )
    p.add_argument("model", metavar="MODEL", help="bundled name, .xml or .urdf (or 'compare')")
    p.add_argument("extra", nargs="*", metavar="CSV", help="compare: the two CSV files")
    p.add_argument("--steps", type=int, default=None, help="rollout steps (default 2000)")
    p.add_argument("--duration", type=float, default=None, help="rollout duration [s]")
    p.add_argument("--ctrl", default="zero", choices=("zero", "hold", "noise"), help="controls")
    p.add_argument("--seed", type=int, default=0, help="noise seed (default 0)")
    p.add_argument("--noise-scale", type=float, default=1.0, help="noise: fraction of ctrlrange")
    p.add_argument("--key", default=None, help="reset to this keyframe (name or index)")
    p.add_argument("--inverse", action="store_true", help="record fwd/inv consistency (costly)")
    p.add_argument("--csv", default=None, metavar="FILE", help="stream per-step rows here")
    p.add_argument("--json", default=None, metavar="FILE", help="write the report as JSON")
    p.add_argument("--plot", default=None, metavar="DIR", help="write PNG plots here")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SWEEP",
        help="sweep: option.timestep=0.002,0.005 or 'geom:foot*.solref=0.001 1;0.02 1'",
    )
    p.add_argument(
        "--fail-on",
        default="error",
        choices=("error", "warning", "never"),
        help="exit 1 when a check reaches this severity (default error)",
    )
    p.add_argument(
        "--jobs", type=int, default=None, help="sweep: worker processes (default: one per CPU)"
    )
    p.add_argument("--tol", type=float, default=1e-9, help="compare: tolerance (default 1e-9)")
    p.add_argument("--quiet", action="store_true", help="print only findings and the verdict")
    from mjscope.cli._common import add_model_arguments

    add_model_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Dispatch to compare, sweep or a single diagnosis."""
    from mjscope.exceptions import ConfigError

    if args.model == "compare":
        if len(args.extra) != 2:
            raise ConfigError("usage: mjscope diagnose compare A.csv B.csv [--tol X] [--plot DIR]")
        return run_compare(args.extra[0], args.extra[1], args.tol, args.plot)
    if args.extra:
        raise ConfigError(f"unexpected arguments {args.extra}; only 'compare' takes CSV files")
    if args.set:
        return run_sweep(args)
    return run_single(args)


def _cfg(args: argparse.Namespace, model: Any, csv: str | None) -> Any:
    from mjscope.diagnose.rollout import RolloutCfg, steps_for

    return RolloutCfg(
        steps=steps_for(model, args.steps, args.duration),
        ctrl=args.ctrl,
        seed=args.seed,
        noise_scale=args.noise_scale,
        key=args.key,
        inverse=args.inverse,
        csv=csv,
    )


def _check_outputs(args: argparse.Namespace) -> None:
    """Fail before simulating when an output path cannot be written."""
    from mjscope.cli._common import out_dir
    from mjscope.paths import check_writable

    for path in (args.csv, args.json):
        if path:
            check_writable(path)
    if args.plot:
        out_dir(args.plot)


def run_single(args: argparse.Namespace) -> int:
    """Diagnose one model and print the report."""
    from mjscope.cli._common import console, load_options
    from mjscope.diagnose.report import render, write_json
    from mjscope.diagnose.run import diagnose, exit_code
    from mjscope.models import load

    _check_outputs(args)
    model = load(args.model, load_options(args))
    dg = diagnose(model, args.model, _cfg(args, model, args.csv), args.plot)
    if args.json:
        write_json(dg.report, args.json)
        dg.report["files"]["json"] = args.json
    con = console()
    if args.quiet:
        for f in dg.findings:
            con.print(f"{f.severity}: {f.code} {f.element}: {f.message}")
    else:
        render(dg.report, con)
    code = exit_code(dg.findings, args.fail_on)
    counts = dg.report["check_counts"]
    con.print(f"{'FAIL' if code else 'OK'}: {counts['error']} errors, {counts['warning']} warnings")
    return code


def run_sweep(args: argparse.Namespace) -> int:
    """One rollout per ``--set`` value: summary table, overlay figure, optional JSON."""
    from rich.table import Table

    from mjscope.cli._common import console, load_options
    from mjscope.diagnose.report import write_json
    from mjscope.diagnose.rollout import RolloutCfg, check_steps
    from mjscope.diagnose.run import exit_code
    from mjscope.diagnose.sweep import parse_set, run_sweeps, summary_row

    sweeps = [parse_set(s) for s in args.set]
    _check_outputs(args)
    base = RolloutCfg(
        steps=check_steps(2000 if args.steps is None else args.steps),
        ctrl=args.ctrl,
        seed=args.seed,
        noise_scale=args.noise_scale,
        key=args.key,
        inverse=args.inverse,
        csv=args.csv,
    )
    runs = run_sweeps(args.model, load_options(args), sweeps, base, args.duration, args.jobs)
    rows = [summary_row(r) for r in runs]
    table = Table(title=f"sweep of {args.model}")
    for c in rows[0]:
        table.add_column(c)
    for r in rows:
        table.add_row(*(f"{v:.4g}" if isinstance(v, float) else str(v) for v in r.values()))
    con = console()
    con.print(table)
    if args.plot:
        from mjscope.diagnose.plots import plot_series

        series = [
            (
                f"{r.label.rsplit('.', 1)[-1]}={r.value}",
                [h.split(" [")[0] for h in r.header],
                r.preview,
            )
            for r in runs
        ]
        path = plot_series(series, args.plot, "sweep.png", f"{args.model}: {'; '.join(args.set)}")
        con.print(f"plot: {path}")
    if args.json:
        write_json({"sweep": args.set, "table": rows, "runs": [r.report for r in runs]}, args.json)
    return max(exit_code(r.findings, args.fail_on) for r in runs)


def run_compare(a: str, b: str, tol: float, plot: str | None) -> int:
    """Compare two CSVs; exit 1 when a column deviates beyond ``tol``."""
    from rich.table import Table

    from mjscope.cli._common import console, out_dir
    from mjscope.diagnose.compare import compare, read_csv

    if plot:
        out_dir(plot)  # an unusable folder fails before any output
    ca, cb = read_csv(a), read_csv(b)
    res = compare(ca, cb, tol)
    con = console()
    t = Table(title=f"compare {a} vs {b} (tol {tol:g})")
    for c in ("column", "max |A-B|", "first diverging step"):
        t.add_column(c)
    for c in res["columns"]:
        step = c["first_diverging_step"]
        t.add_row(c["name"], f"{c['max_deviation']:.4g}", "-" if step is None else str(step))
    con.print(t)
    if res["rows_a"] != res["rows_b"]:
        con.print(
            f"row counts differ: {res['rows_a']} vs {res['rows_b']} (compared the first "
            f"{min(res['rows_a'], res['rows_b'])})"
        )
    for side, cols in (("A", res["only_a"]), ("B", res["only_b"])):
        if cols:
            con.print(f"only in {side}: {', '.join(cols)}")
    if plot:
        from mjscope.diagnose.plots import plot_overlay

        con.print(f"plot: {plot_overlay(ca, cb, (Path(a).name, Path(b).name), plot)}")
    con.print("SAME within tolerance" if res["passed"] else "DIFFERENT beyond tolerance")
    return 0 if res["passed"] else 1


def demo(out: Path) -> tuple[list[Path], int]:
    """Diagnose the bundled quadruped (hold control, 3 s) into ``out/diagnose/``."""
    from mjscope.cli._common import console, out_dir
    from mjscope.diagnose.report import render, write_json
    from mjscope.diagnose.rollout import RolloutCfg
    from mjscope.diagnose.run import diagnose, exit_code
    from mjscope.models import load

    folder = out_dir(Path(out) / "diagnose")
    csv = folder / "quadruped.csv"
    dg = diagnose(
        load("quadruped"), "quadruped", RolloutCfg(steps=1500, ctrl="hold", csv=csv), folder
    )
    js = write_json(dg.report, folder / "report.json")
    txt = folder / "report.txt"
    with txt.open("w", encoding="utf-8") as fh:
        from rich.console import Console

        render(dg.report, Console(file=fh, width=140, color_system=None))
    if sys.stdout.isatty():
        render(dg.report, console())
    return [js, txt, csv, Path(dg.report["files"]["plot"])], exit_code(dg.findings)
