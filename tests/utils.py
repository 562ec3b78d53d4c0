"""Shared test helpers: assertions that print both values, paths to shared assets."""

from __future__ import annotations

import importlib
import os
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
ASSETS = SHARED / "assets"


def assert_close(
    actual: npt.ArrayLike,
    expected: npt.ArrayLike,
    atol: float = 1e-9,
    rtol: float = 0.0,
    what: str = "",
) -> None:
    """Assert two arrays agree, printing both and the worst deviation on failure."""
    a = np.asarray(actual, dtype=float)
    e = np.asarray(expected, dtype=float)
    assert a.shape == e.shape, f"{what} shape {a.shape} != {e.shape}"
    err = np.abs(a - e)
    tol = atol + rtol * np.abs(e)
    if not np.all(err <= tol):
        i = int(np.argmax(err - tol))
        raise AssertionError(
            f"{what} differs (worst at flat index {i}: {a.flat[i]!r} vs {e.flat[i]!r}, "
            f"|diff|={err.flat[i]:.3e} > tol {tol.flat[i]:.3e})\nactual:   {a}\nexpected: {e}"
        )


def asset(*parts: str) -> Path:
    """Path into ``../shared/assets``.

    Skips the test cleanly when ``../shared`` is absent on a developer's machine; fails under CI
    (``CI`` set), where a missing asset means the checkout is incomplete, not that the test may
    be passed over.
    """
    p = ASSETS.joinpath(*parts)
    if not p.exists():
        msg = f"shared asset {p} not available (../shared is absent on this machine)"
        if os.environ.get("CI"):
            pytest.fail(f"{msg}; CI must run beside ../shared")
        pytest.skip(msg)
    return p


def skip_optional(reason: str) -> None:
    """Skip for a missing optional resource; under CI (``CI`` set) fail instead.

    CI installs the dev extra (the vendor and XR SDKs, grpcio, protobuf) and owns its ports, so
    a missing one there is a broken set-up, never a test to pass over.
    """
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must provide it)")
    pytest.skip(reason, allow_module_level=True)


def import_optional(name: str, reason: str) -> Any:
    """``pytest.importorskip`` that fails under CI (see :func:`skip_optional`)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        skip_optional(reason)


def chromium_screenshot(page: Path, png: Path, size: tuple[int, int] = (1200, 900)) -> Any:
    """Open ``page`` in headless Chromium and return its screenshot as an ``(h, w, 3)`` array.

    Skips when Chromium is not installed (fails under CI, whose ``.ci/run`` installs it).
    """
    import shutil
    import subprocess

    import imageio.v3 as iio

    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        skip_optional("Chromium is not installed (apt-get install chromium)")
    assert exe is not None
    profile = png.parent / "chromium-profile"
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
           f"--screenshot={png}", page.resolve().as_uri()]  # fmt: skip
    subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    assert png.is_file(), f"Chromium wrote no screenshot of {page}"
    return iio.imread(png)[..., :3]


def run_in_pty(argv: list[str], timeout: float = 240.0) -> tuple[int, str]:
    """Run ``argv`` with stdout and stderr on a pseudo-terminal; its exit code and output."""
    import os
    import pty
    import subprocess

    main, child = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "160"}
    proc = subprocess.Popen(argv, stdin=child, stdout=child, stderr=child, env=env)
    os.close(child)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed its side
            break
        if not chunk:
            break
        out += chunk
    code = proc.wait(timeout=timeout)
    os.close(main)
    return code, out.decode(errors="replace")


def finish(p: Any, timeout: float = 10.0) -> tuple[str, str]:
    """``Popen.communicate`` that keeps what an earlier ``p.stdout.readline()`` buffered.

    ``communicate`` reads the raw pipe, so lines a ``readline`` had already pulled into the text
    buffer would be lost; reading the file objects themselves keeps them.
    """
    import threading

    err: list[str] = []
    reader = threading.Thread(target=lambda: err.append(p.stderr.read() if p.stderr else ""))
    reader.start()
    out = p.stdout.read() if p.stdout else ""
    p.wait(timeout)
    reader.join(timeout)
    return out, err[0] if err else ""


def bundled_scenes() -> list[str]:
    """The names of the bundled dock scenes (``mjscope/data/scenes/*.yaml``), sorted."""
    names = (p.name for p in resources.files("mjscope.data.scenes").iterdir())
    return sorted(n.removesuffix(".yaml") for n in names if n.endswith(".yaml"))


def bits(a: np.ndarray) -> bytes:
    """An array's bytes in C order: equal bits, not just equal values (NaN, the sign of 0)."""
    return np.ascontiguousarray(a).tobytes()


def assert_same_run(a: Any, b: Any) -> None:
    """Two dock runs agree bit for bit: every telemetry array, the end, the counters."""
    A, B = a.log.arrays(), b.log.arrays()
    assert sorted(A) == sorted(B)
    for k in A:
        assert A[k].shape == B[k].shape, k
        assert bits(A[k]) == bits(B[k]), f"{k}: max |Δ| {np.max(np.abs(A[k] - B[k]))}"
    assert (a.status, a.message, a.steps) == (b.status, b.message, b.steps)
    assert a.controller_stats == b.controller_stats
