"""Every long run shows its progress line on a terminal, and nothing extra in a pipe."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.utils import run_in_pty

EXE = shutil.which("mjscope") or "mjscope"


def _csvs(tmp_path: Path) -> tuple[str, str]:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for path, ctrl in ((a, "hold"), (b, "zero")):
        cmd = [EXE, "diagnose", "quadruped", "--steps", "200", "--ctrl", ctrl, "--csv", str(path)]
        subprocess.run(cmd, capture_output=True, check=True, timeout=120)
    return str(a), str(b)


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["hand", "--transport", "inproc", "--duration", "2.5"], "hand bridge"),
        (["teleop", "--demo", "--duration", "2"], "teleop demo"),
        # a rollout shows its line after 2 s (diagnose.loop.PROGRESS_AFTER_S): 1500 s of the
        # quadruped take ≈ 7 s with the compiled step loop on an idle core (300 s: ≈ 1.2 s)
        (["diagnose", "quadruped", "--duration", "1500"], "diagnose"),
        (["diagnose", "compare", "A", "B"], "diagnose compare"),
    ],
    ids=lambda v: " ".join(v[:2]) if isinstance(v, list) else None,
)
def test_progress_line_on_a_terminal_and_none_in_a_pipe(
    argv: list[str], line: str, tmp_path: Path
) -> None:
    if argv[:2] == ["diagnose", "compare"]:
        argv = [*argv[:2], *_csvs(tmp_path)]
    if argv[0] == "teleop":
        argv = [*argv, "--out", str(tmp_path / "t")]
    code, text = run_in_pty([EXE, *argv])
    assert code in (0, 1), text  # compare of two different runs exits 1
    assert line in text and ("ETA" in text or "/s" in text), text[-2000:]
    piped = subprocess.run([EXE, *argv], capture_output=True, text=True, timeout=240)
    assert "ETA" not in piped.stdout + piped.stderr
