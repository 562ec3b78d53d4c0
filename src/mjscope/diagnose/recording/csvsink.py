"""CSV sinks for the recorder: formatting in this process, or in a forked writer process.

``mj_step`` holds the GIL, so a writer thread cannot overlap with the simulation; a forked
child can. The parent sends each finished block as raw float64 bytes through a pipe (one
memcpy) and goes on stepping while the child formats and writes it. Output is identical
either way: the same format string turns the same numbers into the same bytes.
"""

from __future__ import annotations

import os
import signal
import struct
from pathlib import Path
from typing import IO

import numpy as np

from mjscope.exceptions import OutputError

NUMBER_FORMAT = "%.10g"
INTEGER_FORMAT = "%d"
_LEN = struct.Struct("<Q")


def format_rows(fmt: str, rows: np.ndarray) -> str:
    """CSV text of ``rows`` with a per-row format (one ``%`` call per block: stays in C)."""
    values = tuple(rows.ravel().tolist())
    try:
        return (fmt * len(rows)) % values
    except (ValueError, OverflowError):  # NaN/inf in an integer column: write it as a float
        line = ",".join([NUMBER_FORMAT] * rows.shape[1]) + "\n"
        return (line * len(rows)) % values


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
        """Append rows ``(n, ncol)``."""
        assert self.fh is not None
        self.fh.write(format_rows(self.fmt, rows))

    def close(self) -> None:
        """Flush and close."""
        if self.fh is not None:
            self.fh.close()
            self.fh = None


class ForkedCsvSink:
    """Formats and writes blocks in a forked child process (POSIX only).

    Args:
        path: CSV file.
        header: Header line (no newline).
        fmt: Per-row format ending in a newline.
        ncol: Columns per row.
    """

    def __init__(self, path: Path, header: str, fmt: str, ncol: int) -> None:
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
        self.path = path

    def write(self, rows: np.ndarray) -> None:
        """Send rows ``(n, ncol)`` to the writer."""
        payload = np.ascontiguousarray(rows, dtype=np.float64).data.cast("B")
        _write_all(self._w, _LEN.pack(len(payload)))
        _write_all(self._w, payload)

    def close(self) -> None:
        """Signal the end, wait for the writer and raise if it failed."""
        if self.pid <= 0:
            return
        os.close(self._w)
        _, status = os.waitpid(self.pid, 0)
        self.pid = -1
        with os.fdopen(self._err_r, "rb") as f:
            err = f.read().decode("utf-8", "replace")
        if os.waitstatus_to_exitcode(status) != 0:
            raise OutputError(f"writing CSV {str(self.path)!r} failed: {err or status}")


def make_sink(
    path: Path, header: str, fmt: str, ncol: int, forked: bool
) -> CsvSink | ForkedCsvSink:
    """A forked sink when asked and possible (``os.fork`` works), else an in-process one."""
    if forked and hasattr(os, "fork"):
        try:
            return ForkedCsvSink(path, header, fmt, ncol)
        except OSError:  # only fork itself can fail here: open_csv raises OutputError
            pass
    return CsvSink(path, header, fmt)


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


def _child(data_r: int, err_w: int, fh: IO[str], fmt: str, ncol: int) -> None:  # pragma: no cover
    # Ctrl-C reaches the whole process group: the parent handles it and closes the pipe, the
    # child then writes what it was sent and exits 0 (a failing child would mask the interrupt).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    code = 0
    try:
        while True:
            head = _read_exact(data_r, _LEN.size)
            if len(head) < _LEN.size:
                break
            payload = _read_exact(data_r, _LEN.unpack(head)[0])
            rows = np.frombuffer(payload, dtype=np.float64).reshape(-1, ncol)
            fh.write(format_rows(fmt, rows))
        fh.close()
    except BaseException as e:  # report anything to the parent, never return into its code
        os.write(err_w, str(e).encode("utf-8", "replace")[:1000])
        code = 1
    finally:
        os._exit(code)
