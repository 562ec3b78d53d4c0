"""The shared progress line: drawn on a terminal only, with count, sim time and rate."""

from __future__ import annotations

import subprocess
import sys

from mjscope.progress import RunProgress, progress_wanted
from tests.utils import run_in_pty

_SCRIPT = """
from mjscope.progress import RunProgress
with RunProgress("demo rollout", total=400, unit="steps", dt=0.002) as bar:
    for i in range(0, 401, 100):
        bar.update(i, status="0 faults")
"""


def _run_in_pty(code: str) -> str:
    rc, text = run_in_pty([sys.executable, "-c", code], timeout=60)
    assert rc == 0, text
    return text


def test_progress_line_on_a_terminal_shows_count_sim_time_and_rate() -> None:
    text = _run_in_pty(_SCRIPT)
    assert "demo rollout" in text
    assert "400/400" in text
    assert "t=0.80 s" in text  # 400 steps of 2 ms
    assert "steps/s" in text
    assert "0 faults" in text


def test_progress_is_silent_in_a_pipe() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout == "" and out.stderr == ""


def test_forced_off_and_counts_kept() -> None:
    assert progress_wanted(False) is False and progress_wanted(True) is True
    with RunProgress("x", total=10, show=False) as bar:
        bar.advance(3)
        bar.advance(4)
    assert bar.done == 7 and not bar.shown
