"""Cameras fitted to the subject, and frame captions."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from mjscope.models import compile_spec, load_spec
from mjscope.sim.framing import draw_caption, fit_camera, subject_points
from mjscope.sim.render import OffscreenRenderer


def _model(name: str) -> tuple[mujoco.MjModel, mujoco.MjData]:
    m = compile_spec(load_spec(name), name)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    return m, d


def _tangent(cam: mujoco.MjvCamera, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, e = math.radians(cam.azimuth), math.radians(cam.elevation)
    fwd = np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])
    right = np.cross(fwd, [0, 0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    eye = np.asarray(cam.lookat) - cam.distance * fwd
    rel = pts - eye
    depth = rel @ fwd
    return rel @ right / depth, rel @ up / depth


@pytest.mark.parametrize("name", ["dual_rm75", "g20_left", "rm75"])
def test_fitted_camera_holds_every_subject_point_with_its_margin_and_no_more(name: str) -> None:
    m, d = _model(name)
    w, h, margin = 640, 480, 0.06
    cam = fit_camera(m, d, w, h, margin=margin)
    u, v = _tangent(cam, subject_points(m, d))
    tan_v = math.tan(math.radians(m.vis.global_.fovy) / 2) * (1 - 2 * margin)
    tan_h = tan_v * w / h
    assert np.abs(u).max() <= tan_h * (1 + 1e-6) and np.abs(v).max() <= tan_v * (1 + 1e-6)
    # tight: the limiting direction touches its bound, and the extent is centred
    assert max(np.abs(u).max() / tan_h, np.abs(v).max() / tan_v) > 0.97
    assert abs(u.max() + u.min()) < 0.05 * tan_h and abs(v.max() + v.min()) < 0.05 * tan_v


def _subject_pixels(m: mujoco.MjModel, d: mujoco.MjData) -> np.ndarray:
    with OffscreenRenderer(m, 640, 480) as r:
        r.render(d)  # fits the camera
        r._renderer.enable_segmentation_rendering()
        r._renderer.update_scene(d, camera=r.camera)
        seg = r._renderer.render()
    geom = seg[..., 0]
    is_geom = seg[..., 1] == int(mujoco.mjtObj.mjOBJ_GEOM)
    floor = np.isin(
        geom, [g for g in range(m.ngeom) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE]
    )
    return is_geom & ~floor


@pytest.mark.parametrize(("name", "fill"), [("g20_left", 0.4), ("dual_rm75", 0.4)])
def test_rendered_subject_is_whole_and_fills_the_frame(name: str, fill: float) -> None:
    m, d = _model(name)
    mask = _subject_pixels(m, d)
    rows, cols = np.nonzero(mask)
    assert rows.min() > 0 and cols.min() > 0, "the subject touches the top/left edge"
    assert rows.max() < 479 and cols.max() < 639, "the subject touches the bottom/right edge"
    box = (rows.max() - rows.min() + 1) * (cols.max() - cols.min() + 1) / (480 * 640)
    assert box >= fill, box


def test_caption_is_drawn_bottom_left_and_legible() -> None:
    img = np.full((480, 640, 3), 200, np.uint8)
    out = draw_caption(img, "g20_left · t = 1.25 s")
    assert np.array_equal(img, np.full((480, 640, 3), 200, np.uint8))  # input untouched
    changed = np.any(out != img, axis=2)
    rows, cols = np.nonzero(changed)
    assert rows.min() > 400 and cols.min() == 0 and cols.max() < 400  # a band, bottom-left
    assert (out[changed] == 255).all(axis=1).sum() > 50  # white text pixels on it
    assert not np.array_equal(out, draw_caption(img, "g20_left · t = 1.50 s"))
