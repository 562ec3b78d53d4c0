"""``mjscope bench``: run the performance suite and print one table.

The suite ships inside the package (``mjscope.benchmarks``), so this works from any
installation; ``--dir`` runs a folder of ``bench_<name>.py`` scripts instead. Every figure is a
ratio against the bare MuJoCo cost of the same work measured in the same run: absolute times
drift on a shared machine, ratios are the figures to compare.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``bench`` subcommand."""
    p = sub.add_parser("bench", help="run the performance suite (ratios against bare MuJoCo)")
    p.add_argument("names", nargs="*", help="benchmarks to run (default: all), e.g. diagnose")
    p.add_argument("--quick", action="store_true", help="smaller workloads (a smoke run)")
    p.add_argument(
        "--dir",
        default=None,
        help="folder of bench_<name>.py scripts (default: bundled suite)",
    )
    p.add_argument(
        "--json", default=None, metavar="PATH|-", help="also write the rows as JSON ('-': stdout)"
    )
    p.add_argument(
        "--duration", type=float, default=None, help="run time [s] of the soak benchmark"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the selected benchmarks."""
    from mjscope.benchmarks.suite import BenchCmdCfg, run_bench
    from mjscope.cli._common import cfg_from_args, console

    cfg = cfg_from_args(BenchCmdCfg, args, folder=args.dir)
    return run_bench(cfg, console(args))
