"""The SDK source: its logic with a module double, then the real SDK against a fake PC service.

The real test runs the fake service (``python -m mjscope.teleop.xr serve``) in a child
process on the SDK's fixed 127.0.0.1:60061; it is skipped only when ``xrobotoolkit_sdk``,
``grpc`` or ``protobuf`` cannot be imported, or when that port is busy.
"""

from __future__ import annotations

import selectors
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from mjscope.exceptions import MjscopeError
from mjscope.teleop.xr import SdkXrSource, load_replay, make_xr_source, xr_pose_to_world
from tests.utils import REPO, assert_close, import_optional, skip_optional

DATA = Path(__file__).parent / "data" / "xr"
IDENT = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]


class SdkDouble:
    """The ``xrobotoolkit_sdk`` getters, returning what a test sets."""

    def __init__(self):
        self.inits = self.closes = self.reads = 0
        self.stamp = 0
        self.values = {
            "get_left_controller_pose": [0.1, 1.0, -0.3, 0.0, 0.0, 0.0, 1.0],
            "get_right_controller_pose": [-0.1, 1.0, -0.3, 0.0, 0.0, 0.0, 1.0],
            "get_headset_pose": [0.0, 1.6, 0.0, 0.0, 0.0, 0.0, 1.0],
            "get_left_grip": 1.0,
            "get_right_grip": 0.2,
            "get_left_trigger": 0.3,
            "get_right_trigger": 0.0,
            "get_left_axis": [0.5, -0.5],
            "get_right_axis": [0.0, 1.0],
            "get_left_axis_click": False,
            "get_right_axis_click": True,
            "get_left_menu_button": True,
            "get_right_menu_button": False,
            "get_X_button": True,
            "get_Y_button": False,
            "get_A_button": False,
            "get_B_button": True,
        }

    def init(self):
        self.inits += 1

    def close(self):
        self.closes += 1

    def get_time_stamp_ns(self):
        return self.stamp

    def __getattr__(self, name):
        if name.startswith("get_") and name in self.values:
            self.reads += 1
            return lambda: self.values[name]
        raise AttributeError(name)


def test_zero_stamp_is_no_data_and_reads_nothing():
    sdk = SdkDouble()
    src = SdkXrSource(sdk=sdk)
    assert sdk.inits == 1
    assert src.poll(0.0) is None and sdk.reads == 0


def test_the_state_an_earlier_connection_left_is_no_frame():
    # the SDK keeps its last state across close()/init() in one process (CI saw the previous
    # test's last frame come first): only a stamp that changes after opening is live
    sdk = SdkDouble()
    sdk.stamp = 10**9
    src = SdkXrSource(sdk=sdk)
    assert src.poll(0.0) is None and sdk.reads == 0
    sdk.stamp = 1
    assert src.poll(0.0).stamp_ns == 1


def test_new_stamp_gives_a_frame_with_the_button_mapping():
    sdk = SdkDouble()
    src = SdkXrSource(sdk=sdk)
    sdk.stamp = 1000
    f = src.poll(0.0)
    assert f.stamp_ns == 1000 and src.stamp_ns == 1000 and src.received == 1
    assert_close(f.left.pose, [0.3, -0.1, 1.0, 1.0, 0.0, 0.0, 0.0], atol=1e-12, what="left")
    assert_close(f.right.pose[:3], [0.3, 0.1, 1.0], atol=1e-12, what="right")
    assert_close(f.head[:3], [0.0, 0.0, 1.6], atol=1e-12, what="head")
    assert f.left.primary and not f.left.secondary  # X, Y
    assert not f.right.primary and f.right.secondary  # A, B
    assert (f.left.grip, f.left.trigger, f.left.axis, f.left.menu) == (1.0, 0.3, (0.5, -0.5), True)
    assert (f.right.grip, f.right.axis, f.right.axis_click) == (0.2, (0.0, 1.0), True)


def test_a_stamp_that_does_not_advance_is_no_new_frame():
    sdk = SdkDouble()
    src = SdkXrSource(sdk=sdk)
    sdk.stamp = 5
    assert src.poll(0.0) is not None
    assert src.poll(0.1) is None
    sdk.stamp = 6
    assert src.poll(0.2).stamp_ns == 6


def test_untracked_controller_is_none():
    sdk = SdkDouble()
    sdk.values["get_right_controller_pose"] = [0.0] * 7
    sdk.values["get_headset_pose"] = [0.0] * 7
    src = SdkXrSource(sdk=sdk)
    sdk.stamp = 1
    f = src.poll(0.0)
    assert f.left is not None and f.right is None and f.head is None


@pytest.mark.parametrize(
    ("getter", "value", "reason"),
    [
        ("get_left_grip", 5.0, "bad_value"),
        ("get_left_trigger", float("nan"), "bad_value"),
        ("get_right_axis", [0.0], "bad_value"),
        ("get_left_controller_pose", [1.0, 2.0], "bad_pose"),
        ("get_left_controller_pose", None, "bad_value"),
        ("get_headset_pose", [0, 0, 0, 0, 0, 0, float("inf")], "bad_pose"),
    ],
)
def test_malformed_getter_values_are_counted(getter, value, reason):
    sdk = SdkDouble()
    good = sdk.values[getter]
    sdk.values[getter] = value
    src = SdkXrSource(sdk=sdk)
    sdk.stamp = 1
    assert src.poll(0.0) is None
    assert dict(src.rejects) == {reason: 1}
    sdk.values[getter], sdk.stamp = good, 2
    assert src.poll(0.1).stamp_ns == 2


def test_close_once_and_then_no_frames():
    sdk = SdkDouble()
    with SdkXrSource(sdk=sdk) as src:
        sdk.stamp = 1
    src.close()
    assert sdk.closes == 1
    assert src.poll(0.0) is None


def test_init_failure_is_an_mjscope_error():
    sdk = SdkDouble()
    sdk.init = lambda: (_ for _ in ()).throw(RuntimeError("boom"))
    with pytest.raises(MjscopeError, match="init\\(\\) failed: boom"):
        SdkXrSource(sdk=sdk)


def test_missing_sdk_gives_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "xrobotoolkit_sdk", None)
    with pytest.raises(MjscopeError, match=r"pip install 'mjscope\[xr\]'"):
        make_xr_source("sdk")


# --- the real SDK against the fake PC service ---------------------------------------------


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _wait_ready(proc: subprocess.Popen, timeout_s: float) -> str:
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if sel.select(timeout=0.2):
            line = proc.stdout.readline()
            if line.startswith("ready") or not line:
                return line
    return ""


def require_sdk() -> None:
    """Skip unless the real SDK imports (a wheel for a newer glibc fails with ImportError)."""
    try:
        import xrobotoolkit_sdk  # noqa: F401
    except ImportError as e:
        skip_optional(f"xrobotoolkit_sdk not importable ({e}); pip install 'mjscope[xr]'")


@pytest.fixture
def fake_service():
    require_sdk()
    import_optional("grpc", "grpcio not installed (dev extra)")
    import_optional("google.protobuf", "protobuf not installed (dev extra)")
    if not _port_free(60061):
        skip_optional("127.0.0.1:60061 (the SDK's fixed PC-service port) is busy")
    cmd = [sys.executable, "-m", "mjscope.teleop.xr", "serve"]
    cmd += ["--replay", str(DATA / "sdk_session.yaml"), "--duration", "30"]
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = _wait_ready(proc, 30.0)
        if not line.startswith("ready"):
            proc.kill()
            _, err = proc.communicate(timeout=5)
            pytest.fail(f"fake PC service did not start: {line!r} {err[-2000:]}")
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


def _collect(src: SdkXrSource, n: int, timeout_s: float) -> list:
    frames, polls = [], 0
    deadline = time.monotonic() + timeout_s
    while len(frames) < n and time.monotonic() < deadline:
        f = src.poll(time.monotonic())
        polls += 1
        if f is not None:
            frames.append(f)
        time.sleep(0.005)
    return frames, polls


def test_real_sdk_reads_the_fake_pc_service(fake_service):
    rows = load_replay(DATA / "sdk_session.yaml")
    src = SdkXrSource()
    try:
        frames, polls = _collect(src, len(rows), 20.0)
    finally:
        src.close()
    assert [f.stamp_ns for f in frames] == [max(1, round(r.t * 1e9)) for r in rows]
    assert polls > len(frames)  # repeated stamps gave None
    assert not src.rejects
    for f, row in zip(frames, rows, strict=True):
        for side in ("left", "right"):
            got, want = f.side(side), row.frame.side(side)
            assert_close(got.pose, want.pose, atol=1e-6, what=f"{side} pose")
            assert got.grip == pytest.approx(want.grip, abs=1e-6)
            assert got.trigger == pytest.approx(want.trigger, abs=1e-6)
            assert np.allclose(got.axis, want.axis, atol=1e-6)
            assert (got.primary, got.secondary, got.menu, got.axis_click) == (
                want.primary,
                want.secondary,
                want.menu,
                want.axis_click,
            )
        assert_close(f.head, row.frame.head, atol=1e-6, what="head")
    assert frames[1].left.primary and frames[1].right.secondary  # X and B
    assert frames[2].right.primary and frames[2].left.secondary  # A and Y
    assert_close(frames[0].left.pose, xr_pose_to_world([0.1, 1.0, -0.3, *IDENT[3:]]), atol=1e-6)


def test_what_the_sdk_prints_natively_goes_to_the_debug_log(capfd, caplog) -> None:
    import logging
    import os

    sdk = SdkDouble()

    def chatty_init() -> None:  # the real SDK prints from C++ straight to fd 1 and 2
        os.write(1, b"PXREARobotSDK: connecting to 127.0.0.1:60061\n")
        os.write(2, b"grpc: channel idle\n")

    sdk.init = chatty_init
    with caplog.at_level(logging.DEBUG, logger="mjscope.teleop.xr.sdk"):
        src = SdkXrSource(sdk=sdk)
        print("ours")
        src.close()
    out, err = capfd.readouterr()
    assert out == "ours\n" and err == ""
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert "XRoboToolkit SDK: PXREARobotSDK: connecting to 127.0.0.1:60061" in logged
    assert "XRoboToolkit SDK: grpc: channel idle" in logged
