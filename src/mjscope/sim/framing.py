"""Cameras framed on the subject, and captions on rendered frames.

The camera is fitted to the world bounding box of the subject's geoms (the robot and the task's
objects; floors, height fields and sky-sized geoms left out), from the model and its current
state, so no model needs a hand-placed camera to be shown whole and large.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

MAX_SUBJECT_EXTENT_M = 20.0  # a geom larger than this is scenery (a wall, a sky box) [m]
_SCENERY = (mujoco.mjtGeom.mjGEOM_PLANE, mujoco.mjtGeom.mjGEOM_HFIELD)


def model_label(model: mujoco.MjModel) -> str:
    """The model's name (``<mujoco model="…">``), or ``"model"`` when it has none."""
    raw = bytes(model.names)
    name = raw[: raw.find(b"\0")].decode("utf-8", "replace") if raw else ""
    return name or "model"


def subject_points(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """Corners of every visible subject geom's box in the world, at the current state.

    Subject geoms are those MuJoCo draws by default (groups 0–2, not transparent) that are not
    scenery (planes, height fields, anything over :data:`MAX_SUBJECT_EXTENT_M`).

    Args:
        model: The compiled model.
        data: Its state (positions computed: ``mj_forward`` or ``mj_kinematics`` done).

    Returns:
        ``(8 n, 3)`` points [m]; a model without subject geoms gives its bodies' positions
        (or the origin).
    """
    keep = [
        g
        for g in range(model.ngeom)
        if model.geom_type[g] not in _SCENERY
        and model.geom_group[g] < 3
        and model.geom_rgba[g, 3] > 0.0
        and float(np.max(model.geom_aabb[g, 3:])) < MAX_SUBJECT_EXTENT_M
    ]
    if not keep:
        return data.xpos[1:].copy() if model.nbody > 1 else np.zeros((1, 3))
    idx = np.array(keep)
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    local = model.geom_aabb[idx, None, :3] + signs[None] * model.geom_aabb[idx, None, 3:]
    rot = data.geom_xmat[idx].reshape(-1, 3, 3)  # (n, 3, 3) world from geom
    world = data.geom_xpos[idx, None, :] + np.einsum("nij,nkj->nki", rot, local)  # (n, 8, 3)
    return world.reshape(-1, 3)


def subject_box(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """World axis-aligned box ``(lo, hi)`` [m] around :func:`subject_points`."""
    pts = subject_points(model, data)
    return pts.min(axis=0), pts.max(axis=0)


def broad_side_azimuth(points: np.ndarray, oblique_deg: float = 30.0) -> float:
    """An azimuth [deg] that faces the subject's broad side, turned ``oblique_deg`` for depth."""
    span = points.max(axis=0) - points.min(axis=0)
    base = 90.0 if span[0] >= span[1] else 180.0  # look along the thin horizontal axis
    return base + oblique_deg


def fit_camera(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    width: int,
    height: int,
    azimuth: float | None = None,
    elevation: float = -20.0,
    margin: float = 0.06,
    points: np.ndarray | None = None,
) -> mujoco.MjvCamera:
    """A free camera that shows the subject whole and large.

    The subject's points are projected into the view; the look-at point is moved to the middle
    of their extent and the distance chosen so that the widest of them fits the field of view
    with ``margin`` (a fraction of the frame) to spare on each side.

    Args:
        model: The compiled model (its ``vis.global_.fovy`` is the vertical field of view).
        data: Its current state.
        width: Frame width [px].
        height: Frame height [px].
        azimuth: Camera azimuth [deg] (MuJoCo's convention); ``None``: the broad side
            (:func:`broad_side_azimuth`).
        elevation: Camera elevation [deg] (negative looks down).
        margin: Free border on each side, as a fraction of the frame.
        points: World points to frame instead of :func:`subject_points`, ``(n, 3)`` [m].

    Returns:
        The camera (``mjCAMERA_FREE``).
    """
    pts = subject_points(model, data) if points is None else np.asarray(points, float)
    if azimuth is None:
        azimuth = broad_side_azimuth(pts)
    a, e = math.radians(azimuth), math.radians(elevation)
    fwd = np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    tan_v = math.tan(math.radians(float(model.vis.global_.fovy)) / 2.0) * (1.0 - 2.0 * margin)
    tan_h = tan_v * width / height
    lookat = (pts.min(axis=0) + pts.max(axis=0)) / 2.0
    dist = 1.0
    for _ in range(4):  # centre on the projected extent, then fit the distance; settles fast
        rel = pts - lookat
        x, y, z = rel @ right, rel @ up, rel @ fwd
        dist = float(max(np.max(np.abs(x) / tan_h - z), np.max(np.abs(y) / tan_v - z), 1e-3))
        depth = dist + z  # distance of each point along the view axis
        u, v = x / depth, y / depth  # tangent-plane coordinates
        du, dv = (u.max() + u.min()) / 2.0, (v.max() + v.min()) / 2.0
        lookat = lookat + dist * (du * right + dv * up)
    cam = mujoco.MjvCamera()
    cam.type = mujoco.mjtCamera.mjCAMERA_FREE
    cam.lookat[:] = lookat
    cam.distance = dist
    cam.azimuth, cam.elevation = azimuth, elevation
    return cam


def draw_caption(image: np.ndarray, text: str) -> np.ndarray:
    """Write ``text`` in the bottom-left corner on a dark band (legible on any scene).

    Args:
        image: ``(h, w, 3)`` uint8 frame; left unchanged.
        text: One line, e.g. ``"dual_rm75 · t = 1.20 s"``.

    Returns:
        A new ``(h, w, 3)`` uint8 frame with the caption.
    """
    from PIL import Image, ImageDraw, ImageFont

    h = image.shape[0]
    size = max(12, round(h / 28))
    font = ImageFont.load_default(size=size)
    img = Image.fromarray(image)
    draw = ImageDraw.Draw(img, "RGBA")
    pad = max(4, size // 3)
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    box = (0, h - (bottom - top) - 2 * pad, right - left + 2 * pad, h)
    draw.rectangle(box, fill=(0, 0, 0, 170))
    draw.text((pad - left, h - (bottom - top) - pad - top), text, fill=(255, 255, 255), font=font)
    return np.asarray(img).copy()
