"""Docking and tracking experiments: scenes, the control loop, telemetry, metrics, plots."""

from mjscope.experiments.scene import GateCfg, Scene, SceneCfg, load_scene, scene_names

__all__ = ["GateCfg", "Scene", "SceneCfg", "load_scene", "scene_names"]
