"""Command-line pieces of campaigns: ``--trials``, ``--seed``, ``--trial``, ``--perturb``.

:func:`add_campaign_arguments` adds the campaign options (and the shared executor's ``--jobs``
and ``--ray``, :func:`mjscope.cli._common.add_executor_arguments`) to ``mjscope dock``;
:func:`campaign_cfg` turns the parsed arguments into the frozen configuration.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mjscope.dock.campaign import CampaignCmdCfg


def add_campaign_arguments(p: argparse.ArgumentParser) -> None:
    """``--trials N --seed S --trial K --perturb key=value,...`` and the executor options."""
    g = p.add_argument_group("campaign (Monte-Carlo trials; see the scene's campaign: section)")
    g.add_argument(
        "--trials",
        type=int,
        default=None,
        metavar="N",
        help="run N randomised trials per controller (default: the scene's)",
    )
    g.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="campaign seed; trial K draws from (S, K) only (default: the scene's)",
    )
    g.add_argument(
        "--trial",
        type=int,
        default=None,
        metavar="K",
        help="replay campaign trial K alone (same numbers as in the campaign)",
    )
    g.add_argument(
        "--perturb",
        default="",
        metavar="KEY=VALUE,...",
        help="override the scene's perturbations: q0=0.02, dock_pos=0.001/0.001/0, "
        "dock_rpy_deg=1, friction=0.2:0.5, tool_mass=0.25:0.4, ft_noise=0.2/0.005",
    )
    g.add_argument(
        "--envelope",
        default=None,
        metavar="KIND=LO:HI:N",
        help="success rate vs the magnitude of one initial error per controller (--trials "
        "per magnitude, default 10): lateral=0:3e-3:7 [m], yaw=0:10:6 or tilt=0:3:7 [deg]; "
        "one figure + one table in OUT/envelope/<scene>/",
    )
    from mjscope.cli._common import add_executor_arguments

    add_executor_arguments(g)  # type: ignore[arg-type]


def is_envelope(args: argparse.Namespace) -> bool:
    """Whether the arguments ask for an envelope study (``--envelope``)."""
    return args.envelope is not None


def is_campaign(args: argparse.Namespace) -> bool:
    """Whether the arguments ask for a campaign (``--trials``) or a trial replay (``--trial``)."""
    return args.trials is not None or args.trial is not None


def campaign_cfg(args: argparse.Namespace) -> CampaignCmdCfg:
    """The campaign configuration from ``mjscope dock``'s parsed arguments."""
    from mjscope.cli._common import executor_cfg, split_list
    from mjscope.dock.campaign import CampaignCmdCfg

    return CampaignCmdCfg(
        scene=args.scene,
        controllers=split_list(args.controller),
        trials=args.trials,
        seed=args.seed,
        trial=args.trial,
        perturb=args.perturb,
        quick=args.quick,
        out=Path(args.out),
        executor=executor_cfg(args),
        json=getattr(args, "json", None),
        html=getattr(args, "html", None),
    )
