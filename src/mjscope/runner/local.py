"""Local backends: this process (``--jobs 1``) and a pool of worker processes.

The pool keeps one connection per worker and gives each worker one item at a time, so it
always knows which item a worker holds: when a worker dies (killed, out of memory, a crash in
an extension) exactly that item is reported as :data:`~mjscope.runner.base.DIED` and the worker
is replaced. Workers ignore SIGINT: Ctrl-C reaches the whole process group, and the driver
decides what stops (it closes the pool; finished results are already with the caller). With
``interruptible=True`` (``ExecutorCfg.stop_wait`` > 0) the first SIGINT during an item raises
``KeyboardInterrupt`` inside it instead (SIGINT between items is ignored): the item can keep
what it has (a partial file) and its worker reports :data:`~mjscope.runner.base.INTERRUPTED`
with the exception; :meth:`ProcessBackend.interrupt` sends that SIGINT (a SIGTERM may reach
the driver only) and waits a bounded time for the answers.
Workers are forked where the platform allows it (the function and its imports come along
without pickling), else spawned.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any

from mjscope.runner.base import DIED, INTERRUPTED, OK, Outcome, describe

STOP_WAIT_S = 5.0  # how long a closing pool waits for a worker to exit before killing it [s]


class InlineBackend:
    """Runs each item in this process when polled (no workers; ``--jobs 1``).

    Args:
        fn: The function applied to each item.
    """

    workers = 1

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self._fn = fn
        self._queue: list[tuple[int, Any]] = []

    def free(self) -> int:
        """One item at a time."""
        return 0 if self._queue else 1

    def submit(self, index: int, item: Any) -> None:
        """Queue ``item``; it runs on the next :meth:`poll`."""
        self._queue.append((index, item))

    def poll(self, timeout: float) -> list[Outcome]:
        """Run the queued item now (``KeyboardInterrupt`` passes through)."""
        if not self._queue:
            return []
        index, item = self._queue.pop()
        try:
            return [Outcome(index, OK, self._fn(item))]
        except Exception as e:
            return [describe(index, e)]

    def close(self) -> None:
        """Nothing to stop."""
        self._queue.clear()


class _Slot:
    """One worker process, its connection and the item it holds."""

    def __init__(self, ctx: Any, fn: Callable[[Any], Any], interruptible: bool) -> None:
        parent, child = ctx.Pipe(duplex=True)
        args = (fn, child, interruptible)
        self.proc: BaseProcess = ctx.Process(target=_worker, args=args, daemon=True)
        self.proc.start()
        child.close()
        self.conn: Connection = parent
        self.index: int | None = None

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.close()
        if self.proc.is_alive():
            self.proc.terminate()
        self.proc.join(STOP_WAIT_S)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()


class ProcessBackend:
    """A pool of ``workers`` local processes, one item each at a time.

    Args:
        fn: The function applied to each item (a module-level function where workers are
            spawned).
        workers: Worker processes.
        interruptible: SIGINT raises ``KeyboardInterrupt`` inside a running item (see the
            module doc) instead of being ignored.
    """

    def __init__(self, fn: Callable[[Any], Any], workers: int, interruptible: bool = False) -> None:
        self.workers = workers
        self._fn = fn
        self._interruptible = interruptible
        self._ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
        self._slots = [_Slot(self._ctx, fn, interruptible) for _ in range(workers)]

    @property
    def pids(self) -> list[int]:
        """Process ids of the current workers."""
        return [s.proc.pid for s in self._slots if s.proc.pid is not None]

    def free(self) -> int:
        """Idle workers."""
        return sum(s.index is None for s in self._slots)

    def submit(self, index: int, item: Any) -> None:
        """Give ``item`` to an idle worker."""
        slot = next(s for s in self._slots if s.index is None)
        slot.index = index
        try:
            slot.conn.send((index, item))
        except OSError:  # the worker died while idle: the next poll reports the item
            pass

    def poll(self, timeout: float) -> list[Outcome]:
        """Results and deaths of busy workers (waits up to ``timeout`` [s] for one)."""
        busy = [s for s in self._slots if s.index is not None]
        if not busy:
            return []
        handles: dict[Any, _Slot] = {}
        for s in busy:
            handles[s.conn] = s
            handles[s.proc.sentinel] = s
        ready = {id(handles[h]): handles[h] for h in wait(list(handles), timeout)}
        return [self._collect(s) for s in ready.values()]

    def _collect(self, slot: _Slot) -> Outcome:
        index = slot.index
        assert index is not None
        try:
            if slot.conn.poll():
                got: Outcome = slot.conn.recv()
                slot.index = None
                return got
        except (EOFError, OSError):
            pass
        # No message: the worker is gone. Report the item it held and put a fresh one in place.
        slot.proc.join(STOP_WAIT_S)
        code = slot.proc.exitcode
        why = f"worker pid {slot.proc.pid} died (exit code {code}) while running item {index}"
        slot.stop()
        self._slots[self._slots.index(slot)] = _Slot(self._ctx, self._fn, self._interruptible)
        return Outcome(index, DIED, why)

    def interrupt(self, wait_s: float) -> list[Outcome]:
        """SIGINT to the busy workers, then up to ``wait_s`` [s] for them to stop their items.

        Returns:
            The :data:`~mjscope.runner.base.INTERRUPTED` outcomes that came back in time (none
            unless the pool is ``interruptible``); other answers are dropped, the workers
            that did not answer are left to :meth:`close`.
        """
        busy = [s for s in self._slots if s.index is not None]
        if not self._interruptible:
            return []
        for s in busy:
            if s.proc.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(s.proc.pid, signal.SIGINT)
        stopped: list[Outcome] = []
        deadline = time.monotonic() + wait_s
        while busy and time.monotonic() < deadline:
            conns: dict[Any, _Slot] = {s.conn: s for s in busy}
            for c in wait(list(conns), deadline - time.monotonic()):
                s = conns[c]
                busy.remove(s)
                try:
                    out: Outcome = s.conn.recv()
                except (EOFError, OSError):
                    continue
                if out.kind == INTERRUPTED:
                    stopped.append(out)
        return stopped

    def close(self) -> None:
        """Stop every worker (running items are abandoned)."""
        for s in self._slots:
            s.stop()
        self._slots = []


_IN_ITEM = {"running": False, "hit": False}  # per worker process (interruptible pools)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    """The first SIGINT during an item interrupts it; any other SIGINT is ignored."""
    if _IN_ITEM["running"] and not _IN_ITEM["hit"]:
        _IN_ITEM["hit"] = True
        raise KeyboardInterrupt(f"signal {signum}")


def _worker(fn: Callable[[Any], Any], conn: Connection, interruptible: bool = False) -> None:
    """Run items from ``conn`` until it closes; every attempt answers with one Outcome."""
    # The driver decides what stops (see the module doc).
    signal.signal(signal.SIGINT, _on_sigint if interruptible else signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while True:
        try:
            index, item = conn.recv()
        except (EOFError, OSError):
            return
        try:
            _IN_ITEM["running"] = True
            try:
                out = Outcome(index, OK, fn(item))
            finally:
                _IN_ITEM["running"] = False
        except KeyboardInterrupt as e:  # only where interruptible: SIGINT is ignored otherwise
            out = Outcome(index, INTERRUPTED, e, retryable=False)
        except Exception as e:
            out = describe(index, e)
        try:
            conn.send(out)
        except (OSError, EOFError):
            return
        except Exception as e:  # the value does not pickle
            conn.send(dataclasses.replace(describe(index, e), retryable=False))
