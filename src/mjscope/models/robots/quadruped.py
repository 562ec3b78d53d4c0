"""Go2-like quadruped: free-floating trunk, 12 position-controlled hinge joints, on a floor.

It starts ``DROP_HEIGHT`` above the floor in its standing pose, falls and settles: the seed's
Go2 exercise (S1.7) and the default scene of ``mjscope diagnose``.
"""

from __future__ import annotations

import math

import mujoco

from mjscope.models.registry import register
from mjscope.models.robots import quadruped_constants as c
from mjscope.models.scene import add_floor, add_light

_Y = [0.0, 1.0, 0.0]
_X = [1.0, 0.0, 0.0]
_GREY = [0.6, 0.6, 0.65, 1.0]


def _quat_y(angle: float) -> list[float]:
    """Quaternion of a rotation by ``angle`` [rad] about y."""
    return [math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0]


def _visual_capsule(body: mujoco.MjsBody, length: float, radius: float) -> None:
    g = body.add_geom()
    g.type = mujoco.mjtGeom.mjGEOM_CAPSULE
    g.fromto = [0.0, 0.0, 0.0, 0.0, 0.0, -length]
    g.size = [radius, 0.0, 0.0]
    g.contype = g.conaffinity = 0
    g.group = 1
    g.density = 0.0
    g.rgba = _GREY


def _hinge(body: mujoco.MjsBody, name: str, axis: list[float], part: str) -> None:
    j = body.add_joint()
    j.name = name
    j.type = mujoco.mjtJoint.mjJNT_HINGE
    j.axis = axis
    j.ref = c.STAND[part]
    j.range = list(c.RANGE[part])
    j.limited = mujoco.mjtLimited.mjLIMITED_TRUE
    j.damping = [c.JOINT_DAMPING, 0.0, 0.0]
    j.armature = c.ARMATURE


def _inertial(body: mujoco.MjsBody, mass: float, diag: tuple[float, float, float]) -> None:
    body.mass = mass
    body.ipos = [0.0, 0.0, 0.0]
    body.iquat = [1.0, 0.0, 0.0, 0.0]
    body.inertia = list(diag)
    body.explicitinertial = True


def _add_leg(spec: mujoco.MjSpec, trunk: mujoco.MjsBody, leg: str) -> None:
    sx, sy = c.LEG_SIGN[leg]
    hip = trunk.add_body(name=f"{leg}_hip", pos=[sx * c.HIP_OFFSET[0], sy * c.HIP_OFFSET[1], 0])
    _inertial(hip, c.HIP_MASS, c.HIP_INERTIA)
    _hinge(hip, f"{leg}_hip_joint", _X, "hip")
    thigh = hip.add_body(
        name=f"{leg}_thigh", pos=[0, sy * c.THIGH_OFFSET_Y, 0], quat=_quat_y(c.STAND["thigh"])
    )
    _inertial(thigh, c.THIGH_MASS, c.THIGH_INERTIA)
    thigh.ipos = [0.0, 0.0, -c.THIGH_LENGTH / 2]
    _hinge(thigh, f"{leg}_thigh_joint", _Y, "thigh")
    _visual_capsule(thigh, c.THIGH_LENGTH, 0.02)
    calf = thigh.add_body(
        name=f"{leg}_calf", pos=[0, 0, -c.THIGH_LENGTH], quat=_quat_y(c.STAND["calf"])
    )
    _inertial(calf, c.CALF_MASS + c.FOOT_MASS, c.CALF_INERTIA)
    calf.ipos = [0.0, 0.0, -c.CALF_LENGTH / 2]
    _hinge(calf, f"{leg}_calf_joint", _Y, "calf")
    _visual_capsule(calf, c.CALF_LENGTH, 0.012)
    foot = calf.add_geom()
    foot.name = f"{leg}_foot"
    foot.type = mujoco.mjtGeom.mjGEOM_SPHERE
    foot.size = [c.FOOT_RADIUS, 0.0, 0.0]
    foot.pos = [0.0, 0.0, -c.CALF_LENGTH]
    foot.density = 0.0
    foot.condim = 3
    foot.friction = list(c.FOOT_FRICTION)
    foot.solref = list(c.FOOT_SOLREF)
    foot.solimp = list(c.FOOT_SOLIMP)
    foot.priority = 1  # the foot sets the contact parameters (no mixing with the floor)
    foot.rgba = [0.1, 0.1, 0.1, 1.0]
    for part in c.JOINT_SUFFIXES:
        _position_actuator(spec, leg, part)


def _position_actuator(spec: mujoco.MjSpec, leg: str, part: str) -> None:
    a = spec.add_actuator()
    a.name = f"{leg}_{part}"
    a.target = f"{leg}_{part}_joint"
    a.trntype = mujoco.mjtTrn.mjTRN_JOINT
    a.set_to_position(kp=c.KP, kv=c.KV)
    a.ctrlrange = list(c.RANGE[part])
    a.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE
    a.forcerange = [-c.FORCE_LIMIT[part], c.FORCE_LIMIT[part]]
    a.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE


def _add_sensors(spec: mujoco.MjSpec) -> None:
    spec.body(c.TRUNK).add_site(name="imu", pos=[0, 0, 0])
    for name, kind in (
        ("imu_gyro", mujoco.mjtSensor.mjSENS_GYRO),
        ("imu_acc", mujoco.mjtSensor.mjSENS_ACCELEROMETER),
        ("imu_quat", mujoco.mjtSensor.mjSENS_FRAMEQUAT),
    ):
        s = spec.add_sensor(name=name, type=kind, objname="imu")
        s.objtype = mujoco.mjtObj.mjOBJ_SITE
    for leg in c.LEGS:
        s = spec.add_sensor(
            name=f"{leg}_calf_pos",
            type=mujoco.mjtSensor.mjSENS_JOINTPOS,
            objname=f"{leg}_calf_joint",
        )
        s.objtype = mujoco.mjtObj.mjOBJ_JOINT


@register("quadruped", "legged", "Go2-like quadruped, 12 position actuators; falls and settles")
def build(drop_height: float = c.DROP_HEIGHT) -> mujoco.MjSpec:
    """Build the quadruped scene.

    Args:
        drop_height: Initial trunk height above the floor [m].

    Returns:
        The uncompiled spec (floor and light included).
    """
    spec = mujoco.MjSpec()
    spec.modelname = "quadruped"
    spec.compiler.degree = False
    spec.option.timestep = c.TIMESTEP
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    add_floor(spec)
    add_light(spec)
    trunk = spec.worldbody.add_body(name=c.TRUNK, pos=[0.0, 0.0, drop_height])
    trunk.add_freejoint(name=c.ROOT_JOINT)
    _inertial(trunk, c.TRUNK_MASS, c.TRUNK_INERTIA)
    g = trunk.add_geom(name="trunk_box", type=mujoco.mjtGeom.mjGEOM_BOX, size=list(c.TRUNK_HALF))
    g.density = 0.0
    g.rgba = [0.8, 0.8, 0.85, 1.0]
    for leg in c.LEGS:
        _add_leg(spec, trunk, leg)
    _add_sensors(spec)
    key = spec.add_key(name="home")
    key.qpos = [0.0, 0.0, drop_height, 1.0, 0.0, 0.0, 0.0] + [
        c.STAND[p] for _ in c.LEGS for p in c.JOINT_SUFFIXES
    ]
    key.ctrl = [c.STAND[p] for _ in c.LEGS for p in c.JOINT_SUFFIXES]
    return spec
