"""Helpers that compose a scene around a robot spec: floor, light, camera, offscreen size."""

from __future__ import annotations

from collections.abc import Sequence

import mujoco
import numpy as np


def add_floor(
    spec: mujoco.MjSpec,
    size: float = 5.0,
    z: float = 0.0,
    friction: Sequence[float] = (1.0, 0.005, 0.0001),
    rgba: Sequence[float] = (0.35, 0.38, 0.42, 1.0),
) -> mujoco.MjsGeom:
    """Add a plane named ``floor`` to the world body.

    Args:
        spec: Spec to edit.
        size: Half-extent of the plane [m].
        z: Height [m].
        friction: Sliding, torsional, rolling friction.
        rgba: Colour.

    Returns:
        The new geom.
    """
    g = spec.worldbody.add_geom()
    g.name = "floor"
    g.type = mujoco.mjtGeom.mjGEOM_PLANE
    g.size = [size, size, 0.05]
    g.pos = [0.0, 0.0, z]
    g.friction = list(friction)
    g.rgba = list(rgba)
    return g


def add_light(spec: mujoco.MjSpec, pos: Sequence[float] = (0.0, 0.0, 3.0)) -> mujoco.MjsLight:
    """Add a directional light pointing down (URDF models come without one).

    Args:
        spec: Spec to edit.
        pos: Light position [m].

    Returns:
        The new light.
    """
    light = spec.worldbody.add_light()
    light.pos = list(pos)
    light.dir = [0.0, 0.0, -1.0]
    light.diffuse = [0.8, 0.8, 0.8]
    return light


def add_camera(
    spec: mujoco.MjSpec,
    name: str,
    pos: Sequence[float],
    target: Sequence[float] = (0.0, 0.0, 0.0),
    fovy: float = 45.0,
) -> mujoco.MjsCamera:
    """Add a fixed camera looking from ``pos`` at ``target``.

    Args:
        spec: Spec to edit.
        name: Camera name.
        pos: Camera position [m].
        target: Point the camera looks at [m].
        fovy: Vertical field of view [deg].

    Returns:
        The new camera.

    Raises:
        ValueError: ``pos`` equals ``target`` (no viewing direction).
    """
    # Aim with xyaxes: x to the right (horizontal), y up-ish, z pointing back at the camera.
    fwd = np.asarray(target, float) - np.asarray(pos, float)  # (3,)
    if np.linalg.norm(fwd) < 1e-12:
        raise ValueError(f"camera {name!r}: pos and target are the same point {list(pos)}")
    fwd /= np.linalg.norm(fwd)
    cam = spec.worldbody.add_camera()
    cam.name = name
    cam.pos = list(pos)
    cam.fovy = fovy
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    if np.linalg.norm(right) < 1e-9:
        right = np.array([1.0, 0.0, 0.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    cam.mode = mujoco.mjtCamLight.mjCAMLIGHT_FIXED
    cam.alt.type = mujoco.mjtOrientation.mjORIENTATION_XYAXES
    cam.alt.xyaxes = [*right, *up]
    return cam


def set_offscreen_size(spec: mujoco.MjSpec, width: int = 1280, height: int = 960) -> None:
    """Enlarge the offscreen framebuffer so larger frames can be rendered."""
    spec.visual.global_.offwidth = max(int(spec.visual.global_.offwidth), width)
    spec.visual.global_.offheight = max(int(spec.visual.global_.offheight), height)
