"""Headless rendering: a state to PNG; frames to MP4 or GIF (:mod:`mjscope.sim.video`).

The GL backend comes from ``MUJOCO_GL`` (``egl`` by default without a display, ``osmesa``
where installed). The native viewer is only used by commands that ask for it. Every writer
checks its path before any work and replaces an earlier file only with a complete new one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import mujoco
import numpy as np

from mjscope.exceptions import MjscopeError, UnknownNameError
from mjscope.paths import check_writable, write_bytes
from mjscope.sim._output import quiet_third_party
from mjscope.sim.video import VideoRecorder, write_video

__all__ = [
    "OffscreenRenderer",
    "VideoRecorder",
    "image_strip",
    "render_png",
    "save_png",
    "write_video",
]


class OffscreenRenderer:
    """Offscreen RGB renderer for one model, usable as a context manager.

    Args:
        model: The compiled model.
        width: Frame width [px]; clipped to the model's offscreen buffer.
        height: Frame height [px]; clipped to the model's offscreen buffer.
        camera: Camera name or id; ``None`` uses a free camera framing the whole model.

    Raises:
        UnknownNameError: ``camera`` is not a camera of the model.
        MjscopeError: No offscreen GL backend works.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        width: int = 640,
        height: int = 480,
        camera: str | int | None = None,
    ) -> None:
        _check_camera(model, camera)
        quiet_third_party()
        _ensure_headless_backend()
        width = min(width, int(model.vis.global_.offwidth))
        height = min(height, int(model.vis.global_.offheight))
        try:
            self._renderer = mujoco.Renderer(model, height=height, width=width)
        except Exception as e:  # backend errors differ per platform
            raise MjscopeError(
                f"offscreen rendering failed with MUJOCO_GL={os.environ.get('MUJOCO_GL', '')!r}: "
                f"{e}; install libegl-mesa0 (egl) or libosmesa6 (osmesa) and set MUJOCO_GL"
            ) from e
        self.model = model
        self.camera: str | int | mujoco.MjvCamera = (
            camera if camera is not None else _free_camera(model)
        )

    def render(self, data: mujoco.MjData) -> np.ndarray:
        """Render the current state.

        Args:
            data: State to draw (``mj_forward`` must have been called after writing ``qpos``).

        Returns:
            ``(height, width, 3)`` uint8 image.
        """
        self._renderer.update_scene(data, camera=self.camera)
        return self._renderer.render().copy()

    def close(self) -> None:
        """Release the GL context."""
        self._renderer.close()

    def __enter__(self) -> OffscreenRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ensure_headless_backend() -> None:
    """Switch MuJoCo's renderer to EGL when it picked GLFW but there is no display.

    ``mujoco`` chooses its GL backend when it is first imported; a program that imported it
    before :mod:`mjscope` (without ``MUJOCO_GL``) would get GLFW, which needs a display.
    """
    want = os.environ.get("MUJOCO_GL", "").lower() or ("" if os.environ.get("DISPLAY") else "egl")
    if want not in ("egl", "osmesa"):
        return
    from mujoco.rendering.classic import gl_context

    ctx = getattr(gl_context, "GLContext", None)
    if ctx is not None and ctx.__module__.startswith("mujoco.glfw"):
        if want == "egl":
            from mujoco.egl import GLContext as Headless
        else:
            from mujoco.osmesa import GLContext as Headless
        gl_context.GLContext = Headless


def _check_camera(model: mujoco.MjModel, camera: str | int | None) -> None:
    """Reject an unknown camera name or id before a GL context is made.

    Raises:
        UnknownNameError: ``camera`` is not a camera of the model.
    """
    if camera is None:
        return
    obj = mujoco.mjtObj.mjOBJ_CAMERA
    if isinstance(camera, str):
        known = mujoco.mj_name2id(model, obj, camera) >= 0
    else:
        known = -1 <= camera < model.ncam  # -1: MuJoCo's free camera
    if not known:
        names = [mujoco.mj_id2name(model, obj, c) or str(c) for c in range(model.ncam)]
        raise UnknownNameError(
            "camera", str(camera), names, "Pass one of these, or none for a free camera"
        )


def _free_camera(model: mujoco.MjModel) -> mujoco.MjvCamera:
    cam = mujoco.MjvCamera()
    mujoco.mjv_defaultFreeCamera(model, cam)
    cam.azimuth, cam.elevation = 135.0, -25.0
    cam.distance *= 0.9
    return cam


def save_png(image: np.ndarray, path: str | Path) -> Path:
    """Write an RGB image as PNG, beside the target first and renamed over it when complete.

    Args:
        image: ``(h, w, 3)`` uint8 image.
        path: Output ``.png``; an earlier file is replaced only by a complete new one.

    Returns:
        The written path.

    Raises:
        OutputError: The path cannot be written (checked before anything is written).
    """
    import imageio.v3 as iio

    p = check_writable(path)
    quiet_third_party()
    encoded = iio.imwrite("<bytes>", image, extension=".png")  # in memory: no half-open file
    return write_bytes(p, encoded)


def render_png(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    path: str | Path,
    width: int = 640,
    height: int = 480,
    camera: str | int | None = None,
) -> Path:
    """Render one state to a PNG file.

    Args:
        model: Compiled model.
        data: State (forwarded).
        path: Output ``.png``; an earlier file is replaced only by a complete new one.
        width: Width [px].
        height: Height [px].
        camera: Camera name/id or ``None`` for a free camera.

    Returns:
        The written path.

    Raises:
        OutputError: The path cannot be written (checked before any GL work).
        UnknownNameError: ``camera`` is not a camera of the model.
    """
    check_writable(path)
    with OffscreenRenderer(model, width, height, camera) as r:
        return save_png(r.render(data), path)


def image_strip(images: Sequence[np.ndarray]) -> np.ndarray:
    """Concatenate equally sized images side by side (a PNG strip)."""
    return np.concatenate(list(images), axis=1)
