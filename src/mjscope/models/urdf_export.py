"""Export a compiled MuJoCo model's kinematic tree as a URDF (for Placo / Pinocchio IK).

The URDF holds what an IK needs and nothing else: one link per body (its inertial), one fixed
link per site, and the joints between them, with the body frames exactly as MuJoCo compiled
them. No geometry (no meshes to resolve). Hinge joints become ``revolute`` (``continuous`` when
unlimited), slide joints ``prismatic``; a body without a joint hangs on a ``fixed`` joint named
``<parent>_to_<body>``. Numbers are written with 17 significant digits, so the URDF's forward
kinematics match MuJoCo's to rounding (tested against ``mj_forward``).

The bundled ``dual_rm75`` ships its export as package data (``data/urdf/dual_rm75.urdf``), so
teleop can load its IK model without importing MuJoCo; :func:`bundled_urdf_text` regenerates
it (``python -m mjscope.models.urdf_export dual_rm75 > FILE``) and a test keeps the two equal.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from xml.sax.saxutils import quoteattr

import mujoco
import numpy as np
import numpy.typing as npt

from mjscope.exceptions import ModelLoadError

#: Bundled models whose URDF export ships as package data (``data/urdf/<file>``).
BUNDLED_URDF = {"dual_rm75": "dual_rm75.urdf"}


def _num(v: float) -> str:
    s = format(float(v), ".17g")
    return "0" if s in ("-0", "0") else s


def _vec(v: npt.ArrayLike) -> str:
    return " ".join(_num(x) for x in np.asarray(v, dtype=float).ravel())


def quat_to_rpy(quat: npt.ArrayLike) -> np.ndarray:
    """MuJoCo quaternion (w, x, y, z) → URDF roll-pitch-yaw [rad], ``R = Rz(y)·Ry(p)·Rx(r)``."""
    flat = np.zeros(9)
    mujoco.mju_quat2Mat(flat, np.asarray(quat, dtype=float))
    R = flat.reshape(3, 3)
    pitch = math.asin(max(-1.0, min(1.0, -R[2, 0])))
    if abs(R[2, 0]) < 1.0 - 1e-12:
        roll = math.atan2(R[2, 1], R[2, 2])
        yaw = math.atan2(R[1, 0], R[0, 0])
    else:  # gimbal lock: put the whole rotation about z into yaw
        roll = 0.0
        yaw = math.atan2(-R[0, 1], R[1, 1])
    return np.array([roll, pitch, yaw])


def _origin(pos: npt.ArrayLike, quat: npt.ArrayLike) -> str:
    return f'<origin xyz="{_vec(pos)}" rpy="{_vec(quat_to_rpy(quat))}"/>'


def _name(model: mujoco.MjModel, obj: mujoco.mjtObj, i: int, fallback: str) -> str:
    return mujoco.mj_id2name(model, obj, i) or fallback


def _link(model: mujoco.MjModel, b: int, name: str) -> list[str]:
    mass = float(model.body_mass[b])
    if mass <= 0.0:
        return [f"  <link name={quoteattr(name)}/>"]
    ixx, iyy, izz = (_num(v) for v in model.body_inertia[b])
    return [
        f"  <link name={quoteattr(name)}>",
        "    <inertial>",
        f"      {_origin(model.body_ipos[b], model.body_iquat[b])}",
        f'      <mass value="{_num(mass)}"/>',
        f'      <inertia ixx="{ixx}" ixy="0" ixz="0" iyy="{iyy}" iyz="0" izz="{izz}"/>',
        "    </inertial>",
        "  </link>",
    ]


def _joint(
    model: mujoco.MjModel, b: int, parent: str, child: str, velocity: Mapping[str, float]
) -> list[str]:
    origin = _origin(model.body_pos[b], model.body_quat[b])
    n = int(model.body_jntnum[b])
    if n == 0:
        name = quoteattr(f"{parent}_to_{child}")
        return [
            f'  <joint name={name} type="fixed">',
            f"    {origin}",
            f"    <parent link={quoteattr(parent)}/>",
            f"    <child link={quoteattr(child)}/>",
            "  </joint>",
        ]
    j = int(model.body_jntadr[b])
    jname = _name(model, mujoco.mjtObj.mjOBJ_JOINT, j, f"joint{j}")
    jtype = int(model.jnt_type[j])
    if n > 1 or jtype not in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
        raise ModelLoadError(
            f"body {child!r} has {n} joint(s) of type {jtype}; URDF export takes one hinge or "
            "slide joint per body"
        )
    if np.any(np.abs(model.jnt_pos[j]) > 0.0):
        raise ModelLoadError(f"joint {jname!r} is offset from its body origin; URDF cannot say so")
    limited = bool(model.jnt_limited[j])
    kind = "prismatic" if jtype == mujoco.mjtJoint.mjJNT_SLIDE else "revolute"
    if not limited and kind == "revolute":
        kind = "continuous"
    effort = float(np.max(np.abs(model.jnt_actfrcrange[j]))) if model.jnt_actfrclimited[j] else 0
    lo, hi = model.jnt_range[j] if limited else (0.0, 0.0)
    limit = (
        f'    <limit lower="{_num(lo)}" upper="{_num(hi)}" effort="{_num(effort)}" '
        f'velocity="{_num(velocity.get(jname, 0.0))}"/>'
    )
    return [
        f'  <joint name={quoteattr(jname)} type="{kind}">',
        f"    {origin}",
        f"    <parent link={quoteattr(parent)}/>",
        f"    <child link={quoteattr(child)}/>",
        f'    <axis xyz="{_vec(model.jnt_axis[j])}"/>',
        *([limit] if limited or kind == "prismatic" else []),
        "  </joint>",
    ]


def _site(model: mujoco.MjModel, s: int, body: str) -> list[str]:
    name = _name(model, mujoco.mjtObj.mjOBJ_SITE, s, f"site{s}")
    return [
        f"  <link name={quoteattr(name)}/>",
        f'  <joint name={quoteattr(f"{body}_to_{name}")} type="fixed">',
        f"    {_origin(model.site_pos[s], model.site_quat[s])}",
        f"    <parent link={quoteattr(body)}/>",
        f"    <child link={quoteattr(name)}/>",
        "  </joint>",
    ]


def export_urdf(
    model: mujoco.MjModel, name: str | None = None, velocity: Mapping[str, float] | None = None
) -> str:
    """The model's kinematic tree as URDF text.

    Args:
        model: A compiled model (bodies with at most one hinge or slide joint each).
        name: The URDF robot name (default: the model's name).
        velocity: Joint name → velocity limit [rad/s or m/s] written into ``<limit>``
            (MuJoCo has none; 0 where not given).

    Returns:
        The URDF document; its root link is the world body, named ``world``.

    Raises:
        ModelLoadError: A body has a ball/free joint, several joints, or an offset joint.
    """
    vel = velocity or {}
    robot = name or bytes(model.names[: model.names.index(b"\0")]).decode() or "robot"
    out = ['<?xml version="1.0"?>', f"<robot name={quoteattr(robot)}>"]
    out.append('  <link name="world"/>')
    names = ["world"] + [
        _name(model, mujoco.mjtObj.mjOBJ_BODY, b, f"body{b}") for b in range(1, model.nbody)
    ]
    for b in range(1, model.nbody):
        parent = names[int(model.body_parentid[b])]
        out += _link(model, b, names[b])
        out += _joint(model, b, parent, names[b], vel)
    for s in range(model.nsite):
        out += _site(model, s, names[int(model.site_bodyid[s])])
    out.append("</robot>")
    return "\n".join(out) + "\n"


def bundled_urdf_text(name: str) -> str:
    """The URDF export of a bundled model (what ``data/urdf/<name>.urdf`` holds).

    Raises:
        UnknownNameError: ``name`` is not bundled.
    """
    from mjscope.models.loading import load

    velocity: dict[str, float] = {}
    if name == "dual_rm75":
        from mjscope.models.robots import dual_rm75_constants as D
        from mjscope.models.robots import rm75_constants as C

        for side in D.SIDES:
            velocity.update(zip(D.joint_names(side), C.VELOCITY_LIMITS, strict=True))
    return export_urdf(load(name), name, velocity)


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(bundled_urdf_text(sys.argv[1] if len(sys.argv) > 1 else "dual_rm75"))
