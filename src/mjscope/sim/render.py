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
from mjscope.sim.framing import draw_caption, fit_camera, model_label
from mjscope.sim.video import VideoRecorder, write_video

__all__ = [
    "OffscreenRenderer",
    "VideoRecorder",
    "caption_text",
    "image_strip",
    "render_png",
    "save_png",
    "write_video",
]


class OffscreenRenderer:
    """Offscreen RGB renderer for one model, usable as a context manager.

    Args:
        model: The compiled model.
        width: Frame width [px], at most the model's offscreen buffer width.
        height: Frame height [px], at most the model's offscreen buffer height.
        camera: Camera name or id; ``None``: a free camera fitted to the subject (the robot and
            the task's objects) at the first frame rendered, fixed afterwards.

    Raises:
        UnknownNameError: ``camera`` is not a camera of the model.
        MjscopeError: No offscreen GL backend works, or the size exceeds the model's buffer.
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
        buf = (int(model.vis.global_.offwidth), int(model.vis.global_.offheight))
        if width > buf[0] or height > buf[1]:
            raise MjscopeError(
                f"frame size {width}x{height} exceeds the model's offscreen buffer "
                f"{buf[0]}x{buf[1]}; pass a smaller --size or raise <visual><global "
                "offwidth/offheight> in the model"
            )
        try:
            self._renderer = mujoco.Renderer(model, height=height, width=width)
        except Exception as e:  # backend errors differ per platform
            raise MjscopeError(
                f"offscreen rendering failed with MUJOCO_GL={os.environ.get('MUJOCO_GL', '')!r}: "
                f"{e}; install libegl-mesa0 (egl) or libosmesa6 (osmesa) and set MUJOCO_GL"
            ) from e
        self.model = model
        self.width, self.height = width, height
        self.camera: str | int | mujoco.MjvCamera | None = camera

    def render(self, data: mujoco.MjData, caption: str | None = None) -> np.ndarray:
        """Render the current state.

        Args:
            data: State to draw (``mj_forward`` must have been called after writing ``qpos``).
            caption: A line drawn in the bottom-left corner (model, sim time), or ``None``.

        Returns:
            ``(height, width, 3)`` uint8 image.
        """
        if self.camera is None:
            self.camera = fit_camera(self.model, data, self.width, self.height)
        self._renderer.update_scene(data, camera=self.camera)
        image = self._renderer.render().copy()
        return image if caption is None else draw_caption(image, caption)

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
    caption: str | None = None,
) -> Path:
    """Render one state to a PNG file.

    Args:
        model: Compiled model.
        data: State (forwarded).
        path: Output ``.png``; an earlier file is replaced only by a complete new one.
        width: Width [px].
        height: Height [px].
        camera: Camera name/id or ``None`` for a camera fitted to the subject.
        caption: Bottom-left caption (see :func:`caption_text`), or ``None``.

    Returns:
        The written path.

    Raises:
        OutputError: The path cannot be written (checked before any GL work).
        UnknownNameError: ``camera`` is not a camera of the model.
    """
    check_writable(path)
    with OffscreenRenderer(model, width, height, camera) as r:
        return save_png(r.render(data, caption), path)


def caption_text(
    model: mujoco.MjModel, sim_time: float | None = None, label: str | None = None
) -> str:
    """The caption of a frame: the model (or ``label``) and the sim time [s]."""
    name = label or model_label(model)
    return name if sim_time is None else f"{name} · t = {sim_time:.2f} s"


def image_strip(images: Sequence[np.ndarray]) -> np.ndarray:
    """Concatenate equally sized images side by side (a PNG strip)."""
    return np.concatenate(list(images), axis=1)
