"""The executor on this process and on local worker processes: order, retries, kills, Ctrl-C."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from mjscope.exceptions import ConfigError
from mjscope.runner import ExecutorCfg, ExecutorError, RunInterrupted, run_items
from mjscope.runner.local import ProcessBackend

FLAKY = "/tmp/mjscope-test-flaky-{}"


def square(x: int) -> tuple[int, int]:
    """x², and the pid of the process that computed it."""
    time.sleep(0.02 * (x % 3))  # uneven durations: results finish out of order
    return x * x, os.getpid()


def slow_square(x: int) -> tuple[int, int]:
    time.sleep(0.15)
    return x * x, os.getpid()


def fails_on_seven(x: int) -> int:
    if x == 7:
        raise ValueError("seven is bad")
    return x


def user_error_on_two(x: int) -> int:
    if x == 2:
        raise ConfigError("bad value 2")
    return x


def dies_once(x: int) -> int:
    """Kills its own worker the first time it sees item 3 (a marker file says it did)."""
    marker = FLAKY.format(os.getppid())
    if x == 3 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(9)
    return -x


@pytest.mark.parametrize("jobs", [1, 2])
def test_results_come_back_in_index_order_with_the_right_values(jobs: int) -> None:
    got = list(run_items(square, range(25), ExecutorCfg(jobs=jobs, progress=False)))
    assert [r.index for r in got] == list(range(25))
    assert [r.value[0] for r in got] == [k * k for k in range(25)]
    assert all(r.ok and r.attempts == 1 for r in got)
    pids = {r.value[1] for r in got}
    assert (pids == {os.getpid()}) if jobs == 1 else (os.getpid() not in pids and len(pids) == 2)


def test_a_generator_of_items_is_read_lazily_inside_the_window() -> None:
    read: list[int] = []

    def items():
        for k in range(200):
            read.append(k)
            yield k

    gen = run_items(square, items(), ExecutorCfg(jobs=2, window=8, progress=False), total=200)
    first = next(gen)
    assert first.index == 0 and first.value[0] == 0
    assert len(read) <= 8 + 2  # window past the oldest unfinished item, not the whole input
    assert [r.value[0] for r in gen] == [k * k for k in range(1, 200)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_item_that_keeps_raising_is_reported_failed_after_its_retries(jobs: int) -> None:
    cfg = ExecutorCfg(jobs=jobs, retries=2, progress=False)
    got = list(run_items(fails_on_seven, range(10), cfg))
    bad = got[7]
    assert not bad.ok and bad.attempts == 3 and "ValueError: seven is bad" in bad.error
    assert [r.value for r in got if r.ok] == [k for k in range(10) if k != 7]


def test_a_user_error_is_not_retried() -> None:
    got = list(run_items(user_error_on_two, range(4), ExecutorCfg(jobs=2, progress=False)))
    assert got[2].attempts == 1 and "ConfigError: bad value 2" in got[2].error
    assert [r.ok for r in got] == [True, True, False, True]


def test_a_worker_that_dies_loses_no_item() -> None:
    marker = FLAKY.format(os.getpid())
    if os.path.exists(marker):
        os.unlink(marker)
    try:
        got = list(run_items(dies_once, range(8), ExecutorCfg(jobs=2, progress=False)))
    finally:
        assert os.path.exists(marker)  # the worker really died once
        os.unlink(marker)
    assert [r.value for r in got] == [-k for k in range(8)]
    assert got[3].attempts == 2 and all(r.attempts == 1 for r in got if r.index != 3)


def test_a_worker_killed_from_outside_mid_run_loses_no_item() -> None:
    got = []
    for r in run_items(slow_square, range(12), ExecutorCfg(jobs=2, progress=False)):
        got.append(r)
        if len(got) == 2:  # its worker is busy with a later item now: kill it
            os.kill(r.value[1], signal.SIGKILL)
    assert [r.value[0] for r in got] == [k * k for k in range(12)]
    assert sum(r.attempts == 2 for r in got) == 1  # exactly the item it held ran again


def test_ctrl_c_stops_the_workers_and_keeps_what_finished() -> None:
    got = []
    gen = run_items(slow_square, range(40), ExecutorCfg(jobs=2, progress=False))
    with pytest.raises(KeyboardInterrupt):
        for r in gen:
            got.append(r)
            if len(got) == 4:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1.0)  # the interrupt lands here
    gen.close()
    assert [r.value[0] for r in got] == [0, 1, 4, 9]
    pids = {r.value[1] for r in got}
    assert len(pids) == 2
    for pid in pids:  # every worker is gone
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


class Stopped(KeyboardInterrupt):
    """What an item raises when interrupted: it carries what the item kept."""

    def __init__(self, x: int) -> None:
        super().__init__(x)
        self.x = x

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return type(self), (self.x,)


def until_interrupted(x: int) -> int:
    """Runs until SIGINT, then says which item it was (items from 2 on finish at once)."""
    if x >= 2:
        return x
    try:
        time.sleep(60)
    except KeyboardInterrupt:
        raise Stopped(x) from None
    return x


def _sigterm_in(seconds: float) -> threading.Timer:
    t = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGTERM))
    t.start()
    return t


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX signals")
def test_stop_wait_lets_running_items_stop_and_report_what_they_raised() -> None:
    cfg = ExecutorCfg(jobs=2, stop_wait=20.0, progress=False)
    _sigterm_in(1.0)  # reaches this process only: the executor passes SIGINT to its workers
    with pytest.raises(RunInterrupted) as info:
        list(run_items(until_interrupted, range(4), cfg))
    stopped = info.value.stopped
    assert [k for k, _ in stopped] == [0, 1]
    assert [type(e).__name__ for _, e in stopped] == ["Stopped", "Stopped"]
    assert [e.x for _, e in stopped] == [0, 1]  # type: ignore[attr-defined]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX signals")
def test_without_stop_wait_workers_are_terminated_and_nothing_is_reported() -> None:
    _sigterm_in(1.0)
    with pytest.raises(KeyboardInterrupt) as info:
        list(run_items(until_interrupted, range(4), ExecutorCfg(jobs=2, progress=False)))
    assert not isinstance(info.value, RunInterrupted)


def test_a_backend_passed_in_stays_open_for_its_owner() -> None:
    backend = ProcessBackend(square, 2)
    try:
        first = [r.value[0] for r in run_items(square, range(3), backend=backend)]
        again = [r.value[0] for r in run_items(square, range(3, 6), backend=backend)]
        assert (first, again) == ([0, 1, 4], [9, 16, 25])
        assert len(backend.pids) == 2
    finally:
        backend.close()
    assert backend.pids == []


def test_sigterm_stops_a_run_like_ctrl_c() -> None:
    before = signal.getsignal(signal.SIGTERM)
    got = []
    gen = run_items(slow_square, range(40), ExecutorCfg(jobs=2, progress=False))
    with pytest.raises(KeyboardInterrupt):
        for r in gen:
            got.append(r)
            if len(got) == 2:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1.0)
    gen.close()
    assert len(got) == 2 and signal.getsignal(signal.SIGTERM) == before  # handler restored


@pytest.mark.parametrize(
    ("cfg", "match"),
    [
        (ExecutorCfg(jobs=0), "--jobs 0"),
        (ExecutorCfg(retries=-1), "retries"),
        (ExecutorCfg(window=0), "window"),
        (ExecutorCfg(stop_wait=-1.0), "stop_wait"),
        (ExecutorCfg(ray=" "), "--ray needs"),
    ],
)
def test_bad_options_are_one_line_errors(cfg: ExecutorCfg, match: str) -> None:
    with pytest.raises(ExecutorError, match=match):
        list(run_items(square, range(2), cfg))


def noop(x: int) -> int:
    return x


def test_driver_memory_stays_flat_over_a_hundred_thousand_items() -> None:
    import tracemalloc

    cfg = ExecutorCfg(jobs=1, progress=False)
    assert sum(1 for _ in run_items(noop, range(100), cfg)) == 100  # warm-up (lazy imports)
    tracemalloc.start()
    try:
        n = sum(1 for _ in run_items(noop, iter(range(100_000)), cfg, total=100_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n == 100_000
    assert peak < 200_000, f"peak {peak} B: something keeps per-item state"


def test_the_progress_bar_counts_done_failed_and_retried() -> None:
    from mjscope.runner.progress import Progress

    with Progress("items", 3, show=True) as bar:
        bar.advance(failed=False)
        bar.note_retry("worker died")
        bar.advance(failed=True)
        assert bar._bar is not None
        task = bar._bar.tasks[0]
        assert (task.completed, task.fields["failed"], task.fields["retried"]) == (2, 1, 1)
    assert (Progress("items", 3)._bar is None) == (not sys.stderr.isatty())  # a bar on ttys only
    got = list(run_items(fails_on_seven, range(9), ExecutorCfg(jobs=1, progress=True)))
    assert [r.ok for r in got] == [True] * 7 + [False, True]
