"""CSV sinks for the recorder: formatting in this process, or in a forked writer process.

A writer thread cannot overlap with the simulation: every return from ``mj_step`` waits for
the GIL (measured: a thread formatting CSV text made a 20 000-step quadruped loop take 98 s
instead of 0.26 s). A forked child can. The parent sends each finished block as raw float64
bytes through a pipe (one memcpy) and goes on stepping while the child, a ``SCHED_BATCH``
task that never preempts it, formats and writes it. Output is identical either way: the same
format string turns the same numbers into the same bytes (:func:`format_rows` writes a column
that is constant over a block as text once, with the same bytes). The child only pays where a
core is free for it: on a machine whose cores are all busy it takes its share from the
rollout, so :func:`make_sink` then formats in this process (``MJSCOPE_CSV_WRITER=fork`` or
``inline`` overrides the choice).

A sink writes the file it is given (the recorder gives it the partial file, see
:mod:`mjscope.diagnose.outputs`). ``close`` finishes it and raises if the writer failed;
``abort`` (an interrupted or failed rollout) finishes what was sent without raising: the
writer ignores SIGINT and SIGTERM, writes the whole rows it received and exits; a writer
still busy after :data:`ABORT_WAIT_S` is killed, so an interrupt never hangs.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import struct
import time
from pathlib import Path
from typing import IO

import numpy as np

from mjscope.diagnose.probes.base import address
from mjscope.exceptions import OutputError

try:  # built by pip install (setup.py); optional
    from mjscope.diagnose.recording import _csvformat
except ImportError:  # pragma: no cover - an install without a C compiler
    _csvformat = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

NUMBER_FORMAT = "%.10g"
INTEGER_FORMAT = "%d"
ABORT_WAIT_S = 10.0  # how long an aborted sink waits for its writer before killing it [s]
_LEN = struct.Struct("<Q")
FORMAT_ENV = "MJSCOPE_CSV_FORMAT"  # "python": never the compiled formatter


def format_rows(fmt: str, rows: np.ndarray) -> str:
    """CSV text of ``rows`` ``(n, ncol)`` with a per-row format ending in a newline.

    Where the compiled formatter is built (:mod:`mjscope.diagnose.recording._csvformat`) and
    every column is :data:`NUMBER_FORMAT` or :data:`INTEGER_FORMAT`, it writes the block: the
    same bytes as Python's ``%`` (it calls the function ``%`` calls), ≈ 2× faster. Else one
    ``%`` call per block (it stays in C). A column holding the same float64 bits on every row
    of the block (warning counters, an unused force term) is formatted once and written into
    the block's format as text: the same bytes, fewer numbers to format. A NaN or inf in an
    integer column (a diverging run) makes the whole block use :data:`NUMBER_FORMAT`.
    """
    compiled = _csvformat is not None and os.environ.get(FORMAT_ENV, "").lower() != "python"
    kinds = _kinds(fmt) if compiled and rows.dtype == np.float64 else None
    if kinds is not None and rows.ndim == 2 and len(kinds) == rows.shape[1]:
        text = _csvformat.format_block(
            address(rows), rows.shape[0], rows.shape[1],
            rows.strides[0], rows.strides[1], kinds,
        )  # fmt: skip
        if text is not None:
            return text
    return format_rows_python(fmt, rows)


@functools.lru_cache(maxsize=64)
def _kinds(fmt: str) -> bytes | None:
    """``b"g"``/``b"d"`` per column of ``fmt``, or ``None``.

    ``None`` unless every conversion is :data:`NUMBER_FORMAT` or :data:`INTEGER_FORMAT`.
    """
    if not fmt.endswith("\n"):
        return None
    kind = {NUMBER_FORMAT: b"g", INTEGER_FORMAT: b"d"}
    parts = fmt[:-1].split(",")
    if not all(p in kind for p in parts):
        return None
    return b"".join(kind[p] for p in parts)


def format_rows_python(fmt: str, rows: np.ndarray) -> str:
    """:func:`format_rows` with Python's ``%`` alone (the reference of the compiled one)."""
    try:
        return _format_block(fmt, rows)
    except (ValueError, OverflowError):  # NaN/inf in an integer column: write it as a float
        line = ",".join([NUMBER_FORMAT] * rows.shape[1]) + "\n"
        return _format_block(line, rows)


def _format_block(fmt: str, rows: np.ndarray) -> str:
    """:func:`format_rows` without the fallback; constant columns become literal text."""
    if len(rows) < 2 or not rows.shape[1]:
        return (fmt * len(rows)) % tuple(rows.ravel().tolist())
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    bits = rows.view(np.int64)  # bitwise: -0.0 and 0.0 format differently, NaN != NaN
    same = (bits == bits[0]).all(axis=0)
    if not same.any():
        return (fmt * len(rows)) % tuple(rows.ravel().tolist())
    parts = fmt[:-1].split(",")  # one conversion per column, no commas inside
    first = rows[0].tolist()
    line = ",".join(
        (p % first[k]).replace("%", "%%") if same[k] else p for k, p in enumerate(parts)
    )
    varying = rows[:, ~same]
    return ((line + fmt[-1]) * len(rows)) % tuple(varying.ravel().tolist())


def open_csv(path: Path, header: str) -> IO[str]:
    """Open ``path`` for writing and write the header line (flushed)."""
    from mjscope.paths import check_writable

    try:
        fh = check_writable(path).open("w", encoding="utf-8", newline="\n")
        fh.write(header + "\n")
        fh.flush()
    except OSError as e:
        raise OutputError(f"cannot write CSV {str(path)!r}: {e.strerror}; choose another") from e
    return fh


class CsvSink:
    """Formats and writes blocks in this process.

    Args:
        path: CSV file.
        header: Header line (no newline).
        fmt: Per-row format ending in a newline.
    """

    def __init__(self, path: Path, header: str, fmt: str) -> None:
        self.fmt = fmt
        self.fh: IO[str] | None = open_csv(path, header)

    def write(self, rows: np.ndarray) -> None:
        """Append rows ``(n, ncol)``.

        Raises:
            OutputError: The file cannot be written (disk full, ...).
        """
        assert self.fh is not None
        try:
            self.fh.write(format_rows(self.fmt, rows))
        except OSError as e:
            raise OutputError(f"cannot write CSV {self.fh.name!r}: {e.strerror}") from e

    def close(self) -> None:
        """Flush and close.

        Raises:
            OutputError: The last rows cannot be written (disk full, ...).
        """
        if self.fh is not None:
            fh, self.fh = self.fh, None
            try:
                fh.close()
            except OSError as e:
                raise OutputError(f"cannot write CSV {fh.name!r}: {e.strerror}") from e

    def abort(self) -> None:
        """Close, writing what was formatted so far; never raises an ``OSError``."""
        try:
            self.close()
        except OutputError as e:
            logger.warning("%s", e)


class ForkedCsvSink:
    """Formats and writes blocks in a forked child process (POSIX only).

    Args:
        path: CSV file.
        header: Header line (no newline).
        fmt: Per-row format ending in a newline.
        ncol: Columns per row.
    """

    def __init__(self, path: Path, header: str, fmt: str, ncol: int) -> None:
        self.path, self.pid = path, -1
        fh = open_csv(path, header)
        data_r, self._w = os.pipe()
        _grow_pipe(self._w)
        self._err_r, err_w = os.pipe()
        try:
            self.pid = os.fork()
        except OSError:  # no process slot or memory: release everything, let the caller fall back
            for fd in (data_r, self._w, self._err_r, err_w):
                os.close(fd)
            fh.close()
            raise
        if self.pid == 0:  # pragma: no cover - runs in the child
            _close_inherited(keep=(data_r, err_w, fh.fileno()))
            _child(data_r, err_w, fh, fmt, ncol)
        os.close(data_r)
        os.close(err_w)
        fh.close()  # the child owns the file now; nothing is buffered here

    def write(self, rows: np.ndarray) -> None:
        """Send rows ``(n, ncol)`` to the writer.

        Raises:
            OutputError: The writer process is gone (it failed or was killed).
        """
        payload = np.ascontiguousarray(rows, dtype=np.float64).data.cast("B")
        try:
            _write_all(self._w, _LEN.pack(len(payload)))
            _write_all(self._w, payload)
        except BrokenPipeError as e:
            raise OutputError(
                f"the CSV writer process for {str(self.path)!r} ended early: "
                f"{self._collect() or 'killed'}"
            ) from e

    def close(self) -> None:
        """Signal the end, wait for the writer and raise if it failed.

        Raises:
            OutputError: The writer failed (disk full, ...) or was killed.
        """
        if self.pid <= 0:
            return
        self._end_data()
        _, status = os.waitpid(self.pid, 0)
        self.pid = -1
        err = self._collect()
        if os.waitstatus_to_exitcode(status) != 0:
            raise OutputError(f"writing CSV {str(self.path)!r} failed: {err or status}")

    def abort(self, wait_s: float = ABORT_WAIT_S) -> None:
        """End the stream after an interrupt or failure: never hangs, never raises.

        The writer gets the end of the data, writes the whole rows it has and exits; after
        ``wait_s`` (or on a second Ctrl-C while waiting) it is killed. Its exit status is not
        an error here: the caller is already handling one.
        """
        if self.pid <= 0:
            return
        self._end_data()
        pid, self.pid = self.pid, -1
        try:
            deadline = time.monotonic() + wait_s
            while os.waitpid(pid, os.WNOHANG) == (0, 0):
                if time.monotonic() > deadline:
                    logger.warning("CSV writer %d still busy after %.0f s: killed", pid, wait_s)
                    _kill(pid)
                    break
                time.sleep(0.005)
        except ChildProcessError:  # already reaped
            pass
        except BaseException:
            _kill(pid)
            raise
        finally:
            self._collect()

    def _end_data(self) -> None:
        if self._w >= 0:
            w, self._w = self._w, -1
            os.close(w)

    def _collect(self) -> str:
        """The writer's error text (empty when it had none); closes the error pipe once."""
        if self._err_r < 0:
            return ""
        r, self._err_r = self._err_r, -1
        try:
            os.set_blocking(r, False)
            with os.fdopen(r, "rb") as f:
                return (f.read() or b"").decode("utf-8", "replace")
        except OSError:
            return ""


def make_sink(
    path: Path, header: str, fmt: str, ncol: int, forked: bool
) -> CsvSink | ForkedCsvSink:
    """A forked sink when asked, useful and possible, else an in-process one.

    Useful: a core is free for the writer (:func:`fork_writer`); on a machine whose cores are all
    busy the writer's formatting would take its share from the rollout and cost more than
    formatting each block here (measured on 2 loaded cores: 1.64× vs 1.59× bare ``mj_step``).
    Possible: ``os.fork`` works. The bytes are the same either way.
    """
    if forked and hasattr(os, "fork") and fork_writer():
        try:
            return ForkedCsvSink(path, header, fmt, ncol)
        except OSError:  # only fork itself can fail here: open_csv raises OutputError
            pass
    return CsvSink(path, header, fmt)


WRITER_ENV = "MJSCOPE_CSV_WRITER"  # fork | inline | auto (default): where long CSVs are formatted


def fork_writer() -> bool:
    """Whether a long CSV gets a forked writer: :data:`WRITER_ENV`, else :func:`free_core`."""
    how = os.environ.get(WRITER_ENV, "auto").strip().lower()
    if how in ("fork", "inline"):
        return how == "fork"
    return free_core()


def free_core() -> bool:
    """Whether a core is free beside this process for a forked writer.

    The runnable tasks now (``/proc/loadavg``'s fourth field, this process included) must
    leave one of the CPUs this process may use. ``True`` where it cannot be read.
    """
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        usable = os.cpu_count() or 1
    running = _runnable()
    return running is None or running < usable


def _runnable() -> int | None:
    """Runnable scheduling entities now, from ``/proc/loadavg`` (``None``: unknown)."""
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return int(f.read().split()[3].split("/")[0])
    except (OSError, IndexError, ValueError):
        return None


def _kill(pid: int) -> None:
    """SIGKILL ``pid`` and reap it (no zombie); quiet when it is already gone."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _grow_pipe(fd: int) -> None:
    """Let a whole block fit in the pipe (Linux), so the parent's write never waits."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError):  # other systems, or a lower pipe-max-size: default size
        pass


def _close_inherited(keep: tuple[int, ...]) -> None:  # pragma: no cover - runs in the child
    """Close every inherited descriptor above stderr except ``keep``.

    Another sink's pipe inherited here would hold that pipe open: its writer would never see
    the end of its data, and closing that sink first would wait forever.
    """
    try:  # capped: without the close_range syscall, closerange closes one fd at a time
        top = min(int(os.sysconf("SC_OPEN_MAX")), 1 << 20)
    except (AttributeError, ValueError, OSError):
        top = 65536
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, max(top, low))


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_exact(fd: int, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        b = os.read(fd, min(n - got, 1 << 20))
        if not b:
            break
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def _batch_priority() -> None:  # pragma: no cover - runs in the child
    """Make this process a batch task (Linux ``SCHED_BATCH``): it never preempts the rollout.

    A pipe write wakes the reader on the writer's CPU; as a normal task the writer would then
    preempt the stepping parent for its whole block (measured: ~2 ms per 1024-row block on
    a busy 2-core machine). As a batch task it runs on a free core, or after the parent's
    time slice; the CSV is the same.
    """
    policy = getattr(os, "SCHED_BATCH", None)
    if policy is not None:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, policy, os.sched_param(0))


def _child(data_r: int, err_w: int, fh: IO[str], fmt: str, ncol: int) -> None:  # pragma: no cover
    # Ctrl-C reaches the whole process group, a launch system's SIGTERM may too: the parent
    # handles them and closes the pipe; the child then writes what it was sent and exits 0 (a
    # failing child would mask the interrupt). It inherited the parent's Python handlers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _batch_priority()
    code = 0
    row_bytes = 8 * ncol
    try:
        try:
            while True:
                head = _read_exact(data_r, _LEN.size)
                if len(head) < _LEN.size:
                    break
                size = _LEN.unpack(head)[0]
                payload = _read_exact(data_r, size)
                whole = len(payload) - len(payload) % row_bytes if row_bytes else 0
                if whole:
                    rows = np.frombuffer(payload[:whole], dtype=np.float64).reshape(-1, ncol)
                    fh.write(format_rows(fmt, rows))
                if len(payload) < size:  # the parent stopped mid-block: keep the whole rows
                    break
        finally:
            fh.close()
    except BaseException as e:  # report anything to the parent, never return into its code
        os.write(err_w, str(e).encode("utf-8", "replace")[:1000])
        code = 1
    finally:
        os._exit(code)
