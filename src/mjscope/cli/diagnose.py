"""``mjscope diagnose MODEL`` and ``mjscope diagnose compare A.csv B.csv``.

Parses the arguments into the feature's frozen configurations and calls
:func:`mjscope.diagnose.run_diagnose` / :func:`mjscope.diagnose.run_compare`. Everything
heavy is imported inside the functions, so ``mjscope --help`` stays fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from mjscope.diagnose import CompareCfg, DiagnoseCmdCfg

DEMO_ORDER = 10


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``diagnose`` subcommand (``compare`` is a sub-verb: MODEL == 'compare')."""
    p = sub.add_parser(
        "diagnose",
        help="check a model and a rollout of it; 'diagnose compare A.csv B.csv' compares CSVs",
        description="MODEL is a bundled name, an MJCF or a URDF file. "
        "'mjscope diagnose compare A.csv B.csv [--tol X] [--plot DIR]' compares two CSVs.",
    )
    p.add_argument(
        "model", nargs="?", metavar="MODEL", help="bundled name, .xml or .urdf (or 'compare')"
    )
    p.add_argument(
        "--model",
        dest="model_opt",
        default=None,
        metavar="MODEL",
        help="the model, as the seed's 'mj_diagnose --model PATH' (same as MODEL)",
    )
    p.add_argument("extra", nargs="*", metavar="CSV", help="compare: the two CSV files")
    p.add_argument("--steps", type=int, default=None, help="rollout steps (default 2000)")
    p.add_argument("--duration", type=float, default=None, help="rollout duration [s]")
    p.add_argument(
        "--ctrl",
        default="hold",
        metavar="CTRL",
        help="controls: hold (default: servos hold the initial pose), zero, noise, "
        "sine[:AMP[:HZ]], const:VALUE, or a YAML file mapping actuator names to these",
    )
    p.add_argument("--seed", type=int, default=0, help="noise seed (default 0)")
    p.add_argument("--noise-scale", type=float, default=1.0, help="noise: fraction of ctrlrange")
    p.add_argument(
        "--key",
        default="auto",
        metavar="auto|NAME|INDEX|none",
        help="start here: auto (default: the model's first keyframe, else qpos0), a keyframe "
        "name or index, none (qpos0)",
    )
    p.add_argument("--inverse", action="store_true", help="record fwd/inv consistency (costly)")
    p.add_argument("--csv", default=None, metavar="FILE", help="stream per-step rows here")
    p.add_argument(
        "--contacts", default=None, metavar="FILE", help="per-contact CSV, one row per contact"
    )
    p.add_argument(
        "--columns",
        default=None,
        metavar="LIST",
        help="extra CSV columns, comma-separated: qpos, qvel, sensordata (named, with units)",
    )
    p.add_argument(
        "--json", default=None, metavar="PATH|-", help="write the report as JSON ('-': stdout)"
    )
    p.add_argument("--html", default=None, metavar="FILE", help="one-page HTML report of the run")
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
        "--baseline",
        default=None,
        metavar="DIR",
        help="save this run as the model's baseline in DIR on first use, compare against it after",
    )
    p.add_argument(
        "--tol",
        type=float,
        default=1e-9,
        help="compare: tolerance per value; --baseline: per column, of its range (default 1e-9)",
    )
    p.add_argument("--quiet", action="store_true", help="print only findings and the verdict")
    p.add_argument(
        "--contact-params",
        action="store_true",
        help="per colliding pair: mixed solref/solimp, stiffness [N/m], damping [N·s/m], "
        "predicted vs measured penetration, time constant vs timestep",
    )
    p.add_argument(
        "--verbose",
        dest="per_element",
        action="store_true",
        help="one findings line per element (default: one per code and family; JSON has all)",
    )
    from mjscope.cli._common import add_executor_arguments, add_model_arguments

    add_executor_arguments(p)  # sweep runs: --jobs, --ray
    add_model_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Dispatch to compare or to diagnose (a sweep when ``--set`` is given)."""
    from mjscope.cli._common import console
    from mjscope.diagnose import run_compare, run_diagnose

    if args.model == "compare":
        return run_compare(compare_cfg(args), console(args, own_quiet=True))
    return run_diagnose(diagnose_cfg(args), console(args, own_quiet=True))


def _model(args: argparse.Namespace) -> str:
    """MODEL from the positional or ``--model`` (one of them, or both the same).

    Raises:
        ConfigError: Neither, or two different models.
    """
    from mjscope.exceptions import ConfigError

    pos, opt = args.model, args.model_opt
    if pos and opt and pos != opt:
        raise ConfigError(f"two models given: {pos!r} and --model {opt!r}; give one")
    model = pos or opt
    if not model:
        raise ConfigError("no model: mjscope diagnose MODEL (or --model MODEL); see mjscope models")
    return str(model)


def compare_cfg(args: argparse.Namespace) -> CompareCfg:
    """The compare configuration from ``diagnose compare A.csv B.csv [--tol] [--plot]``.

    Raises:
        ConfigError: Not exactly two CSV files.
    """
    from mjscope.diagnose import CompareCfg
    from mjscope.exceptions import ConfigError

    if len(args.extra) != 2:
        raise ConfigError("usage: mjscope diagnose compare A.csv B.csv [--tol X] [--plot DIR]")
    return CompareCfg(
        a=args.extra[0], b=args.extra[1], tol=args.tol, plot=args.plot, progress=not args.quiet
    )


def diagnose_cfg(args: argparse.Namespace) -> DiagnoseCmdCfg:
    """The diagnose configuration from ``diagnose MODEL [options]``.

    Raises:
        ConfigError: Extra positional arguments (only ``compare`` takes CSV files).
    """
    from mjscope.cli._common import cfg_from_args, executor_cfg, load_options
    from mjscope.diagnose import DiagnoseCmdCfg
    from mjscope.exceptions import ConfigError

    if args.extra:
        raise ConfigError(f"unexpected arguments {args.extra}; only 'compare' takes CSV files")
    return cfg_from_args(
        DiagnoseCmdCfg,
        args,
        model=_model(args),
        load_options=load_options(args),
        executor=executor_cfg(args),
    )


def demo(out: Path, con: Console) -> tuple[list[Path], int]:
    """Diagnose the bundled quadruped (hold control, 3 s) into ``out/diagnose/``."""
    from mjscope.diagnose.demo import run_demo

    return run_demo(out, con)
