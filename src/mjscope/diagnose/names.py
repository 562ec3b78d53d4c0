"""Names of model elements as reports and findings print them (``joint 'hip'``, ``geom#3``).

Unnamed elements get ``<prefix>#<id>``; unnamed geoms (URDF collision geoms usually are) are
named after their body, ``<body>/geom#<id>``, so a message still says where they are.
"""

from __future__ import annotations

import mujoco

_OBJ = mujoco.mjtObj


def name_of(model: mujoco.MjModel, obj: int, idx: int, prefix: str) -> str:
    """Element name, or ``<prefix>#<id>`` when unnamed."""
    return mujoco.mj_id2name(model, obj, idx) or f"{prefix}#{idx}"


def joint_name(model: mujoco.MjModel, jid: int) -> str:
    """Name of a joint (``joint#<id>`` when unnamed)."""
    return name_of(model, _OBJ.mjOBJ_JOINT, jid, "joint")


def body_name(model: mujoco.MjModel, bid: int) -> str:
    """Name of a body, ``body#<id>`` if unnamed."""
    return mujoco.mj_id2name(model, _OBJ.mjOBJ_BODY, bid) or f"body#{bid}"


def geom_name(model: mujoco.MjModel, gid: int) -> str:
    """Name of a geom; ``<body>/geom#<id>`` if unnamed (URDF geoms), ``(flex)`` for -1."""
    if gid < 0:
        return "(flex)"
    name = mujoco.mj_id2name(model, _OBJ.mjOBJ_GEOM, gid)
    if name:
        return name
    return f"{body_name(model, int(model.geom_bodyid[gid]))}/geom#{gid}"


_FREE_AXES = ("x", "y", "z", "rx", "ry", "rz")
_BALL_AXES = ("rx", "ry", "rz")


def dof_label(model: mujoco.MjModel, dof: int) -> tuple[str, str, str]:
    """Label, group and unit of a DOF, e.g. ``("root.z", "free base", "N")``.

    Free joints name their six DOFs ``<joint>.x/y/z/rx/ry/rz`` (translations in N, rotations
    in N·m), ball joints ``<joint>.rx/ry/rz``; a slide is in N, a hinge in N·m.
    """
    j = int(model.dof_jntid[dof])
    k = dof - int(model.jnt_dofadr[j])
    name, t = joint_name(model, j), int(model.jnt_type[j])
    jt = mujoco.mjtJoint
    if t == jt.mjJNT_FREE:
        return f"{name}.{_FREE_AXES[k]}", "free base", "N" if k < 3 else "N·m"
    if t == jt.mjJNT_BALL:
        return f"{name}.{_BALL_AXES[k]}", "joint", "N·m"
    return name, "joint", "N" if t == jt.mjJNT_SLIDE else "N·m"
