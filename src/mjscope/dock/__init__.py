"""Docking and tracking control experiments: scenes, the 1 kHz loop, telemetry, metrics, plots.

Scene YAML → :class:`Scene` (:func:`load_scene`) → :func:`mjscope.dock.run_docking.main` (the
seed's entry point) or :func:`mjscope.dock.session.run_dock` (``mjscope dock``). Only the
scene layer is imported here; the loop, controllers and plots load when used.
"""

from mjscope.dock.config import (
    ContactCfg,
    ControllerCfg,
    DockCfg,
    DockCmdCfg,
    GateCfg,
    PlannerCfg,
    SceneCfg,
    ToolCfg,
)
from mjscope.dock.scene import Scene, dock_rotation, load_scene, scene_names

__all__ = [
    "ContactCfg",
    "ControllerCfg",
    "DockCfg",
    "DockCmdCfg",
    "GateCfg",
    "PlannerCfg",
    "Scene",
    "SceneCfg",
    "ToolCfg",
    "dock_rotation",
    "load_scene",
    "scene_names",
]
