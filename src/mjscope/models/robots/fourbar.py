"""Planar four-bar linkage closed by a ``connect`` equality (the seed's exercise 5, S1.11).

A crank (motor-driven), a coupler and a rocker hinge about y; the coupler tip is connected to the
rocker tip. The ``coupler_tip`` and ``rocker_tip`` sites coincide while the equality holds, so
their distance is the constraint violation [m].
"""

from __future__ import annotations

import mujoco

from mjscope.models.registry import register
from mjscope.models.scene import add_light

CRANK_PIVOT = (0.0, 0.0, 0.5)  # [m]
ROCKER_PIVOT = (0.7, 0.0, 0.5)  # [m]
CRANK = (0.3, 0.0, 0.0)  # crank vector [m]
COUPLER = (0.25, 0.0, 0.15)  # coupler vector [m]
ROCKER = (-0.15, 0.0, 0.15)  # rocker vector [m]; pivot + rocker = crank end + coupler
LINK_RADIUS = 0.01  # [m]
JOINT_DAMPING = 0.1  # [N·m·s/rad]
MOTOR_LIMIT = 5.0  # crank torque limit [N·m]
JOINT_NAMES = ("j_crank", "j_coupler", "j_rocker")
SITES = ("coupler_tip", "rocker_tip")


def _link(body: mujoco.MjsBody, vec: tuple[float, float, float], joint: str) -> None:
    j = body.add_joint(name=joint, type=mujoco.mjtJoint.mjJNT_HINGE, axis=[0.0, 1.0, 0.0])
    j.damping = [JOINT_DAMPING, 0.0, 0.0]
    g = body.add_geom(type=mujoco.mjtGeom.mjGEOM_CAPSULE, size=[LINK_RADIUS, 0.0, 0.0])
    g.name = f"{body.name}_geom"
    g.fromto = [0.0, 0.0, 0.0, *vec]
    # The links overlap at their hinges by construction: they are not meant to collide.
    g.contype = g.conaffinity = 0


@register("fourbar", "mechanism", "four-bar linkage closed by a connect equality, motor on crank")
def build(solref_timeconst: float = 0.005) -> mujoco.MjSpec:
    """Build the four-bar linkage.

    Args:
        solref_timeconst: Time constant of the closing ``connect`` equality [s].

    Returns:
        The uncompiled spec.
    """
    spec = mujoco.MjSpec()
    spec.modelname = "fourbar"
    add_light(spec, pos=(0.3, -1.0, 1.5))
    crank = spec.worldbody.add_body(name="crank", pos=list(CRANK_PIVOT))
    _link(crank, CRANK, "j_crank")
    coupler = crank.add_body(name="coupler", pos=list(CRANK))
    _link(coupler, COUPLER, "j_coupler")
    coupler.add_site(name="coupler_tip", pos=list(COUPLER))
    rocker = spec.worldbody.add_body(name="rocker", pos=list(ROCKER_PIVOT))
    _link(rocker, ROCKER, "j_rocker")
    rocker.add_site(name="rocker_tip", pos=list(ROCKER))
    eq = spec.add_equality(name="closure", type=mujoco.mjtEq.mjEQ_CONNECT)
    eq.name1, eq.name2 = "coupler", "rocker"
    eq.objtype = mujoco.mjtObj.mjOBJ_BODY
    eq.data[:3] = list(COUPLER)
    eq.solref = [solref_timeconst, 1.0]
    eq.solimp = [0.99, 0.99, 0.001, 0.5, 2.0]
    a = spec.add_actuator(name="crank_motor", target="j_crank")
    a.trntype = mujoco.mjtTrn.mjTRN_JOINT
    a.set_to_motor()
    a.ctrlrange = [-MOTOR_LIMIT, MOTOR_LIMIT]
    a.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE
    a.forcerange = [-MOTOR_LIMIT, MOTOR_LIMIT]
    a.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
    return spec
