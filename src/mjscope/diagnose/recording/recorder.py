"""Block recorder: probes fill a preallocated block, full blocks stream to CSV.

Per step the loop costs one ``np.take`` (every probe's raw sources, see
:class:`~mjscope.diagnose.probes.base.Gather`), one ``attrgetter`` call for every probe's
``scalars`` (``time``, ``nefc``, ...) and the few probes that still read per step; columns are
computed per block, vectorised. Long CSV runs are formatted in a forked writer when a core is
free for it (:func:`~mjscope.diagnose.recording.csvsink.fork_writer`), short ones and those on
a busy machine in this process.

Memory is bounded by the block (``block_rows`` × columns), a decimated preview for plots
(at most ``preview_points`` rows) and per-column running statistics, whatever the number of
steps; the raw per-step copies are capped at :data:`RAW_BLOCK_BYTES` (a model with 10⁵ DOFs
gets shorter blocks, not gigabytes). The CSV header names each column with its unit
(``com_z [m]``); numbers are written with ``%.10g``, so identical runs give byte-identical
files.

The CSV goes to its partial file (:func:`~mjscope.diagnose.outputs.partial_path`) and is
renamed over the target by :meth:`Recorder.close`; :meth:`Recorder.abort` (an interrupted or
failed rollout) stops the writer and leaves the partial file with the rows recorded so far.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, cast

import mujoco
import numpy as np

from mjscope.diagnose.outputs import Interrupted, commit, partial_path
from mjscope.diagnose.probes.base import Column, Gather, Probe, Reader, reads_per_step
from mjscope.diagnose.recording.csvsink import INTEGER_FORMAT, NUMBER_FORMAT, make_sink
from mjscope.diagnose.recording.scalars import scalar_views
from mjscope.exceptions import OutputError

RAW_BLOCK_BYTES = 64 * 2**20  # cap on the raw per-step copies held for one block [B]


class FastPlan(NamedTuple):
    """The loop's per-step work without the readers (:meth:`Recorder.bind`).

    Attributes:
        take: The gather group's bound ``np.take``; call ``take(idx, None, rows[i], "clip")``.
        idx: Its word indices.
        rows: One row view per block row.
        reads: At most two per-step readers (``read(i)``).
        watch: ``(count, limit, read)``: ``read(i)`` only when ``count[0] > limit``
            (``count``: a memoryview of an int32 scalar), or ``None``.
        sampler: ``(every, sample)``: ``sample(step)`` after every ``every``-th step, or
            ``None``.
        more: The further gather groups' ``(take, idx, rows)`` (MuJoCo's allocations more
            than :attr:`~mjscope.diagnose.probes.base.Gather.SPAN` apart: the struct, the
            buffer and the arena may be), usually none.
    """

    take: Callable[..., Any]
    idx: np.ndarray
    rows: Sequence[Any]
    reads: list[Reader]
    watch: tuple[Any, int, Reader] | None
    sampler: tuple[int, Callable[[int], None]] | None = None
    more: tuple[tuple[Callable[..., Any], np.ndarray, Sequence[Any]], ...] = ()


class Recorder:
    """Owns the block, the probes' column slices, the CSV stream and the statistics.

    Args:
        probes: Probes in column order.
        csv_path: CSV file to stream to (``None``: no file).
        total_steps: Planned number of steps (sets the preview stride).
        block_rows: Rows per block.
        preview_points: Upper bound on rows kept for plots.
    """

    def __init__(
        self,
        probes: list[Probe],
        csv_path: str | Path | None,
        total_steps: int,
        block_rows: int = 4096,
        preview_points: int = 4000,
    ) -> None:
        self.probes = probes
        self.columns: list[Column] = [c for p in probes for c in p.columns]
        # (block_rows, ncols), column-major: probes fill columns, the statistics reduce them
        self.block = np.zeros((block_rows, len(self.columns)), order="F")
        self.rows = block_rows
        self.stride = max(1, math.ceil(total_steps / preview_points))
        self._preview: list[np.ndarray] = []
        self.steps = 0
        ncol = len(self.columns)
        self.lo, self.hi = np.full(ncol, np.inf), np.full(ncol, -np.inf)
        self.total, self.last = np.zeros(ncol), np.full(ncol, np.nan)
        self.path = Path(csv_path) if csv_path is not None else None
        self.partial = partial_path(self.path) if self.path is not None else None
        self.flushing = False  # inside flush: an interrupt there must not flush the block again
        fmt = ",".join(INTEGER_FORMAT if c.integer else NUMBER_FORMAT for c in self.columns) + "\n"
        header = ",".join(c.header for c in self.columns)
        self._sink = (
            make_sink(self.partial, header, fmt, ncol, forked=total_steps >= 2 * block_rows)
            if self.partial
            else None
        )

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData) -> list[Reader]:
        """Bind every probe to its block slice; return the per-step read functions in order.

        The raw gathers of all probes' ``sources()`` (and, through
        :func:`~mjscope.diagnose.recording.scalars.scalar_views`, their ``scalars``) come
        first, then each probe's ``read``. When one block of raw copies would exceed
        :data:`RAW_BLOCK_BYTES`, the block is shortened (``rows`` changes) and the probes are
        bound again. :attr:`fast` is then set for the loop where it can do without the readers.
        """
        names = tuple(dict.fromkeys(n for p in self.probes for n in p.scalars))
        self._views = scalar_views(data, names) if names else {}
        self._scalar_rows: list[tuple[Any, ...]] = []
        self._scalar_slices: list[slice] = []
        k = 0
        for p in self.probes:
            self._scalar_slices.append(slice(k, k + len(p.scalars)))
            k += len(p.scalars)
        arrays = self._bind_probes(model, data)
        raw = sum(a.nbytes for a in arrays) + 8 * len(self.columns)  # [B] per row
        rows = max(1, min(self.rows, RAW_BLOCK_BYTES // max(raw, 1)))
        if rows < self.rows:
            self.rows = rows
            self.block = np.zeros((rows, len(self.columns)), order="F")
            arrays = self._bind_probes(model, data)
        self.gather = Gather(arrays, self.rows)
        tap = self._scalar_tap(data) if self._views is None else []
        reads: list[Reader] = [p.reader() for p in self.probes if reads_per_step(p)]
        takes = self.gather.takes()
        self.fast = self._fast_plan(takes, tap)
        if len(takes) == 1 and tap:  # the usual case: one Python call per step does it all
            return [_fused(*takes[0], tap[0], reads)]
        return self.gather.readers() + tap + reads

    def _fast_plan(self, takes: list[Any], tap: list[Reader]) -> FastPlan | None:
        """What the loop does per step instead of the readers, where it can (else ``None``).

        Any number of gather groups, the scalars in them, every per-step read either a watch
        (called only when its count passes its limit), a sampler (every ``every``-th step) or
        one of at most two other readers.
        """
        views = self._views or {}
        watched = [(p, w) for p in self.probes if (w := p.watch(views)) is not None]
        sampled = [(p, s) for p in self.probes if (s := p.sampler()) is not None]
        watches, samplers = [w for _, w in watched], [s for _, s in sampled]
        skip = {id(p) for p, _ in watched} | {id(p) for p, _ in sampled}
        self.reading = [p for p in self.probes if reads_per_step(p) and id(p) not in skip]
        reads = [p.reader() for p in self.reading]
        if not takes or tap or len(reads) > 2 or len(watches) > 1:
            return None
        if len(samplers) > 1:
            return None
        take, idx, rows = takes[0]
        return FastPlan(
            take, idx, rows, reads, watches[0] if watches else None,
            samplers[0] if samplers else None, tuple(takes[1:]),
        )  # fmt: skip

    def _scalar_tap(self, data: mujoco.MjData) -> list[Reader]:
        """One reader for every probe's ``scalars``: a single ``attrgetter`` call per step."""
        names = [n for p in self.probes for n in p.scalars]
        if not names:
            return []
        get = operator.attrgetter(*names)
        append = self._scalar_rows.append
        if len(names) == 1:

            def tap1(i: int) -> None:
                append((get(data),))

            return [tap1]

        def tap(i: int) -> None:
            append(get(data))

        tap.fast = (get, data, append)  # type: ignore[attr-defined]
        return [tap]

    def _bind_probes(self, model: mujoco.MjModel, data: mujoco.MjData) -> list[np.ndarray]:
        off = 0
        arrays: list[np.ndarray] = []
        self._owned: list[list[int]] = []
        for p in self.probes:
            k = len(p.columns)
            p.bind(model, data, self.block[:, off : off + k])
            off += k
            src = p.sources()
            if self._views is not None:  # the scalars after the sources, as flush expects
                src = src + [self._views[n] for n in p.scalars]
            self._owned.append(list(range(len(arrays), len(arrays) + len(src))))
            arrays += src
        return arrays

    def flush(self, n: int) -> None:
        """Finish the first ``n`` rows: probes post-process, stats update, CSV append.

        NaN and inf (a diverging run) are recorded as they are, without NumPy warnings.
        """
        if n == 0:
            return
        self.flushing = True
        with np.errstate(all="ignore"):
            scalars = self._scalars(n)
            for p, owned, sl in zip(self.probes, self._owned, self._scalar_slices, strict=True):
                if p.raw_parts:
                    p.flush(n, self.steps, cast(Any, self._parts(owned, n, scalars, sl)))
                    continue
                raw = self.gather.rows(owned, n)
                if p.scalars and scalars is not None:
                    raw = (
                        np.concatenate([raw, scalars[:, sl]], axis=1)
                        if raw.size
                        else scalars[:, sl]
                    )
                p.flush(n, self.steps, raw)
            rows = self.block[:n]
            np.fmin(self.lo, np.fmin.reduce(rows, axis=0), out=self.lo)  # fmin/fmax skip NaN
            np.fmax(self.hi, np.fmax.reduce(rows, axis=0), out=self.hi)
            total = rows.sum(axis=0)
            if not np.isfinite(total).all():  # a diverging run: NaN/inf rows are skipped
                total = np.nansum(rows, axis=0)
            self.total += total
        self.last = rows[n - 1].copy()
        first = (-self.steps) % self.stride
        self._preview.append(rows[first :: self.stride].copy())
        if self._sink is not None:
            self._sink.write(rows)
        self.steps += n
        self.flushing = False

    def _parts(
        self, owned: list[int], n: int, scalars: np.ndarray | None, sl: slice
    ) -> list[np.ndarray]:
        """A ``raw_parts`` probe's raw: one ``(n, size)`` array per source, then per scalar."""
        parts = self.gather.parts(owned, n)
        if scalars is not None:  # tapped, not gathered
            parts += [scalars[:, k : k + 1] for k in range(sl.start, sl.stop)]
        return parts

    def _scalars(self, n: int) -> np.ndarray | None:
        """The tapped scalars of ``n`` rows ``(n, k)``; ``None`` when the gather has them."""
        if self._views is not None:
            return None
        width = len(self._scalar_rows[0]) if self._scalar_rows else 0
        scalars = np.fromiter(
            itertools.chain.from_iterable(self._scalar_rows), float, n * width
        ).reshape(n, width)
        self._scalar_rows.clear()
        return scalars

    def close(self) -> Path | None:
        """Finish the CSV (waits for a forked writer) and rename it over the target.

        Returns:
            The CSV written, or ``None`` without one.

        Raises:
            OutputError: The writer failed; the rows it wrote stay in the partial file and an
                earlier CSV of that name is unchanged.
            Interrupted: Ctrl-C while waiting for the writer (the partial file stays).
        """
        for p in self.probes:
            p.close()
        if self._sink is None or self.path is None or self.partial is None:
            return None
        sink, self._sink = self._sink, None
        try:
            sink.close()
        except OutputError as e:
            raise OutputError(
                f"{e}; the rows written so far are in {self.partial}, {self.path} is unchanged"
            ) from e
        except KeyboardInterrupt as e:  # while waiting for the writer: stop it, keep the rows
            sink.abort()
            raise Interrupted(((self.partial, self.path),)) from e
        return commit(self.partial, self.path)

    def abort(self) -> Path | None:
        """Stop the CSV after an interrupt or a failure: never hangs, never renames.

        Returns:
            The partial file with the rows recorded so far (``None`` without a CSV).
        """
        for p in self.probes:
            p.abort()
        if self._sink is None:
            return None
        sink, self._sink = self._sink, None
        sink.abort()
        return self.partial if self.partial is not None and self.partial.exists() else None

    def preview(self) -> np.ndarray:
        """Decimated rows (every ``stride``-th step), shape (≤ preview_points, ncols)."""
        if not self._preview:
            return np.zeros((0, len(self.columns)))
        return np.concatenate(self._preview)

    def column_stats(self) -> list[dict[str, Any]]:
        """Per column: name, unit, meaning, min, max, mean, final."""
        out = []
        for k, c in enumerate(self.columns):
            n = max(self.steps, 1)
            out.append(
                {
                    "name": c.name,
                    "unit": c.unit,
                    "meaning": c.meaning,
                    "min": _num(self.lo[k]),
                    "max": _num(self.hi[k]),
                    "mean": _num(self.total[k] / n) if self.steps else None,
                    "final": _num(self.last[k]),
                }
            )
        return out


def _fused(
    take: Callable[..., Any],
    idx: np.ndarray,
    rows: list[np.ndarray],
    tap: Reader,
    reads: list[Reader],
) -> Reader:
    """One reader doing a group's gather, the scalar tap and the probes' reads."""
    tap_get = getattr(tap, "fast", None)
    if tap_get is not None and len(reads) <= 3:
        get, data, append = tap_get
        r0, r1, r2 = [*reads, _noop, _noop, _noop][:3]

        def fused(i: int) -> None:
            take(idx, None, rows[i], "clip")
            append(get(data))
            r0(i)
            r1(i)
            r2(i)

        return fused

    def fused_any(i: int) -> None:
        take(idx, None, rows[i], "clip")
        tap(i)
        for rd in reads:
            rd(i)

    return fused_any


def _noop(i: int) -> None:
    return None


def _num(x: float) -> float | None:
    """JSON-safe float (``None`` for NaN/inf)."""
    return float(x) if math.isfinite(x) else None
