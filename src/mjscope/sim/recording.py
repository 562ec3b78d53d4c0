"""Recording a live loop off its thread: state copies at frame times, rendered at GL's pace.

A control or mirror loop calls :meth:`LiveRecorder.offer` every tick. At each frame time it
copies the state (``qpos``, mocap poses) into a one-slot mailbox, and goes on. A render thread
takes the newest copy, forwards it on its own ``MjData``, renders it and hands the frame to a
:class:`~mjscope.sim.video.VideoRecorder` with the copy's time stamp. When rendering is slower
than the frame rate, copies that were never rendered are replaced by newer ones and their slots
repeat the frame before: the loop keeps its rate, the video keeps real time. Only the first
copy is never replaced: the video starts at the first offered state.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import NamedTuple

import mujoco
import numpy as np

from mjscope.exceptions import MjscopeError
from mjscope.sim.render import OffscreenRenderer, _check_camera, caption_text
from mjscope.sim.video import VideoRecorder

logger = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0  # GL context creation (software rendering is slow to start) [s]


class LiveRecorder:
    """Records a running model into a video file on a render thread of its own.

    Args:
        model: The compiled model (read-only while recording).
        path: Output ``.mp4``/``.gif``.
        fps: Frames per second of the stamps' clock.
        width: Frame width [px].
        height: Frame height [px].
        camera: Camera name or id; ``None`` for a camera fitted to the subject.
        label: Caption of every frame, with its time stamp (default: the model's name);
            ``""`` draws none.

    Raises:
        OutputError: Bad suffix or unwritable path.
        UnknownNameError: Unknown camera.
        MjscopeError: No offscreen GL backend works. All raised here, before the loop starts.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        path: str | Path,
        fps: float,
        width: int = 640,
        height: int = 480,
        camera: str | int | None = None,
        label: str | None = None,
    ) -> None:
        _check_camera(model, camera)
        self._label = label
        self.video = VideoRecorder(path, fps)
        self.model = model
        self._size, self._camera = (width, height), camera
        self._mailbox: list[_Copy] = []  # the newest copy (and the first, until it is taken)
        self._first = True  # no copy taken yet
        self._next = -np.inf  # next frame time [s]
        self._cond = threading.Condition()
        self._stop = False
        self._error: BaseException | None = None
        self._ready = threading.Event()
        self.rendered = 0  # frames rendered (the rest of the video repeats them)
        self._thread = threading.Thread(target=self._run, name="mjscope-render", daemon=True)
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT_S):  # the thread is stuck in GL: leave it
            self.video.close(keep=False)
            raise MjscopeError(
                f"the offscreen renderer did not start within {START_TIMEOUT_S:.0f} s; "
                "check MUJOCO_GL (egl or osmesa)"
            )
        if self._error is not None:  # no GL context: the thread has ended
            self.video.close(keep=False)
            raise self._error

    @property
    def fps(self) -> float:
        """Frame rate of the file [frames/s]."""
        return self.video.fps

    def offer(self, data: mujoco.MjData, t: float) -> bool:
        """Copy the state for the render thread if a frame time has come (cheap otherwise).

        Args:
            data: The loop's state (only read).
            t: Its time [s]; non-decreasing across calls.

        Returns:
            Whether a copy was taken.
        """
        if t < self._next:
            return False
        self._next = (self.video.slot(t) + 1) / self.fps
        copy = _Copy(t, data.qpos.copy(), data.mocap_pos.copy(), data.mocap_quat.copy())
        with self._cond:
            if self._first and self._mailbox:  # the first copy stays: it starts the video
                self._mailbox[1:] = [copy]
            else:
                self._mailbox = [copy]
            self._cond.notify()
        return True

    def close(self, keep: bool = True, end: float | None = None) -> None:
        """Render the last copy, stop the thread and finish the file.

        Args:
            keep: Keep the file (``False``: a failed run; an earlier file stays, and a render
                thread's error is only logged, so the run's own error is the one raised).
            end: End of the run [s] on the stamps' clock (see :meth:`VideoRecorder.close`).

        Raises:
            OutputError: The file could not be written (also a render thread's write error).
            MjscopeError: The renderer failed during the run.
        """
        with self._cond:
            self._stop = True
            self._cond.notify()
        self._thread.join()
        error = self._error
        if error is not None and not keep:
            logger.warning("recording %s failed too: %s", self.video.path, error)
        self.video.close(keep=keep and error is None, end=end)
        if error is not None and keep:
            raise error

    def _run(self) -> None:
        """The render thread: make the GL context here, render mailbox copies until stopped."""
        try:
            renderer = OffscreenRenderer(self.model, *self._size, camera=self._camera)
        except BaseException as e:  # raised by __init__ on the caller's thread
            self._error = e
            self._ready.set()
            return
        self._ready.set()
        data = mujoco.MjData(self.model)
        try:
            while (t := self._take(data)) is not None:
                mujoco.mj_forward(self.model, data)
                caption = caption_text(self.model, t, self._label) if self._label != "" else None
                self.video.add(renderer.render(data, caption), t)
                self.rendered += 1
        except MjscopeError as e:  # the loop goes on; close() raises it
            self._error = e
        except Exception as e:  # GL lost, ...: one line for the user, not a traceback
            self._error = MjscopeError(f"rendering the recording {self.video.path} failed: {e}")
            self._error.__cause__ = e
        finally:
            renderer.close()
        if self._error is not None:
            logger.debug("render thread stopped: %s", self._error)

    def _take(self, data: mujoco.MjData) -> float | None:
        """Wait for a copy and move it into ``data``; ``None`` once stopped and empty."""
        with self._cond:
            while not self._mailbox and not self._stop:
                self._cond.wait()
            if not self._mailbox:
                return None
            copy, self._first = self._mailbox.pop(0), False
        data.qpos[:] = copy.qpos
        data.mocap_pos[:] = copy.mocap_pos
        data.mocap_quat[:] = copy.mocap_quat
        return copy.t


class _Copy(NamedTuple):
    """One offered state."""

    t: float  # time stamp [s]
    qpos: np.ndarray  # (nq,)
    mocap_pos: np.ndarray  # (nmocap, 3)
    mocap_quat: np.ndarray  # (nmocap, 4)
