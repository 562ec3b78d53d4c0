"""The naive teleop loop a user would write from the XRoboToolkit samples: the benchmark's peer.

Per arm one Placo ``KinematicsSolver`` on the arm's own 7-joint chain (a frame task on the end
effector, as the samples configure it), and per XR frame, as the sample's controller does:
the clutch's relative target with small NumPy quaternion helpers (the ``transformations``
style the samples import), ``frame_task.T_world_frame = T`` → ``solver.solve(True)`` →
``robot.update_kinematics()``. No workspace, speed, acceleration or convergence checks, no
adapter, nothing published: what mjscope's cycle does on top is the difference.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np

from mjscope.rig import SideCfg
from mjscope.teleop.urdf import arm_chain, end_link
from mjscope.teleop.xr.base import ControllerState


def quaternion_matrix(q: np.ndarray) -> np.ndarray:
    """``(4, 4)`` homogeneous rotation of a unit quaternion (w, x, y, z)."""
    q = np.array(q, dtype=np.float64, copy=True)
    n = np.dot(q, q)
    if n < 1e-12:
        return np.identity(4)
    q *= math.sqrt(2.0 / n)
    q = np.outer(q, q)
    return np.array(
        [
            [1.0 - q[2, 2] - q[3, 3], q[1, 2] - q[3, 0], q[1, 3] + q[2, 0], 0.0],
            [q[1, 2] + q[3, 0], 1.0 - q[1, 1] - q[3, 3], q[2, 3] - q[1, 0], 0.0],
            [q[1, 3] - q[2, 0], q[2, 3] + q[1, 0], 1.0 - q[1, 1] - q[2, 2], 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


def quaternion_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product ``a ⊗ b`` of two quaternions (w, x, y, z), as ``transformations`` has it."""
    w1, x1, y1, z1 = a
    w0, x0, y0, z0 = b
    return np.array(
        [
            -x1 * x0 - y1 * y0 - z1 * z0 + w1 * w0,
            x1 * w0 + y1 * z0 - z1 * y0 + w1 * x0,
            -x1 * z0 + y1 * w0 + z1 * x0 + w1 * y0,
            x1 * y0 - y1 * x0 + z1 * w0 + w1 * z0,
        ]
    )


def quaternion_inverse(q: np.ndarray) -> np.ndarray:
    """Inverse of a quaternion (w, x, y, z)."""
    q = np.array(q, dtype=np.float64, copy=True)
    np.negative(q[1:], q[1:])
    return q / np.dot(q, q)


def quaternion_from_matrix(T: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a rotation (the eigen-free branch of the samples)."""
    R = np.asarray(T)[:3, :3]
    w = math.sqrt(max(0.0, 1.0 + R[0, 0] + R[1, 1] + R[2, 2])) / 2.0
    x = math.copysign(math.sqrt(max(0.0, 1.0 + R[0, 0] - R[1, 1] - R[2, 2])) / 2, R[2, 1] - R[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1.0 - R[0, 0] + R[1, 1] - R[2, 2])) / 2, R[0, 2] - R[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1.0 - R[0, 0] - R[1, 1] + R[2, 2])) / 2, R[1, 0] - R[0, 1])
    return np.array([w, x, y, z])


class NaiveArm:
    """One arm of the sample-style loop.

    Args:
        root: The rig's URDF.
        side: The side's config (joints, end effector, scale, initial pose).
        dt: The control period [s] (Placo's ``solver.dt``).
    """

    def __init__(self, root: ET.Element, side: SideCfg, dt: float) -> None:
        import placo

        joints = side.model_joint_names()
        self.ee = side.ee_frame or end_link(root, joints[-1])
        self.robot = placo.RobotWrapper("", placo.Flags.ignore_collisions, arm_chain(root, joints))
        for n, v in zip(joints, side.initial_pose_rad(), strict=True):
            self.robot.set_joint(n, float(v))
        self.robot.update_kinematics()
        self.solver = placo.KinematicsSolver(self.robot)
        self.solver.mask_fbase(True)
        self.solver.dt = dt
        self.solver.add_kinetic_energy_regularization_task(1e-6)
        self.task = self.solver.add_frame_task(self.ee, np.eye(4))
        self.task.configure("ee", "soft", 1.0, 1.0)
        self.scale = side.scale_factor
        self.ref_ctrl: tuple[np.ndarray, np.ndarray] | None = None
        self.ref_ee: np.ndarray | None = None

    def step(self, ctrl: ControllerState) -> None:
        """One XR frame: the clutch target, then one Placo step."""
        p, q = np.asarray(ctrl.pose[:3]), np.asarray(ctrl.pose[3:7])
        if self.ref_ctrl is None or self.ref_ee is None:
            self.ref_ctrl = (p.copy(), q.copy())
            self.ref_ee = self.robot.get_T_world_frame(self.ee).copy()
        dp = self.scale * (p - self.ref_ctrl[0])
        dq = quaternion_multiply(q, quaternion_inverse(self.ref_ctrl[1]))
        q_ee = quaternion_multiply(dq, quaternion_from_matrix(self.ref_ee))
        T = quaternion_matrix(q_ee)
        T[:3, 3] = self.ref_ee[:3, 3] + dp
        self.task.T_world_frame = T
        self.solver.solve(True)
        self.robot.update_kinematics()
