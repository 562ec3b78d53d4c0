"""Dual RM75 rig (two arms on a torso, shoulders pointing outward), built with ``MjSpec``.

Mounted like the public ``dual_rm75_robot.urdf`` (see :mod:`.dual_rm75_constants`); joints
``left_joint1..7`` and ``right_joint1..7``, flange sites ``left_flange`` and ``right_flange``.
"""

from __future__ import annotations

import mujoco

from mjscope.models.registry import register
from mjscope.models.robots import dual_rm75_constants as C
from mjscope.models.robots.rm75 import add_arm, new_kinematic_spec, rpy_to_quat
from mjscope.models.scene import add_camera

_TORSO_RGBA = (0.3, 0.32, 0.36, 1.0)


def _torso(spec: mujoco.MjSpec) -> mujoco.MjsBody:
    torso = spec.worldbody.add_body()
    torso.name = "body_base_link"
    torso.quat = rpy_to_quat(C.TORSO_RPY)
    torso.explicitinertial = True
    torso.mass = C.TORSO_MASS
    torso.ipos = [0.0, 0.0, C.SHOULDER_HEIGHT / 2]
    torso.inertia = [0.6, 0.6, 0.05]
    column = torso.add_geom()
    column.type = mujoco.mjtGeom.mjGEOM_CAPSULE
    column.fromto = [0.0, 0.0, 0.0, 0.0, 0.0, C.SHOULDER_HEIGHT - 0.05]
    column.size = [0.07, 0.0, 0.0]
    bar = torso.add_geom()
    bar.type = mujoco.mjtGeom.mjGEOM_CAPSULE
    bar.fromto = [-0.1, 0.0, C.SHOULDER_HEIGHT, 0.1, 0.0, C.SHOULDER_HEIGHT]
    bar.size = [0.05, 0.0, 0.0]
    for g in (column, bar):
        g.contype = g.conaffinity = 0
        g.density = 0.0
        g.rgba = list(_TORSO_RGBA)
    return torso


@register("dual_rm75", "dual-arm", "two RealMan RM75 arms on a torso (left_/right_joint1..7)")
def build() -> mujoco.MjSpec:
    """Build the dual-arm spec: 14 joints, sites ``left_flange`` / ``right_flange``."""
    spec = new_kinematic_spec(C.NAME)
    torso = _torso(spec)
    for side in C.SIDES:
        xyz, rpy = C.MOUNTS[side]
        mount = torso.add_body()
        mount.name = f"{side}_shoulder"
        mount.pos = list(xyz)
        mount.quat = rpy_to_quat(rpy)
        shoulder = mount.add_body()
        shoulder.name = f"{side}_dummy"
        shoulder.quat = rpy_to_quat(C.SHOULDER_RPY)
        add_arm(shoulder, f"{side}_")
    add_camera(spec, "mirror", (0.0, -1.5, 1.3), (0.0, 0.0, 0.8))
    return spec
