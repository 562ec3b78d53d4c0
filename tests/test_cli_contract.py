"""The contract every command keeps: exit codes, ``--json PATH|-`` and ``--quiet``.

Written once in :mod:`mjscope.cli` and :func:`mjscope.signals.exit_code`; tested here per
command. Signal tests wait until the command says it runs (never on a guessed delay).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mjscope.cli import build_parser, main

EXE = shutil.which("mjscope")


def _subcommands() -> dict[str, object]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return dict(sub.choices)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(_subcommands()))
def test_every_command_takes_json_and_quiet(name: str) -> None:
    p = _subcommands()[name]
    opts = p._option_string_actions  # type: ignore[attr-defined]
    assert "--json" in opts and "--quiet" in opts, name


@pytest.mark.parametrize(
    "argv",
    [
        ["models"],
        ["hand", "--track-test"],
        ["hand", "--command", "fist"],
        ["mirror", "--demo", "--duration", "1", "--viewer", "none"],
        ["mock-arm", "--transport", "inproc", "--duration", "0.3"],
        ["demo", "--only", "hand"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_json_dash_puts_the_summary_alone_on_stdout(argv: list[str], tmp_path: Path) -> None:
    if argv[0] == "demo":
        argv = [*argv, "--out", str(tmp_path / "out")]
    out = _run([*argv, "--json", "-"])
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)  # nothing else on stdout
    assert summary
    quiet = _run([*argv, "--quiet"])
    assert quiet.returncode == 0 and quiet.stdout == "", quiet.stdout


def test_json_to_a_folder_is_a_one_line_error_before_any_work(tmp_path: Path, capsys) -> None:
    assert main(["hand", "--track-test", "--json", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a folder" in err[0]


def test_json_file_gets_the_summary(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    assert main(["hand", "--track-test", "--json", str(path)]) == 0
    data = json.loads(path.read_text())
    assert data["track_test"]["passed"] is True


@pytest.mark.parametrize(
    ("argv", "ready", "endless_code", "timed_code"),
    [
        (["hand", "--transport", "inproc"], "listening on", 0, 130),
        (["mock-arm", "--transport", "inproc"], "mock left:", 0, 130),
        (["mirror", "--demo", "--viewer", "none"], "mirroring", 0, 130),
    ],
    ids=lambda v: v[0] if isinstance(v, list) else None,
)
def test_ctrl_c_ends_an_endless_run_with_0_and_cuts_a_timed_one_with_130(
    argv: list[str], ready: str, endless_code: int, timed_code: int, tmp_path: Path
) -> None:
    for extra, want in (([], endless_code), (["--duration", "120"], timed_code)):
        report = tmp_path / f"{argv[0]}{len(extra)}.json"
        code, err = _interrupt([*argv, *extra, "--json", str(report)], ready)
        assert code == want, (extra, code, err)
        assert "Traceback" not in err
        assert json.loads(report.read_text())  # the report is written either way


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    assert EXE is not None
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(
        [EXE, *argv], capture_output=True, text=True, timeout=240, env=env, check=False
    )


def _interrupt(argv: list[str], ready: str) -> tuple[int, str]:
    """Start ``mjscope argv``, wait until stdout shows ``ready``, send SIGINT, return code."""
    assert EXE is not None
    proc = subprocess.Popen(
        [EXE, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if ready in line:
            break
    else:
        proc.kill()
        pytest.fail(f"{argv}: never printed {ready!r}: {''.join(seen)}{proc.stderr}")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


def test_exit_rule() -> None:
    from mjscope.signals import INTERRUPTS, exit_code

    INTERRUPTS.reset()
    assert exit_code(False, endless=False) == 0 and exit_code(True, endless=True) == 1
    INTERRUPTS.note()
    assert exit_code(False, endless=False) == 130 and exit_code(True, endless=False) == 130
    assert exit_code(False, endless=True) == 0 and exit_code(True, endless=True) == 1
    INTERRUPTS.reset()
    assert sys.modules["mjscope.signals"].INTERRUPTS.seen is False
