"""The probe contract: a probe owns some CSV columns and fills them at every step.

A probe's life, as :class:`~mjscope.diagnose.recording.Recorder` drives it:

1. ``columns`` (class attribute): the CSV columns it owns, in order (may be empty).
2. ``bind(model, data, out)`` once before the loop: resolve views into ``data`` (no copies);
   ``out`` is the probe's ``(block_rows, len(columns))`` slice of the recording block.
3. ``sources()`` once after ``bind``: whole MuJoCo arrays to copy raw every step (force
   vectors, ``sensordata``, ...). The recorder copies every probe's sources with one
   :class:`Gather` (one ``np.take`` per MuJoCo allocation), so a probe that only needs arrays
   costs no Python call per step.
4. ``scalars`` (class attribute): names of ``MjData`` scalars (``time``, ``nefc``) to copy
   every step; the recorder reads all probes' scalars with one ``operator.attrgetter`` call.
5. ``read(i)`` after each ``mj_step``, only if the probe overrides it (:func:`reads_per_step`):
   what sources and scalars cannot give, into row ``i`` of its slice. The recorder calls
   ``reader()``'s result, ``read`` itself unless the probe returns a faster closure; or, when
   the probe has a ``watch``, only on the steps where the watched count passes its limit, and
   with a ``sampler``, only every ``every``-th step.
6. ``flush(n, start, raw)`` when a block is full (and at the end): compute the columns of the
   first ``n`` rows, vectorised, from ``raw`` (``(n, k)`` float64 copies of its sources, then
   its scalars; with ``raw_parts``, a list of ``(n, size)`` views of the block, float64 or
   int32 as the source, one per source and scalar: a probe reading little of a large source
   skips its copy).
7. ``close()`` when the rollout completes (a probe writing its own file renames it there),
   ``abort()`` instead when it was interrupted or failed (the partial file stays).
8. ``summary()`` after the loop: what the probe adds to the report (``None``: nothing).

So a new quantity (a sensor, a force term) is a new probe, not a change of the loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import mujoco
import numpy as np

Reader = Callable[[int], None]
"""A per-step read: records the current state into row ``i`` of the block."""


class Column(NamedTuple):
    """One CSV column.

    Attributes:
        name: Column name (no spaces).
        unit: Unit written in brackets in the CSV header (``s``, ``m``, ``count``, ...).
        meaning: One-line physical meaning (the report's column glossary).
        integer: Whole numbers (counts, ids), written without decimals.
    """

    name: str
    unit: str
    meaning: str
    integer: bool = False

    @property
    def header(self) -> str:
        """``name [unit]`` as written in the CSV header."""
        return f"{self.name} [{self.unit}]"


class Probe:
    """Base probe: no columns, nothing to do. Subclasses override what they need."""

    columns: tuple[Column, ...] = ()
    scalars: tuple[str, ...] = ()
    raw_parts = False  # flush gets one array per source and scalar, not one concatenated

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:
        """Resolve views into ``data`` once; ``out`` is this probe's slice of the block.

        Args:
            model: The compiled model.
            data: The data stepped by the rollout.
            out: Writable view ``(block_rows, len(columns))`` into the recording block.
        """
        self.model, self.data, self.out = model, data, out
        self.cells: Any = (
            out.data
        )  # memoryview: scalar writes ``cells[i, j] = x`` without numpy scalars

    def sources(self) -> list[np.ndarray]:
        """C-contiguous float64 views into ``data`` copied raw every step (after ``bind``)."""
        return []

    def read(self, i: int) -> None:
        """Record the current step into row ``i`` of the block.

        Probes that only use ``sources()`` leave this alone; it is then never called.
        """

    def reader(self) -> Reader:
        """The per-step read the recorder calls (after ``bind``): :meth:`read` by default.

        A probe on the hot path returns a closure over its views doing what ``read`` does,
        without the attribute look-ups of a method call (a fraction of a µs per step).
        """
        return self.read

    def watch(self, views: dict[str, np.ndarray]) -> tuple[Any, int, Reader] | None:
        """A per-step read needed only when a count passes a limit (default ``None``).

        Args:
            views: The recorder's ``(1,)`` int32 views of the ``scalars``
                (:func:`~mjscope.diagnose.recording.scalars.scalar_views`; empty when it has
                none).

        Returns:
            ``(count, limit, read)``: the loop calls ``read(i)`` after a step only when
            ``count[0] > limit`` (``count``: a memoryview), instead of :meth:`reader` every
            step; ``None``: :meth:`reader` every step, if the probe reads.
        """
        return None

    def sampler(self) -> tuple[int, Callable[[int], None]] | None:
        """A read needed only every ``every``-th step (default ``None``).

        Returns:
            ``(every, sample)``: the loop calls ``sample(step)`` after each step whose index
            (from 0) is a multiple of ``every``, instead of :meth:`reader` every step.
        """
        return None

    def flush(self, n: int, start: int, raw: np.ndarray) -> None:
        """Fill/post-process the first ``n`` rows of the block before they are written.

        Args:
            n: Rows filled in this block.
            start: Step index (0-based) of the block's first row.
            raw: ``(n, k)`` copies of ``sources()`` per step, flattened in order (k = 0 when
                the probe has none).
        """

    def close(self) -> None:
        """The rollout completed: finish any file of the probe's own (default: nothing)."""

    def abort(self) -> None:
        """The rollout was interrupted or failed: stop writing, never raise (default: nothing)."""

    def summary(self) -> dict[str, Any] | None:
        """What this probe adds to the report (``None``: nothing)."""
        return None


def reads_per_step(probe: Probe) -> bool:
    """Whether ``probe`` overrides :meth:`Probe.read`."""
    return type(probe).read is not Probe.read


class Gather:
    """Copies many MuJoCo arrays per step with one ``np.take`` per allocation.

    Sources (float64 or int32, any strides) are read as 32-bit words: a float64 is two words,
    copied bit for bit. Sources within 64 MiB of each other (the ``mjData`` buffer, struct and
    arena usually are) share a group: a read-only int32 view from the group's lowest address
    plus the word indices. Float64 words come first in a group's row and rows have an even
    word count, so they are viewed back as aligned float64 at flush.

    Args:
        arrays: Views into MuJoCo memory, each kept alive by its ``MjData``.
        rows: Block rows.
    """

    SPAN = 64 * 2**20
    WORD = 4

    def __init__(self, arrays: list[np.ndarray], rows: int) -> None:
        for a in arrays:
            if a.dtype not in (np.dtype(np.float64), np.dtype(np.int32)):
                raise TypeError(f"gather sources must be float64 or int32, got {a.dtype}")
        self.groups: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.where: list[tuple[int, int, int, bool]] = [(0, 0, 0, False)] * len(arrays)
        words = [_words(a) for a in arrays]
        ks = sorted((k for k, a in enumerate(arrays) if a.size), key=lambda k: int(words[k].min()))
        members: list[int] = []
        for k in [*ks, -1]:
            far = (
                k >= 0
                and members
                and int(words[k].max()) - int(words[members[0]].min()) > self.SPAN
            )
            if members and (k < 0 or far):
                self._close_group(members, arrays, words, rows)
                members = []
            if k >= 0:
                members.append(k)

    def _close_group(
        self, members: list[int], arrays: list[np.ndarray], words: list[np.ndarray], rows: int
    ) -> None:
        lo = min(int(words[k].min()) for k in members)
        hi = max(int(words[k].max()) for k in members) + self.WORD
        first = min(members, key=lambda k: int(words[k].min()))
        a0 = arrays[first]
        start = np.unravel_index(int(np.argmin(words[first])) // _per(a0), a0.shape)
        lowest = a0[tuple(slice(i, i + 1) for i in start)]  # (1, ..., 1) view at address lo
        flat = _int32_view(lowest, (hi - lo) // self.WORD)
        # floats first, each kind in source order: a probe's sources of one kind are adjacent
        ordered = sorted(members, key=lambda k: (arrays[k].dtype != np.float64, k))
        idx, off = [], 0
        for k in ordered:
            rel = words[k] - lo
            if np.any(rel % self.WORD):
                raise TypeError("gather sources must be 4-byte aligned")
            idx.append(rel // self.WORD)
            is_float = arrays[k].dtype == np.float64
            self.where[k] = (len(self.groups), off, arrays[k].size, is_float)
            off += rel.size
        width = off + off % 2  # even: float64 rows stay 8-byte aligned
        self.groups.append(
            (flat, np.concatenate(idx).astype(np.intp), np.zeros((rows, width), np.int32))
        )

    def takes(self) -> list[tuple[Callable[..., Any], np.ndarray, list[np.ndarray]]]:
        """Per group: the bound ``take``, its indices and one row view per block row.

        Call it as ``take(idx, None, rows[i], "clip")``: every index is in range by
        construction, and ``clip`` lets NumPy write ``out`` directly (``raise``, the default,
        buffers it: about twice the cost per step).
        """
        return [(flat.take, idx, list(block[:, : idx.size])) for flat, idx, block in self.groups]

    def readers(self) -> list[Reader]:
        """One ``read(i)`` per group, for the per-step loop."""
        out: list[Reader] = []
        for take, idx, rows in self.takes():

            def read(
                i: int, take: Callable[..., Any] = take, idx: np.ndarray = idx, rows: Any = rows
            ) -> None:
                take(idx, None, rows[i], "clip")

            out.append(read)
        return out

    def parts(self, which: list[int], n: int) -> list[np.ndarray]:
        """Raw rows ``(n, size)`` of each array ``which``: float64 or int32 views, no copy."""
        out: list[np.ndarray] = []
        for k in which:
            g, off, size, is_float = self.where[k]
            block = self.groups[g][2] if size else np.zeros((n, 0), np.int32)
            if is_float:
                out.append(block[:n, off : off + 2 * size].view(np.float64))
            else:
                out.append(block[:n, off : off + size])
        return out

    def rows(self, which: list[int], n: int) -> np.ndarray:
        """Raw rows ``(n, sum of sizes)``, float64 C-contiguous, of the arrays ``which``."""
        spans: list[list[int]] = []  # [group, start word, end word, is_float]; adjacent merged
        for k in which:
            g, off, size, is_float = self.where[k]
            if not size:
                continue
            end = off + (2 * size if is_float else size)
            last = spans[-1] if spans else None
            if last is not None and last[0] == g and last[2] == off and last[3] == int(is_float):
                last[2] = end  # the next array of the same kind, right after: one view
            else:
                spans.append([g, off, end, int(is_float)])
        parts = []
        for g, off, end, floats in spans:
            block = self.groups[g][2]
            if floats:
                parts.append(block[:n, off:end].view(np.float64))
            else:
                parts.append(block[:n, off:end].astype(np.float64))
        if len(parts) == 1:  # a contiguous copy: the probes' reductions then read it in order
            return np.ascontiguousarray(parts[0])
        return np.concatenate(parts, axis=1) if parts else np.zeros((n, 0))


def merged(parts: list[np.ndarray]) -> np.ndarray:
    """Parts of one kind side by side ``(n, Σ size)``, as one view where it can.

    A view when they are adjacent columns of one block (as :meth:`Gather.parts` gives a probe's
    sources of one kind), else a copy.
    """
    first = parts[0]
    adjacent = all(
        p.dtype == first.dtype
        and p.strides == first.strides
        and address(p) == address(first) + first.itemsize * sum(q.shape[1] for q in parts[:k])
        for k, p in enumerate(parts)
    )
    if not adjacent:
        return np.concatenate(parts, axis=1)
    width = sum(p.shape[1] for p in parts)
    return np.lib.stride_tricks.as_strided(
        first, shape=(first.shape[0], width), strides=first.strides, writeable=False
    )


def address(a: Any) -> int:
    """The address of an array's first byte (``a`` is viewed as an array, never copied)."""
    return int(np.asarray(a).__array_interface__["data"][0])


def _per(a: np.ndarray) -> int:
    """32-bit words per element of ``a``."""
    return a.itemsize // Gather.WORD


def _words(a: np.ndarray) -> np.ndarray:
    """Byte address of every 32-bit word of ``a`` (element order, low word first)."""
    elems = _element_addresses(a)
    return (elems[:, None] + Gather.WORD * np.arange(_per(a))[None, :]).reshape(-1)


def _int32_view(lowest: np.ndarray, count: int) -> np.ndarray:
    """Read-only int32 view of ``count`` words starting at ``lowest``'s first byte."""
    first_word = lowest.reshape(-1).view(np.uint8)[: Gather.WORD].view(np.int32)  # (1,)
    return np.lib.stride_tricks.as_strided(
        first_word, shape=(count,), strides=(Gather.WORD,), writeable=False
    )


def _element_addresses(a: np.ndarray) -> np.ndarray:
    """Byte address of every element of ``a`` in C order, shape (a.size,)."""
    base = address(a)
    if a.size == 0:
        return np.zeros(0, np.int64)
    grids = (
        np.indices(a.shape, dtype=np.int64).reshape(a.ndim, -1)
        if a.ndim
        else np.zeros((0, 1), np.int64)
    )
    return base + (np.asarray(a.strides, np.int64)[:, None] * grids).sum(axis=0)
