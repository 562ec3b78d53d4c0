"""Assemble a run's arms: IK model per side, the adapter (mock or real, never both), the chain.

The adapter is chosen by the mode alone (``mock`` / ``real``): the mock module never imports
the real adapter and the real path never creates a mock, so a failed connection is an error
and a safe stop, never a quiet fallback.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from mjscope.bridge.transport.base import Transport
from mjscope.exceptions import ConfigError, MjscopeError
from mjscope.rig import SideCfg, parse_address
from mjscope.teleop.adapters.base import ArmAdapter
from mjscope.teleop.config import IkCfg
from mjscope.teleop.ik import ArmIk
from mjscope.teleop.node import TeleopArm
from mjscope.teleop.urdf import arm_chain, end_link

MODES = ("mock", "real")


def make_ik(root: ET.Element, name: str, side: SideCfg, cfg: IkCfg | None = None) -> ArmIk:
    """The QP IK of one side on its chain of the URDF ``root`` (joints found by name).

    Raises:
        UnknownNameError: A joint or the end-effector frame is not in the URDF.
        ConfigError: Placo cannot load it, or the initial pose puts the end effector outside
            the side's workspace.
    """
    joints = side.model_joint_names()
    text = arm_chain(root, joints, f"the IK model of side {name!r}")
    ee = side.ee_frame or end_link(root, joints[-1])
    posture = side.initial_pose_rad()
    dt = 1.0 / side.control_rate_hz
    return ArmIk(text, joints, ee, dt, side.joint_speed_limits(), posture, cfg)


def check_initial_pose(name: str, arm: TeleopArm) -> None:
    """The YAML initial pose must lie within the joint limits, its end effector in the workspace.

    A reset always returns the arm there, so teleop can always start again from it.

    Raises:
        ConfigError: Naming the pose, the end-effector position and the box.
    """
    q0 = arm.cfg.initial_pose_rad()
    lo, hi = arm.ik.lower, arm.ik.upper
    if np.any(q0 < lo) or np.any(q0 > hi):
        raise ConfigError(
            f"sides.{name}.initial_joint_pose_deg {list(arm.cfg.initial_joint_pose_deg)} is "
            f"outside the joint limits {np.round(np.degrees(lo), 1).tolist()} .. "
            f"{np.round(np.degrees(hi), 1).tolist()} deg; fix the pose"
        )
    p = arm.ik.fk(q0).p
    if not arm.workspace.contains(p):
        raise ConfigError(
            f"sides.{name}: the initial pose puts the end effector at "
            f"{np.round(p, 3).tolist()} m, outside the workspace (box "
            f"{list(arm.cfg.workspace_min)} .. {list(arm.cfg.workspace_max)}, keep-out radius "
            f"{arm.workspace.keepout_radius(float(p[2]))} m); widen workspace_min/max or change "
            "initial_joint_pose_deg"
        )


def make_adapter(mode: str, name: str, side: SideCfg, address: str | None = None) -> ArmAdapter:
    """The arm adapter of one side: ``MockRealManAdapter`` or ``RealManAdapter``.

    Args:
        mode: ``mock`` or ``real``.
        name: Side name.
        side: The side's config (initial pose; for ``real`` the address and timeouts).
        address: ``--left-addr`` / ``--right-addr`` (``None``: the config's
            ``realman_address``); only for ``real``.

    Raises:
        MjscopeError: Unknown mode, or an address in mock mode.
        ConfigError: A bad address.
    """
    q0 = side.initial_pose_rad()
    if mode == "mock":
        if address is not None:
            raise MjscopeError(f"--{name}-addr {address} needs --real; a mock arm has no address")
        from mjscope.teleop.adapters.mock import MockRealManAdapter

        return MockRealManAdapter(name, side.joint_names, q0)
    if mode == "real":
        addr = address or side.realman_address
        parse_address(addr, f"--{name}-addr")
        from mjscope.teleop.adapters.realman import RealManAdapter
        from mjscope.teleop.realman.config import RealManCfg

        cfg = RealManCfg(
            feedback_timeout_s=side.feedback_timeout_s,
            move_to_initial_pose_on_connect=side.move_to_initial_pose_on_connect,
        )
        return RealManAdapter(name, side.joint_names, q0, address=addr, cfg=cfg)
    raise MjscopeError(f"unknown adapter mode {mode!r}; use --mock or --real")


def configure_controller(arm: TeleopArm) -> None:
    """``--real``: set the controller's own tool-tip limits when ``configure_safety_limits``.

    Raises:
        AdapterError: The controller refused or did not answer.
    """
    c = arm.cfg
    configure = getattr(arm.adapter, "configure_limits", None)
    if arm.adapter.kind != "real" or not c.configure_safety_limits or configure is None:
        return
    configure(
        line_speed_m_s=c.max_line_speed,
        line_acc_m_s2=c.max_line_acc,
        angular_speed_rad_s=c.max_angular_speed,
        angular_acc_rad_s2=c.max_angular_acc,
    )


def build_arm(
    root: ET.Element,
    name: str,
    side: SideCfg,
    adapter: ArmAdapter,
    transport: Transport | None,
    ik_cfg: IkCfg | None = None,
) -> TeleopArm:
    """One side's chain (IK, limits, adapter, publishers), its initial pose checked."""
    if tuple(adapter.joint_names) != tuple(side.joint_names):
        raise ConfigError(f"{name}: the adapter's joints {adapter.joint_names} differ from the rig")
    arm = TeleopArm(name, side, make_ik(root, name, side, ik_cfg), adapter, transport)
    check_initial_pose(name, arm)
    return arm
