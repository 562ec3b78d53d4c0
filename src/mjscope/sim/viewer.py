"""The native MuJoCo viewer, only when asked for and a display exists."""

from __future__ import annotations

import os
import threading
from typing import Any

import mujoco

from mjscope.exceptions import MjscopeError


def resolve_viewer(choice: str) -> str:
    """``--viewer`` as run: ``auto`` is ``native`` when ``DISPLAY`` is set, else ``none``."""
    if choice == "auto":
        return "native" if os.environ.get("DISPLAY") else "none"
    return choice


def check_display() -> None:
    """Fail early when the native viewer cannot have a window.

    Raises:
        MjscopeError: No display.
    """
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        raise MjscopeError("--viewer native needs a display (DISPLAY is unset); use --viewer none")


def open_viewer(model: mujoco.MjModel, data: mujoco.MjData, show_ui: bool = False) -> Any:
    """The MuJoCo passive viewer (side panels only with ``show_ui``); joins its thread on close.

    Raises:
        MjscopeError: No display, or the viewer cannot start.
    """
    check_display()
    import mujoco.viewer

    before = set(threading.enumerate())
    try:
        handle = mujoco.viewer.launch_passive(
            model, data, show_left_ui=show_ui, show_right_ui=show_ui
        )
    except Exception as e:  # GLFW errors vary per platform
        raise MjscopeError(f"cannot open the MuJoCo viewer: {e}; use --viewer none") from e
    return _Viewer(handle, [t for t in threading.enumerate() if t not in before])


class _Viewer:
    """The passive viewer's handle plus its UI thread, joined on close (no exit-time crash)."""

    def __init__(self, handle: Any, threads: list[threading.Thread]) -> None:
        self.handle, self._threads = handle, threads

    def is_running(self) -> bool:
        return bool(self.handle.is_running())

    def lock(self) -> Any:
        return self.handle.lock()

    def sync(self) -> None:
        self.handle.sync()

    def close(self) -> None:
        self.handle.close()
        for t in self._threads:
            t.join(timeout=5.0)
