"""XR frames from the XRoboToolkit PC-service SDK (``xrobotoolkit_sdk``, extra ``mjscope[xr]``).

``init()`` connects over gRPC to the PC service on the fixed address 127.0.0.1:60061. Without a
service every getter returns zeros and the time stamp stays 0: a zero stamp means "no XR data"
and :meth:`SdkXrSource.poll` returns ``None``; a stamp that does not advance is no new frame.
Buttons: X/Y are the left primary/secondary, A/B the right ones. The SDK prints connection
lines from C++ straight to the process's stdout; :func:`captured_stdio` takes what it prints
during ``init()`` and ``close()`` off file descriptors 1 and 2 and logs it at debug level, so
it never mixes into mjscope's output.
"""

from __future__ import annotations

import ctypes
import importlib
import logging
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from mjscope.exceptions import MjscopeError
from mjscope.teleop.xr.base import ControllerState, XrFrame, XrSource
from mjscope.teleop.xr.fields import XrMessageError, controller, pose_xr

log = logging.getLogger(__name__)

INSTALL_HINT = (
    "pip install 'mjscope[xr]' (xrobotoolkit-sdk 1.1.0: Linux x86-64, glibc >= 2.34), "
    "or use the udp or replay XR source"
)
#: (side, primary getter, secondary getter)
_BUTTONS = (("left", "get_X_button", "get_Y_button"), ("right", "get_A_button", "get_B_button"))


@contextmanager
def captured_stdio(what: str) -> Iterator[None]:
    """Route what native code writes to fds 1 and 2 into the debug log while inside.

    Args:
        what: Names the source in the log lines.
    """
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    with tempfile.TemporaryFile() as tmp:
        saved = (os.dup(1), os.dup(2))
        try:
            os.dup2(tmp.fileno(), 1)
            os.dup2(tmp.fileno(), 2)
            yield
        finally:
            _flush_c_stdio()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            tmp.seek(0)
            for line in tmp.read(65536).decode("utf-8", "replace").splitlines():
                if line.strip():
                    log.debug("%s: %s", what, line.rstrip())


def _flush_c_stdio() -> None:
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):  # no C library handle (not on this platform)
        pass


def import_sdk() -> ModuleType:
    """The ``xrobotoolkit_sdk`` module.

    Raises:
        MjscopeError: It is not installed or cannot load, with the install hint.
    """
    try:
        return importlib.import_module("xrobotoolkit_sdk")
    except (ImportError, OSError) as e:
        raise MjscopeError(
            f"the XR source 'sdk' needs xrobotoolkit_sdk ({e}): {INSTALL_HINT}"
        ) from e


def _read_side(sdk: Any, side: str, primary: str, secondary: str) -> ControllerState | None:
    pose = pose_xr(list(getattr(sdk, f"get_{side}_controller_pose")()), f"{side}.pose")
    if pose is None:
        return None
    values = {
        "grip": getattr(sdk, f"get_{side}_grip")(),
        "trigger": getattr(sdk, f"get_{side}_trigger")(),
        "axis": tuple(getattr(sdk, f"get_{side}_axis")()),
        "axis_click": getattr(sdk, f"get_{side}_axis_click")(),
        "menu": getattr(sdk, f"get_{side}_menu_button")(),
        "primary": getattr(sdk, primary)(),
        "secondary": getattr(sdk, secondary)(),
    }
    return controller(pose, values, side)


def read_frame(sdk: Any, stamp_ns: int) -> XrFrame:
    """Read both controllers and the headset through the SDK getters.

    Args:
        sdk: The ``xrobotoolkit_sdk`` module (or a double with the same getters).
        stamp_ns: The SDK time stamp [ns] read just before.

    Raises:
        XrMessageError: A getter returned a malformed value.
    """
    sides = {s: _read_side(sdk, s, p, q) for s, p, q in _BUTTONS}
    head = pose_xr(list(sdk.get_headset_pose()), "head.pose")
    return XrFrame(stamp_ns=stamp_ns, left=sides["left"], right=sides["right"], head=head)


class SdkXrSource(XrSource):
    """XR frames through the XRoboToolkit PC-service SDK.

    Args:
        sdk: The SDK module to use; default: import ``xrobotoolkit_sdk`` (tests pass a double).

    Attributes:
        stamp_ns: The last time stamp seen [ns] (0: no XR data yet). It starts at the stamp
            the SDK holds when the source opens: the SDK keeps the last state of an earlier
            connection in this process, which is not a live frame.

    Raises:
        MjscopeError: The SDK is missing or ``init()`` failed.
    """

    def __init__(self, sdk: ModuleType | Any | None = None) -> None:
        super().__init__()
        self._sdk: Any = import_sdk() if sdk is None else sdk
        try:
            with captured_stdio("XRoboToolkit SDK"):
                self._sdk.init()
        except Exception as e:  # a pybind RuntimeError: hide the backend's type
            raise MjscopeError(f"XRoboToolkit SDK init() failed: {e}; is the PC service up?") from e
        self._open = True
        self.stamp_ns = 0
        try:  # whatever the SDK held before this connection is not new data
            self.stamp_ns = max(0, int(self._sdk.get_time_stamp_ns()))
        except (TypeError, ValueError, AttributeError):
            self.stamp_ns = 0

    def poll(self, now: float) -> XrFrame | None:
        """The frame behind a new SDK time stamp, or ``None`` (no data, or no new data).

        Args:
            now: The caller's clock [s] (unused: the SDK stamps its frames).
        """
        if not self._open:
            return None
        stamp = int(self._sdk.get_time_stamp_ns())
        if stamp <= 0 or stamp == self.stamp_ns:
            return None
        self.stamp_ns = stamp
        try:
            frame = read_frame(self._sdk, stamp)
        except XrMessageError as e:
            self.rejects[e.reason] += 1
            return None
        except (TypeError, ValueError) as e:  # a getter returned something unexpected
            self.rejects["bad_value"] += 1
            log.debug("XR SDK value: %s", e)
            return None
        self.received += 1
        return frame

    def close(self) -> None:
        """``close()`` the SDK (once)."""
        if self._open:
            self._open = False
            with captured_stdio("XRoboToolkit SDK"):
                self._sdk.close()
