"""CSV sinks: in-process and forked writers give the same bytes; no child keeps another's pipe."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mjscope.diagnose import RolloutCfg, run_rollout
from mjscope.models import load

SCRIPT = """
import numpy as np
from pathlib import Path
from mjscope.diagnose.recording.csvsink import ForkedCsvSink
a = ForkedCsvSink(Path({a!r}), "x [m]", "%.10g\\n", 1)
b = ForkedCsvSink(Path({b!r}), "x [m]", "%.10g\\n", 1)  # its child inherits a's pipe
a.write(np.arange(3.0).reshape(3, 1))
b.write(np.full((2, 1), 0.5))
a.close()  # waited forever while b's child held a's pipe open
b.close()
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX only")
def test_two_open_forked_sinks_close_in_either_order(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    code = textwrap.dedent(SCRIPT.format(a=str(a), b=str(b)))
    proc = subprocess.run([sys.executable, "-c", code], timeout=30, capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode()
    assert a.read_text() == "x [m]\n0\n1\n2\n"
    assert b.read_text() == "x [m]\n0.5\n0.5\n"


def test_failed_fork_falls_back_to_writing_in_process(tmp_path: Path, monkeypatch) -> None:
    import numpy as np

    from mjscope.diagnose.recording import csvsink

    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(csvsink.os, "fork", no_fork)
    monkeypatch.setenv(csvsink.WRITER_ENV, "fork")  # it tries to fork, whatever the load
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    sink = csvsink.make_sink(tmp_path / "c.csv", "x [m]", "%.10g\n", 1, forked=True)
    assert isinstance(sink, csvsink.CsvSink)
    sink.write(np.array([[1.5], [2.0]]))
    sink.close()
    assert (tmp_path / "c.csv").read_text() == "x [m]\n1.5\n2\n"
    if before is not None:  # the pipes and the first file handle were closed
        assert len(os.listdir("/proc/self/fd")) == before


def test_forked_and_inprocess_csv_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("MJSCOPE_CSV_WRITER", "fork")
    a, b = tmp_path / "forked.csv", tmp_path / "inproc.csv"
    run_rollout(load("fourbar"), RolloutCfg(steps=900, csv=a, block_rows=128))  # forked writer
    run_rollout(load("fourbar"), RolloutCfg(steps=900, csv=b, block_rows=4096))  # in process
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX only")
def test_abort_kills_a_stuck_writer_instead_of_hanging(tmp_path: Path, monkeypatch) -> None:
    import signal
    import time

    import numpy as np

    from mjscope.diagnose.recording import csvsink

    def stuck(fmt: str, rows: np.ndarray) -> str:  # runs in the forked writer: never returns
        while True:
            time.sleep(1)

    def too_long(signum: int, frame: object) -> None:
        raise AssertionError("abort() hung on a stuck CSV writer")

    monkeypatch.setattr(csvsink, "format_rows", stuck)
    sink = csvsink.ForkedCsvSink(tmp_path / "x.csv", "x [m]", "%.10g\n", 1)
    sink.write(np.zeros((3, 1)))
    pid = sink.pid
    old = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(30)  # a safety net only: abort waits 0.2 s, then kills
    try:
        sink.abort(wait_s=0.2)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    with pytest.raises(ChildProcessError):  # killed and reaped: no zombie left
        os.waitpid(pid, os.WNOHANG)
    assert (tmp_path / "x.csv").read_text() == "x [m]\n"  # the header; no cut row
    sink.abort()  # idempotent


def _plain(fmt: str, rows) -> str:
    """The reference: one ``%`` over every value, as the sink wrote before the constant-column
    shortcut (with its fallback to floats for a NaN/inf in an integer column)."""
    values = tuple(rows.ravel().tolist())
    try:
        return (fmt * len(rows)) % values
    except (ValueError, OverflowError):
        return ((",".join(["%.10g"] * rows.shape[1]) + "\n") * len(rows)) % values


def test_constant_columns_as_text_keep_the_bytes() -> None:
    import numpy as np

    from mjscope.diagnose.recording import format_rows

    rng = np.random.default_rng(0)
    fmt = "%.10g,%.10g,%d,%.10g,%.10g,%d\n"
    rows = rng.normal(size=(300, 6)) * 1e3
    rows[:, 1] = -0.0  # constant negative zero: "-0", not "0"
    rows[:, 2] = 7.0  # constant integer column
    rows[:, 4] = 1.5e-7  # constant float in exponent notation
    rows[:, 5] = rng.integers(-3, 50, 300)
    out = format_rows(fmt, rows)
    assert out == _plain(fmt, rows)
    assert out.splitlines()[0].split(",")[1:3] == ["-0", "7"]
    mixed = rows.copy()
    mixed[::2, 1] = 0.0  # +0.0 and -0.0 compare equal but are not one constant
    assert format_rows(fmt, mixed) == _plain(fmt, mixed)
    for col, where in ((2, slice(None)), (5, 17)):  # NaN/inf in an integer column: all floats
        bad = rows.copy()
        bad[where, col] = np.nan if col == 2 else np.inf
        assert format_rows(fmt, bad) == _plain(fmt, bad)
        assert "nan" in format_rows(fmt, bad) or "inf" in format_rows(fmt, bad)
    nan_col = rows.copy()
    nan_col[:, 0] = np.nan  # NaN != NaN: a NaN column still formats once per row
    assert format_rows(fmt, nan_col) == _plain(fmt, nan_col)
    assert format_rows(fmt, rows[:1]) == _plain(fmt, rows[:1])
    assert format_rows(fmt, rows[:0]) == ""


def test_block_size_does_not_change_the_csv(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MJSCOPE_CSV_WRITER", "fork")
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    cfg = {"steps": 2500, "ctrl": "noise", "seed": 2}
    run_rollout(load("quadruped"), RolloutCfg(csv=a, block_rows=1024, **cfg))  # forked writer
    run_rollout(load("quadruped"), RolloutCfg(csv=b, block_rows=4096, **cfg))  # in process
    assert a.read_bytes() == b.read_bytes()


def test_the_writer_is_forked_only_with_a_free_core(tmp_path: Path, monkeypatch) -> None:
    from mjscope.diagnose.recording import csvsink

    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    monkeypatch.delenv(csvsink.WRITER_ENV, raising=False)
    sinks = {}
    for busy in (1, usable):  # this process alone; this process and one task per other core
        monkeypatch.setattr(csvsink, "_runnable", lambda busy=busy: busy)
        sink = csvsink.make_sink(tmp_path / f"{busy}.csv", "x [m]", "%.10g\n", 1, forked=True)
        sinks[busy] = type(sink).__name__
        sink.close()
    assert sinks[usable] == "CsvSink"
    if usable > 1:
        assert sinks[1] == "ForkedCsvSink"
    for how, kind in (("fork", "ForkedCsvSink"), ("inline", "CsvSink")):
        monkeypatch.setenv(csvsink.WRITER_ENV, how)  # the environment decides, load or not
        sink = csvsink.make_sink(tmp_path / f"{how}.csv", "x [m]", "%.10g\n", 1, forked=True)
        assert type(sink).__name__ == kind
        sink.close()
