"""Contact probe: contact count, deepest penetration and its geom pair, condim counts."""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.contacts import geom_sizes, solimp_width
from mjscope.diagnose.names import geom_name
from mjscope.diagnose.probes.base import Column, Probe, Reader

ROLLING_FRACTION = 0.01  # rolling friction [m] below this fraction of the geom size: negligible


class ContactViews:
    """Fixed views of the first contact slots of ``data``.

    ``dist``, ``geom`` (as ``geom1``, ``geom2``), ``dim``, ``exclude`` and ``mu`` (the first
    ``friction`` coefficient).


    MuJoCo always places the contact array at the start of ``mjData.arena``
    (``mj_clearEfc``: ``d->contact = (mjContact*) d->arena``), and the bindings expose that
    pointer and the ``mjContact`` stride even when ``ncon`` is 0, so views built once stay
    valid for the life of ``data``.

    Args:
        data: The data (kept alive by the views' owner).
        slots: Number of contact slots to view.
    """

    def __init__(self, data: mujoco.MjData, slots: int) -> None:
        con = data.contact
        dist, geom, dim = con.dist, con.geom, con.dim
        stride = dist.strides[0]
        if geom.strides[0] != stride or dim.strides[0] != stride:  # pragma: no cover
            raise RuntimeError("unexpected mjContact layout in this MuJoCo build")
        slots = max(1, min(slots, int(data.narena) // stride))
        strided = np.lib.stride_tricks.as_strided
        self.dist = strided(dist, shape=(slots,), strides=(stride,), writeable=False)
        g = strided(geom, shape=(slots, 2), strides=(stride, geom.strides[1]), writeable=False)
        self.geom1, self.geom2 = g[:, 0], g[:, 1]
        self.dim = strided(dim, shape=(slots,), strides=(stride,), writeable=False)
        exclude, friction = con.exclude, con.friction
        self.exclude = strided(exclude, shape=(slots,), strides=(stride,), writeable=False)
        self.mu = strided(friction, shape=(slots,), strides=(stride,), writeable=False)  # [0]
        self.slots = slots


class ContactProbe(Probe):
    """``ncon``, deepest penetration and its geom pair; counts contact dimensions.

    The first ``slots`` contacts and ``ncon`` are gathered raw each step and reduced per block;
    a step with more contacts is read directly (the loop's watch on ``ncon``). Condim-6
    contacts whose rolling-friction coefficient is below :data:`ROLLING_FRACTION` of the
    smaller geom's size are counted apart
    (``condim6_negligible_rolling``): the friction mixed as MuJoCo does for geom pairs (the
    higher ``priority`` wins, else the larger coefficient).

    Args:
        slots: Contacts gathered per step without a Python call.
    """

    columns = (
        Column("ncon", "count", "number of active contacts", True),
        Column("pen_max", "m", "deepest penetration this step (0 when nothing overlaps)"),
        Column("pen_geom1", "id", "first geom of the deepest contact (-1: none)", True),
        Column("pen_geom2", "id", "second geom of the deepest contact (-1: none)", True),
    )

    raw_parts = True  # the block's rows use the first few slots: no copy of the others

    def __init__(self, slots: int = 16) -> None:
        self.slots = slots
        self.condim_counts: dict[int, int] = {}
        self.negligible6 = 0
        self.worst: dict[tuple[int, int], float] = {}
        self.overflow: dict[int, tuple[float, int, int, np.ndarray, np.ndarray]] = {}

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        self.views = ContactViews(data, self.slots)
        # per geom, with a last entry for index -1 (a flex): rolling friction, priority, size
        self.sizes = np.append(geom_sizes(model), np.inf)
        self.rolling = np.append(model.geom_friction[:, 2], 0.0)
        self.priority = np.append(model.geom_priority, np.iinfo(np.int32).min)

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        v = self.views
        return [v.dist, v.geom1, v.geom2, v.dim]

    scalars = ("ncon",)

    def read(self, i: int) -> None:  # noqa: D102
        self.reader()(i)

    def reader(self) -> Reader:  # noqa: D102
        data, slots, overflow = self.data, self.views.slots, self._overflow

        def read(i: int) -> None:
            if data.ncon > slots:
                overflow(i)

        return read

    def watch(self, views: dict[str, np.ndarray]) -> tuple[Any, int, Reader] | None:
        """``ncon`` past the gathered slots: the overflow read (see :meth:`Probe.watch`)."""
        count = views.get("ncon")
        return None if count is None else (count.data, self.views.slots, self._overflow)

    def _overflow(self, i: int) -> None:
        """Row ``i`` has more contacts than the gathered slots: keep what the flush needs."""
        c = self.data.contact
        k = int(c.dist.argmin())
        g = c.geom[k]
        self.overflow[i] = (float(-c.dist[k]), int(g[0]), int(g[1]), c.dim.copy(), c.geom.copy())

    def flush(self, n: int, start: int, raw: Any) -> None:  # noqa: D102
        s = self.views.slots
        ncon = self.out[:n, 0]
        ncon[:] = raw[4][:, 0]  # the scalar after the four gathered fields
        w = max(1, min(s, int(ncon.max()) if n else 1))  # slots any row of the block uses
        dist, g1, g2, dim = (a[:, :w] for a in raw[:4])
        live = np.arange(w)[None, :] < ncon[:, None]  # (n, w)
        k = np.where(live, dist, np.inf).argmin(axis=1)
        rows = np.arange(n)
        has = ncon > 0
        self.out[:n, 1] = np.where(has, np.maximum(0.0, -dist[rows, k]), 0.0)
        self.out[:n, 2] = np.where(has, g1[rows, k], -1)
        self.out[:n, 3] = np.where(has, g2[rows, k], -1)
        self._count(dim[live], g1[live], g2[live])
        for i, (pen, a, b, dims, geoms) in self.overflow.items():
            self.out[i, 1:4] = (max(0.0, pen), a, b)
            self._count(dims[s:], geoms[s:, 0], geoms[s:, 1])
        self.overflow.clear()
        self._update_worst(n)

    def _count(self, dim: np.ndarray, g1: np.ndarray, g2: np.ndarray) -> None:
        """Add contacts (condim, geom ids; any shape, same for all) to the condim counts."""
        counts = np.bincount(dim.astype(np.intp).reshape(-1))  # condims are 1..6
        for v in np.flatnonzero(counts).tolist():
            self.condim_counts[v] = self.condim_counts.get(v, 0) + int(counts[v])
        six = dim == 6
        if six.any():
            a, b = g1[six].astype(np.int64), g2[six].astype(np.int64)
            pa, pb = self.priority[a], self.priority[b]
            ra, rb = self.rolling[a], self.rolling[b]
            roll = np.where(pa > pb, ra, np.where(pa < pb, rb, np.maximum(ra, rb)))
            size = np.minimum(self.sizes[a], self.sizes[b])
            self.negligible6 += int(np.count_nonzero(roll < ROLLING_FRACTION * size))

    def _update_worst(self, n: int) -> None:
        rows = self.out[:n]
        hit = rows[:, 2] >= 0
        if not hit.any():
            return
        ng = self.model.ngeom + 1
        pairs = (rows[hit, 2].astype(np.int64) + 1) * ng + rows[hit, 3].astype(np.int64) + 1
        keys, inv = np.unique(pairs, return_inverse=True)
        best = np.full(len(keys), -1.0)
        np.maximum.at(best, inv.reshape(-1), rows[hit, 1])
        for key, pen in zip(keys.tolist(), best.tolist(), strict=True):
            pair = (key // ng - 1, key % ng - 1)
            if pen > self.worst.get(pair, -1.0):
                self.worst[pair] = pen

    def summary(self) -> dict[str, Any]:  # noqa: D102
        m = self.model
        pairs = sorted(self.worst.items(), key=lambda kv: -kv[1])[:10]
        return {
            "condim_counts": {str(k): v for k, v in sorted(self.condim_counts.items())},
            "condim6_negligible_rolling": self.negligible6,
            "worst_pairs": [
                {
                    "geom1": geom_name(m, g1),
                    "geom2": geom_name(m, g2),
                    "max_penetration_m": pen,
                    "smaller_geom_size_m": float(min(self.sizes[g1], self.sizes[g2])),
                    "solimp_width_m": solimp_width(m, g1, g2),
                }
                for (g1, g2), pen in pairs
            ],
        }
