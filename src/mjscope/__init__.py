"""mjscope: a MuJoCo toolkit for robot engineers.

Five jobs in one package and one command: ``diagnose`` a model and a rollout of it,
``mirror`` a live dual-arm rig, bridge a dexterous ``hand``, ``teleop`` a dual-arm rig from XR,
and run contact/``dock`` control experiments.
"""

from __future__ import annotations

import os as _os

# Headless first: pick an offscreen GL backend before anything imports mujoco's renderer.
if "MUJOCO_GL" not in _os.environ and not _os.environ.get("DISPLAY"):
    _os.environ["MUJOCO_GL"] = "egl"

from mjscope.exceptions import ConfigError, MjscopeError, ModelLoadError, UnknownNameError

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "MjscopeError",
    "ModelLoadError",
    "UnknownNameError",
    "__version__",
]
