"""The local process pool of a sweep: results in task order, a clean stop on Ctrl-C and SIGTERM.

A ``ProcessPoolExecutor`` whose workers turn the first SIGINT or SIGTERM during a task into a
``KeyboardInterrupt`` (the rollout then keeps its partial CSV and says so with
:class:`~mjscope.diagnose.outputs.Interrupted`) and otherwise leave quietly, so an interrupted
sweep prints no worker tracebacks and leaves no process behind. When the parent is interrupted
(Ctrl-C reaches the whole process group; a SIGTERM may reach the parent only), pending tasks
are cancelled, running ones are interrupted, and the parent raises one ``Interrupted`` naming
every partial file.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from types import FrameType
from typing import Any, TypeVar

from mjscope.diagnose.outputs import Interrupted

T = TypeVar("T")
STOP_WAIT_S = 30.0  # how long an interrupted pool waits for its running tasks to stop [s]
_STATE = {"in_task": False, "stopping": False}  # per worker process


def run_pool(fn: Callable[..., T], tasks: Sequence[tuple[Any, ...]], workers: int) -> list[T]:
    """``[fn(*t) for t in tasks]`` on ``workers`` processes (fork where available).

    Raises:
        Interrupted: Ctrl-C or SIGTERM; ``kept`` lists the partial CSVs of the runs it stopped.
        Exception: The first exception a task raised, as it was raised.
    """
    ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker)
    futures = [pool.submit(_call, fn, t) for t in tasks]
    try:
        results = [f.result() for f in futures]
    except KeyboardInterrupt as e:
        raise _stop(pool, futures) from e
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return results


def _stop(pool: ProcessPoolExecutor, futures: list[Future[Any]]) -> Interrupted:
    """Cancel what has not started, interrupt what runs, wait (bounded); the partial files."""
    for f in futures:
        f.cancel()
    procs = dict(getattr(pool, "_processes", None) or {})  # private, but the only handle
    for pid in procs:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGINT)
    running = [f for f in futures if not f.cancelled()]
    _, late = wait(running, timeout=STOP_WAIT_S)
    if late:  # still busy after the wait: stop them hard
        for p in procs.values():
            p.kill()
    pool.shutdown(wait=not late, cancel_futures=True)
    kept: list[Any] = []
    for f in running:
        exc = f.exception(timeout=0) if f.done() else None
        if isinstance(exc, Interrupted):
            kept += exc.kept
    return Interrupted(tuple(kept))


def _init_worker() -> None:
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """First signal in a task: ``KeyboardInterrupt``; idle SIGTERM: exit; else: ignore.

    Either way the worker is stopping from then on: it refuses tasks still queued for it.
    """
    first = not _STATE["stopping"]
    _STATE["stopping"] = True
    if _STATE["in_task"]:
        if first:
            raise KeyboardInterrupt(f"signal {signum}")
    elif signum == signal.SIGTERM:
        os._exit(128 + signum)


def _call(fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    if _STATE["stopping"]:
        raise KeyboardInterrupt("the sweep was interrupted")
    _STATE["in_task"] = True
    try:
        return fn(*args)
    finally:
        _STATE["in_task"] = False
