"""Views of ``mjData``'s scalar fields (``time``, ``ncon``, ``nefc``, ...) as 1-element arrays.

The bindings give these scalars as Python numbers only: reading them per step costs a
Python call (an ``attrgetter``) where the arrays of the recording cost nothing but their share
of the recorder's one ``np.take``. The scalars live in the ``mjData`` struct between two of
its arrays the bindings do expose as views (``solver_niter`` … ``energy`` in MuJoCo 3.x), so
each is found there by writing a sentinel into it and searching that span for it; the old
values are restored and read back through the views before they are used. Where a field is
not in the span, or not exactly once (another MuJoCo layout), :func:`scalar_views` returns
``None`` and the recorder reads the scalars per step as before: the same numbers either way.
"""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.diagnose.probes.base import address

FLOAT_FIELDS = frozenset({"time"})  # mjtNum scalars; the others are int
_SENTINEL_INT = 0x3A5C_6E00  # + k: a value no count of a real run takes
_SENTINEL_FLOAT = 7.3e11  # + k·0.5: exact in float64, never a simulation time [s]


def scalar_views(data: mujoco.MjData, names: tuple[str, ...]) -> dict[str, np.ndarray] | None:
    """Read-only views ``(1,)`` of the scalars ``names`` of ``data``, or ``None``.

    ``int`` fields give int32 views, ``time`` a float64 one. ``data`` is unchanged on return.
    """
    lo_arr, hi_arr = data.solver_niter, data.energy
    lo = address(lo_arr)
    span = address(hi_arr) + hi_arr.nbytes - lo  # [B]
    if not names or not 0 < span <= 1 << 16 or span % 4:
        return None
    words = _words(lo_arr, span // 4)  # (span / 4,) int32, read-only
    saved = {n: getattr(data, n) for n in names}
    try:
        found = {n: _find(data, words, n, k) for k, n in enumerate(saved)}
    finally:
        for n, v in saved.items():
            setattr(data, n, v)
    if any(off is None for off in found.values()):
        return None
    views = {n: _view(words, off, n in FLOAT_FIELDS) for n, off in found.items() if off is not None}
    if any(views[n][0] != v for n, v in saved.items()):  # pragma: no cover - defensive
        return None
    return views


def _find(data: mujoco.MjData, words: np.ndarray, name: str, k: int) -> int | None:
    """The word offset of ``name`` in ``words``: where its sentinel appears exactly once."""
    if name in FLOAT_FIELDS:
        value = _SENTINEL_FLOAT + 0.5 * k
        setattr(data, name, value)
        lo_w, hi_w = np.array([value]).view(np.int32)
        hits = np.flatnonzero((words[:-1] == lo_w) & (words[1:] == hi_w))
        hits = hits[(address(words) + 4 * hits) % 8 == 0]  # an aligned double
    else:
        value = _SENTINEL_INT + k
        setattr(data, name, value)
        hits = np.flatnonzero(words == value)
    return int(hits[0]) if hits.size == 1 else None


def _view(words: np.ndarray, off: int, is_float: bool) -> np.ndarray:
    """The ``(1,)`` view at word ``off``: int32, or float64 from two words."""
    return words[off : off + 2].view(np.float64) if is_float else words[off : off + 1]


def _words(first: np.ndarray, count: int) -> np.ndarray:
    """Read-only int32 view of ``count`` words from ``first``'s first byte."""
    word = first.reshape(-1)[:1].view(np.uint8)[:4].view(np.int32)  # (1,)
    return np.lib.stride_tricks.as_strided(word, shape=(count,), strides=(4,), writeable=False)
