"""RealMan RM75 7-DoF arm, mesh-free (capsules), built with ``MjSpec``.

Kinematics, limits and masses follow ``rm_75.urdf`` (see :mod:`.rm75_constants`); geometry is
a chain of non-colliding capsules, enough for a kinematic mirror. :func:`add_arm` is shared
with the dual-arm rig (:mod:`.dual_rm75`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mujoco
import numpy as np

from mjscope.models.registry import register
from mjscope.models.robots import rm75_constants as C
from mjscope.models.robots._arm_spec import add_visual_segment
from mjscope.models.scene import add_camera, add_floor, add_light, set_offscreen_size

ARM_RGBA = (0.82, 0.84, 0.88, 1.0)
JOINT_RGBA = (0.25, 0.45, 0.85, 1.0)
_RADIUS = 0.045  # capsule radius [m]


def rpy_to_quat(rpy: Sequence[float]) -> list[float]:
    """URDF roll-pitch-yaw (R = Rz(y)·Ry(p)·Rx(r)) [rad] → MuJoCo quaternion (w, x, y, z)."""
    r, p, y = (float(a) for a in rpy)
    qx = np.array([math.cos(r / 2), math.sin(r / 2), 0.0, 0.0])
    qy = np.array([math.cos(p / 2), 0.0, math.sin(p / 2), 0.0])
    qz = np.array([math.cos(y / 2), 0.0, 0.0, math.sin(y / 2)])
    out = np.zeros(4)
    tmp = np.zeros(4)
    mujoco.mju_mulQuat(tmp, qz, qy)
    mujoco.mju_mulQuat(out, tmp, qx)
    return [float(v) for v in out]


def _segment(body: mujoco.MjsBody, to: Sequence[float], rgba: Sequence[float]) -> None:
    """A massless, non-colliding capsule of the arm's radius (a slightly larger sphere at 0)."""
    add_visual_segment(body, to, _RADIUS, rgba, group=0, sphere_radius=_RADIUS * 1.15)


def _inertial(body: mujoco.MjsBody, mass: float) -> None:
    """Explicit inertial: ``mass`` [kg] as a solid sphere of the capsule radius."""
    body.explicitinertial = True
    body.mass = mass
    i = 0.4 * mass * _RADIUS**2
    body.inertia = [i, i, i]


def add_arm(parent: mujoco.MjsBody, prefix: str = "") -> mujoco.MjsBody:
    """Add one RM75 (``base_link`` … ``Link7``) under ``parent``; names get ``prefix``.

    Args:
        parent: Body the arm's ``base_link`` is fixed to (at its origin).
        prefix: Prepended to every body, joint and site name (e.g. ``"left_"``).

    Returns:
        The ``base_link`` body.
    """
    base = parent.add_body()
    base.name = prefix + C.LINK_NAMES[0]
    _inertial(base, C.LINK_MASSES[0])
    _segment(base, C.JOINT_XYZ[0], ARM_RGBA)
    body = base
    for i, jname in enumerate(C.JOINT_NAMES):
        child = body.add_body()
        child.name = prefix + C.LINK_NAMES[i + 1]
        child.pos = list(C.JOINT_XYZ[i])
        child.quat = rpy_to_quat(C.JOINT_RPY[i])
        _inertial(child, C.LINK_MASSES[i + 1])
        j = child.add_joint()
        j.name = prefix + jname
        j.type = mujoco.mjtJoint.mjJNT_HINGE
        j.axis = list(C.JOINT_AXES[i])
        j.range = [-C.JOINT_LIMITS[i], C.JOINT_LIMITS[i]]
        j.limited = mujoco.mjtLimited.mjLIMITED_TRUE
        j.actfrcrange = [-C.EFFORT_LIMITS[i], C.EFFORT_LIMITS[i]]
        nxt = C.JOINT_XYZ[i + 1] if i + 1 < len(C.JOINT_XYZ) else (0.0, 0.0, 0.02)
        _segment(child, nxt, JOINT_RGBA if i % 2 else ARM_RGBA)
        body = child
    site = body.add_site()
    site.name = prefix + C.FLANGE_SITE
    site.size = [0.01, 0.0, 0.0]
    return base


def new_kinematic_spec(name: str) -> mujoco.MjSpec:
    """An empty spec for a kinematic mirror: explicit inertials, a floor, a light."""
    spec = mujoco.MjSpec()
    spec.modelname = name
    spec.compiler.degree = False  # joint ranges in radians
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    add_floor(spec, size=2.0)
    add_light(spec, (0.0, -1.0, 3.0))
    set_offscreen_size(spec, 1280, 960)
    return spec


@register("rm75", "arm", "RealMan RM75 7-DoF arm (capsules; rm_75.urdf kinematics and masses)")
def build() -> mujoco.MjSpec:
    """Build the RM75 spec: joints ``joint1``..``joint7``, site ``flange`` on ``Link7``."""
    spec = new_kinematic_spec(C.NAME)
    add_arm(spec.worldbody)
    add_camera(spec, "mirror", (1.4, -1.4, 1.0), (0.0, 0.0, 0.45))
    return spec
