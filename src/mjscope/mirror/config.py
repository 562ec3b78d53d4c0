"""Mirror configuration: the render YAML (``dual_arm_mujoco.yaml``); the rig is :mod:`mjscope.rig`.

``dual_arm_mujoco.yaml`` holds only ``render_rate_hz`` (the seed's ROS 2 parameter form reads
the same). It ships as package data; a user file given with ``--mujoco-config`` replaces it.
Unknown keys are errors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from mjscope.config import from_dict, package_data_path, read_yaml, ros_parameters
from mjscope.exceptions import ConfigError
from mjscope.rig import (
    RigCfg,
    SideCfg,
    check_rig_cfg,
    load_rig_cfg,
    map_prefixes,
    select_sides,
)

RENDER_CONFIG = "dual_arm_mujoco.yaml"

__all__ = [
    "RenderCfg",
    "RigCfg",
    "SideCfg",
    "check_rig_cfg",
    "load_render_cfg",
    "load_rig_cfg",
    "map_prefixes",
    "select_sides",
]


@dataclass(frozen=True)
class RenderCfg:
    """Display settings of the mirror.

    Attributes:
        render_rate_hz: Picture refresh rate, on its own clock [Hz].
        stale_after_s: A side with no valid frame for this long is reported stale [s].
        wait_report_interval_s: Interval between "waiting for side" messages [s].
        publisher_check_interval_s: Interval between publisher-count checks [s].
    """

    render_rate_hz: float = 60.0
    stale_after_s: float = 0.5
    wait_report_interval_s: float = 2.0
    publisher_check_interval_s: float = 0.5


def load_render_cfg(path: str | Path | None = None) -> RenderCfg:
    """Read a render config (default: the packaged ``dual_arm_mujoco.yaml``).

    Raises:
        ConfigError: Missing file, unknown key or a non-positive rate.
    """
    p = Path(path) if path is not None else package_data_path("config", RENDER_CONFIG)
    cfg = from_dict(RenderCfg, ros_parameters(read_yaml(p), str(p)), str(p))
    keys = (
        "render_rate_hz",
        "stale_after_s",
        "wait_report_interval_s",
        "publisher_check_interval_s",
    )
    for key in keys:
        v = getattr(cfg, key)
        if not (math.isfinite(v) and v > 0):
            raise ConfigError(f"{p}: {key} = {v} must be a positive number")
    return cfg
