"""Outputs are never replaced by partial or failed ones: interrupts, signals, failing writers.

The naming rule (:mod:`mjscope.diagnose.outputs`): ``x.csv`` is written as ``x.partial.csv``
and renamed when complete; an interrupted or failed rollout leaves ``x.partial.csv`` (whole
rows) and the earlier ``x.csv`` untouched.
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import mujoco
import numpy as np
import pytest
from rich.console import Console

from mjscope.cli import main
from mjscope.diagnose import (
    DiagnoseCmdCfg,
    Probe,
    RolloutCfg,
    native_loop,
    run_diagnose,
    run_rollout,
)
from mjscope.diagnose.compare import read_csv
from mjscope.diagnose.outputs import Interrupted, partial_path, save_figure, sigterm_as_interrupt
from mjscope.diagnose.report import write_json
from mjscope.diagnose.rollout import probes_for
from mjscope.exceptions import OutputError
from mjscope.models import load

EARLIER = "time [s]\n0.5\n"  # an earlier, complete output that must survive


class StopAt(Probe):
    """Raises ``KeyboardInterrupt`` at step ``k`` (before that step's row is complete)."""

    def __init__(self, k: int) -> None:
        self.k = k

    def read(self, i: int) -> None:
        self.k -= 1
        if self.k < 0:
            raise KeyboardInterrupt


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def test_partial_names_keep_the_suffix():
    assert partial_path("out/run.csv") == Path("out/run.partial.csv")
    assert partial_path("r.json") == Path("r.partial.json")
    assert partial_path("noext") == Path("noext.partial")


@pytest.fixture
def forked_writer(monkeypatch):
    """Long CSVs get the forked writer whatever the machine's load (and in subprocesses)."""
    monkeypatch.setenv("MJSCOPE_CSV_WRITER", "fork")


@pytest.mark.parametrize("block_rows", [64, 4096])  # forked writer / in-process writer
def test_interrupted_rollout_keeps_earlier_csv_and_whole_partial(
    tmp_path, block_rows, forked_writer
):
    csv = tmp_path / "x.csv"
    csv.write_text(EARLIER)
    cfg = RolloutCfg(steps=1000, csv=csv, block_rows=block_rows)
    with pytest.raises(Interrupted) as info:
        model = load("fourbar")
        run_rollout(model, cfg, [*probes_for(cfg, model), StopAt(300)])
    part = partial_path(csv)
    assert info.value.kept == ((part, csv),)
    assert csv.read_text() == EARLIER
    # Exactly the 300 whole rows recorded before the interrupt, identical to a full run's.
    full = tmp_path / "full.csv"
    run_rollout(load("fourbar"), RolloutCfg(steps=1000, csv=full, block_rows=block_rows))
    assert _lines(part) == _lines(full)[:301]
    # A complete run replaces the earlier CSV and leaves no partial behind.
    run_rollout(load("fourbar"), cfg)
    assert csv.read_bytes() == full.read_bytes() and not part.exists()


def test_failed_writer_keeps_earlier_csv_and_says_where_the_rows_are(
    tmp_path, monkeypatch, forked_writer
):
    from mjscope.diagnose.recording import csvsink

    calls = {"n": 0}
    real = csvsink.format_rows

    def fail_on_third(fmt: str, rows: np.ndarray) -> str:
        calls["n"] += 1
        if calls["n"] == 3:  # in the forked writer (inherited patch): disk full, say
            raise OSError(28, "No space left on device")
        return real(fmt, rows)

    monkeypatch.setattr(csvsink, "format_rows", fail_on_third)
    csv = tmp_path / "x.csv"
    csv.write_text(EARLIER)
    with pytest.raises(OutputError, match=r"No space left.*x\.partial\.csv.*x\.csv is unchanged"):
        run_rollout(load("fourbar"), RolloutCfg(steps=1000, csv=csv, block_rows=64))
    assert csv.read_text() == EARLIER
    assert len(_lines(partial_path(csv))) == 1 + 2 * 64  # header + the two blocks written


def _interrupting_step(monkeypatch, after: int) -> None:
    """Ctrl-C once ``after`` steps are done: in the Python loop and in the compiled one."""
    real, count = mujoco.mj_step, {"n": 0}

    def step(m: mujoco.MjModel, d: mujoco.MjData) -> None:
        count["n"] += 1
        if count["n"] > after:
            raise KeyboardInterrupt
        real(m, d)

    monkeypatch.setattr(mujoco, "mj_step", step)
    real_steps = native_loop.NativeLoop.steps

    def steps(self, i, stop, tick, due, step0):
        if step0 + i >= after:  # the signal arrives between two calls into C
            raise KeyboardInterrupt
        return real_steps(self, i, min(stop, after - step0), tick, due, step0)

    monkeypatch.setattr(native_loop.NativeLoop, "steps", steps)


def test_run_diagnose_names_the_partial_and_writes_no_json(tmp_path, monkeypatch):
    csv, js = tmp_path / "x.csv", tmp_path / "x.json"
    csv.write_text(EARLIER)
    js.write_text('{"earlier": true}\n')
    _interrupting_step(monkeypatch, 250)
    buf = io.StringIO()
    cfg = DiagnoseCmdCfg(model="fourbar", steps=20000, csv=str(csv), json=str(js), quiet=True)
    with pytest.raises(KeyboardInterrupt):
        run_diagnose(cfg, Console(file=buf, width=300, color_system=None))
    assert f"the rows so far are in {partial_path(csv)} ({csv} not changed)" in buf.getvalue()
    assert csv.read_text() == EARLIER and js.read_text() == '{"earlier": true}\n'
    names, rows = read_csv(partial_path(csv))  # a readable CSV of whole rows
    assert rows.shape == (250, len(names))


def test_cli_exits_130_on_interrupt_and_keeps_the_earlier_csv(tmp_path, monkeypatch, capsys):
    csv = tmp_path / "x.csv"
    csv.write_text(EARLIER)
    _interrupting_step(monkeypatch, 100)
    rc = main(["diagnose", "fourbar", "--steps", "20000", "--csv", str(csv), "--quiet"])
    out, err = capsys.readouterr()
    assert rc == 130 and "interrupted" in err and "x.partial.csv" in out
    assert csv.read_text() == EARLIER


def test_interrupted_is_picklable_across_a_process_pool():
    e = Interrupted(((Path("a.partial.csv"), Path("a.csv")),))
    back = pickle.loads(pickle.dumps(e))
    assert isinstance(back, KeyboardInterrupt) and back.kept == e.kept
    assert back.lines() == ["interrupted: the rows so far are in a.partial.csv (a.csv not changed)"]


def test_sigterm_becomes_keyboard_interrupt_only_inside():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)  # the handler runs at the next bytecode; never reached
    assert signal.getsignal(signal.SIGTERM) == before


def test_failed_figure_and_json_keep_the_earlier_files(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    png = tmp_path / "diagnose.png"
    png.write_bytes(b"earlier png")
    fig = plt.figure()

    def broken(*args: object, **kwargs: object) -> None:
        Path(args[0]).write_bytes(b"half a png")  # type: ignore[arg-type]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fig, "savefig", broken)
    with pytest.raises(OutputError, match="No space left"):
        save_figure(fig, png)
    plt.close(fig)
    assert png.read_bytes() == b"earlier png" and list(tmp_path.iterdir()) == [png]

    js = tmp_path / "r.json"
    js.write_text("earlier")
    monkeypatch.setattr("mjscope.paths.os.replace", _raise_oserror)
    with pytest.raises(OutputError):
        write_json({"a": 1.0}, js)
    assert js.read_text() == "earlier"


def _raise_oserror(*args: object) -> None:
    raise OSError(5, "Input/output error")


# -- real processes, real signals -------------------------------------------------------------


def _start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    """``mjscope`` in its own process group, SIGINT at its default (a background shell would
    have it ignored, and Python keeps an ignored SIGINT ignored)."""
    return subprocess.Popen(
        [sys.executable, "-m", "mjscope", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        env={**os.environ, "MUJOCO_GL": "egl"},
    )


def _wait_for_rows(paths: list[Path], proc: subprocess.Popen[str], rows: int = 5000) -> None:
    """Until each CSV holds at least ``rows`` rows (a quadruped row is < 450 bytes)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if all(p.exists() and p.stat().st_size > rows * 450 for p in paths):
            return
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"no rows in {paths} (exit {proc.poll()}): {proc.communicate()}")


def _assert_group_gone(pgid: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        # a zombie of ours is reaped by its parent's exit; give the reaper a moment
        time.sleep(0.05)
    raise AssertionError(f"processes of group {pgid} are still running (a CSV writer hung)")


def _assert_whole_rows(path: Path) -> int:
    text = path.read_text()
    assert text.endswith("\n"), "the partial CSV ends in a cut row"
    lines = text.splitlines()
    width = len(lines[0].split(","))
    assert all(len(line.split(",")) == width for line in lines)
    return len(lines) - 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX signals and process groups")
@pytest.mark.parametrize("how", ["ctrl-c to the group", "sigterm to the command"])
def test_real_signal_mid_rollout_keeps_earlier_csv(tmp_path, how, forked_writer):
    csv = tmp_path / "x.csv"
    csv.write_text(EARLIER)
    proc = _start(["diagnose", "quadruped", "--steps", "5000000", "--csv", "x.csv"], tmp_path)
    part = partial_path(csv)
    _wait_for_rows([part], proc)
    if how.startswith("ctrl-c"):
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    else:
        os.kill(proc.pid, signal.SIGTERM)  # a launch system stopping the command only
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "interrupted" in err
    assert f"the rows so far are in {part.name}" in out or str(part) in out
    assert csv.read_text() == EARLIER
    assert _assert_whole_rows(part) >= 5000
    _assert_group_gone(proc.pid)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX signals and process groups")
def test_real_ctrl_c_during_a_sweep_on_a_pool(tmp_path, forked_writer):
    args = ["diagnose", "quadruped", "--steps", "5000000", "--csv", "s.csv", "--jobs", "2"]
    proc = _start([*args, "--set", "option.timestep=0.002,0.003,0.004"], tmp_path)
    parts = [tmp_path / f"s_timestep{k}.partial.csv" for k in (0, 1)]
    _wait_for_rows(parts, proc)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, (out, err)
    for p in parts:
        assert p.name in out and _assert_whole_rows(p) >= 5000
    assert not (tmp_path / "s_timestep2.partial.csv").exists()  # queued: never started
    assert not list(tmp_path.glob("s_timestep?.csv"))
    _assert_group_gone(proc.pid)


def test_in_process_writer_failure_is_one_error_naming_the_partial(tmp_path, monkeypatch):
    from mjscope.diagnose.recording import csvsink

    def full(fmt: str, rows: np.ndarray) -> str:
        raise OSError(28, "No space left on device")

    csv = tmp_path / "x.csv"
    csv.write_text(EARLIER)
    monkeypatch.setattr(csvsink, "format_rows", full)
    with pytest.raises(OutputError, match=r"No space left.*x\.partial\.csv.*x\.csv is unchanged"):
        run_rollout(load("fourbar"), RolloutCfg(steps=100, csv=csv))  # short: in-process writer
    assert csv.read_text() == EARLIER and _lines(partial_path(csv))[0].startswith("time [s]")
