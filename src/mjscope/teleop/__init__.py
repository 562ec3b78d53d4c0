"""``mjscope teleop``: XR (PICO) teleoperation of the dual RM75 rig through a QP IK.

Per arm at ``control_rate_hz``: XR input → :class:`Clutch` → target → :class:`Workspace` and
:class:`CartesianLimiter` → Placo QP IK (:class:`ArmIk`) → :class:`JointLimiter` (joint
position, speed and acceleration) → adapter (:class:`MockRealManAdapter` or the real
``RealManAdapter``) → ``joint_states`` + ``joint_target``. :class:`TeleopArm` is one arm's
chain, :class:`ArmWorker` runs one on its own thread and clock, :class:`XrHub` shares the XR
input (newest state per side), :class:`Teleop` supervises the workers (fault policy, braking
at the end) or steps both arms on a given clock, :func:`run_teleop` is a whole run.

Exports resolve on first use; nothing here imports MuJoCo (only the demo renders, through
:mod:`mjscope.sim`).
"""

from __future__ import annotations

from mjscope.lazy import lazy_exports

_EXPORTS = {
    "AdapterError": "mjscope.teleop.adapters.base",
    "ArmAdapter": "mjscope.teleop.adapters.base",
    "ArmIk": "mjscope.teleop.ik",
    "ArmWorker": "mjscope.teleop.worker",
    "CartesianLimiter": "mjscope.teleop.limits",
    "Clutch": "mjscope.teleop.clutch",
    "ControllerState": "mjscope.teleop.xr.base",
    "Feedback": "mjscope.teleop.adapters.base",
    "IkCfg": "mjscope.teleop.config",
    "IkResult": "mjscope.teleop.ik",
    "JointLimiter": "mjscope.teleop.joint_limits",
    "LoopStats": "mjscope.teleop.worker",
    "MockRealManAdapter": "mjscope.teleop.adapters.mock",
    "Pose": "mjscope.teleop.poses",
    "StageLog": "mjscope.teleop.timing",
    "Teleop": "mjscope.teleop.loop",
    "TeleopArm": "mjscope.teleop.node",
    "TeleopCmdCfg": "mjscope.teleop.session",
    "Workspace": "mjscope.teleop.limits",
    "XrFrame": "mjscope.teleop.xr.base",
    "XrHub": "mjscope.teleop.xr_hub",
    "XrSource": "mjscope.teleop.xr.base",
    "build_arm": "mjscope.teleop.build",
    "make_adapter": "mjscope.teleop.build",
    "read_urdf": "mjscope.teleop.urdf",
    "run_teleop": "mjscope.teleop.session",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS)
