"""``mjscope mirror`` and ``mjscope mock-arm``: a rig's live joint states shown in MuJoCo.

Exports resolve on first use, so ``mjscope mock-arm`` (which only publishes) never imports
MuJoCo or an OpenGL stack.
"""

from __future__ import annotations

from mjscope.lazy import lazy_exports

_EXPORTS = {
    "Mirror": "mjscope.mirror.mirror",
    "MirrorCmdCfg": "mjscope.mirror.session",
    "MockArm": "mjscope.mirror.mock_arm",
    "MockArmCmdCfg": "mjscope.mirror.mock_session",
    "RenderCfg": "mjscope.mirror.config",
    "RigCfg": "mjscope.mirror.config",
    "SideCfg": "mjscope.mirror.config",
    "load_render_cfg": "mjscope.mirror.config",
    "load_rig_cfg": "mjscope.mirror.config",
    "run_mirror": "mjscope.mirror.session",
    "run_mock_arm": "mjscope.mirror.mock_session",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS)
