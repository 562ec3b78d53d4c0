"""Sampled contacts → per geom pair totals, a block of samples at a time (vectorised).

:class:`~mjscope.diagnose.probes.contact_detail.ContactDetailProbe` captures each sampled
step's contacts as rows of a buffer (:data:`FIELDS`; in C by the compiled loop, else in
Python) and hands them here in step order. Per step and geom pair: the normal and tangential
forces summed over the pair's contacts (in contact order), the smallest ``dist``, the largest
slip speed, whether the pair slides; per pair over the run: samples, sliding samples (all and in
the second half), largest and summed normal force, largest tangential force and
``|f_t|/(μ f_n)``, smallest ``dist``, the last sampled step and whether it slid. NaN never wins
a largest/smallest.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SLIP_TOL = 0.02  # friction counts as saturated within 2 % of μ·f_n [1]
SLIP_SPEED = 1e-3  # frictionless contacts slide above this tangential speed [m/s]
MIN_NORMAL = 1e-6  # contacts with a smaller normal force carry nothing [N]

# a captured contact's row
FIELDS = ("step", "k", "g1", "g2", "dist", "dim", "mu", "fn", "f1", "f2", "vt", "time")
(STEP, K, G1, G2, DIST, DIM, MU, FN, F1, F2, VT, TIME) = range(len(FIELDS))
PARAMS = slice(len(FIELDS), len(FIELDS) + 12)  # friction (5), solref (2), solimp (5)
WIDTH = len(FIELDS) + 12

# per-pair totals, columns of PairTotals.acc
(N, SLIDE, LATE, LATE_SLIDE, FN_MAX, FN_SUM, FT_MAX, RATIO_MAX, DIST_MIN, LAST,
 LAST_SLIDE) = range(11)  # fmt: skip


class Groups:
    """One block's rows grouped by (step, pair), groups in order of first appearance.

    Attributes:
        first: Row of each group's first contact.
        of_row: Each row's group.
        fn, ft, dmin, vmax: Per group: summed normal and tangential force [N], smallest
            ``dist`` [m], largest slip speed [m/s] (``-inf`` without one).
        ratio, sliding: Per group ``|f_t|/(μ f_n)`` (0 where undefined) and the slide test.
        ft_rows: Each row's ``|f_t|`` [N].
    """

    def __init__(self, rows: np.ndarray) -> None:
        step = rows[:, STEP].astype(np.int64)
        g1, g2 = rows[:, G1].astype(np.int64) + 1, rows[:, G2].astype(np.int64) + 1
        span = int(max(g1.max(), g2.max())) + 1
        key = (step * span + g1) * span + g2
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")  # groups in order of first appearance
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        self.first, self.of_row = first[order], rank[inverse.reshape(-1)]
        n = self.first.size
        self.ft_rows = np.hypot(rows[:, F1], rows[:, F2])
        self.fn, self.ft = np.zeros(n), np.zeros(n)
        np.add.at(self.fn, self.of_row, rows[:, FN])  # in row order, as a running sum
        np.add.at(self.ft, self.of_row, self.ft_rows)
        self.dmin, self.vmax = np.full(n, np.inf), np.full(n, -np.inf)
        np.fmin.at(self.dmin, self.of_row, rows[:, DIST])
        np.fmax.at(self.vmax, self.of_row, rows[:, VT])
        head = rows[self.first]
        dim, mu = head[:, DIM], head[:, MU]
        carries = self.fn > MIN_NORMAL
        friction = carries & (mu > 0) & (dim > 1)
        with np.errstate(all="ignore"):
            self.ratio = np.where(friction, self.ft / (mu * self.fn), 0.0)
        self.sliding = carries & np.where(
            dim > 1, self.ratio >= 1.0 - SLIP_TOL, self.vmax > SLIP_SPEED
        )


class PairTotals:
    """Per geom pair totals over the run, in order of first appearance.

    Args:
        late_from: First step of the run's second half.
    """

    def __init__(self, late_from: int) -> None:
        self.late_from = late_from
        self.index: dict[tuple[int, int], int] = {}
        self.params: list[dict[str, Any]] = []
        self.acc = np.zeros((0, 11))

    def add(self, rows: np.ndarray) -> Groups:
        """Take a block of captured rows (step order) into the totals; return its groups."""
        grp = Groups(rows)
        head = rows[grp.first]
        pair = self._pairs(head)  # (groups,) pair index
        acc = self.acc
        late = head[:, STEP] >= self.late_from
        np.add.at(acc[:, N], pair, 1.0)
        np.add.at(acc[:, SLIDE], pair, grp.sliding.astype(float))
        np.add.at(acc[:, LATE], pair, late.astype(float))
        np.add.at(acc[:, LATE_SLIDE], pair, (late & grp.sliding).astype(float))
        np.fmax.at(acc[:, FN_MAX], pair, grp.fn)
        np.add.at(acc[:, FN_SUM], pair, grp.fn)
        np.fmax.at(acc[:, FT_MAX], pair, grp.ft)
        np.fmax.at(acc[:, RATIO_MAX], pair, grp.ratio)
        np.fmin.at(acc[:, DIST_MIN], pair, grp.dmin)
        last = np.full(acc.shape[0], -1)
        np.maximum.at(last, pair, np.arange(pair.size))
        seen = last >= 0
        acc[seen, LAST] = head[last[seen], STEP]
        acc[seen, LAST_SLIDE] = grp.sliding[last[seen]]
        return grp

    def _pairs(self, head: np.ndarray) -> np.ndarray:
        """Each group's pair index; pairs seen for the first time get a row and parameters."""
        out = np.empty(head.shape[0], np.int64)
        index = self.index
        new: list[np.ndarray] = []
        for j, (g1, g2) in enumerate(head[:, G1 : G2 + 1].astype(np.int64).tolist()):
            p = index.get((g1, g2))
            if p is None:
                p = index[(g1, g2)] = len(index)
                new.append(head[j])
            out[j] = p
        if new:
            fresh = np.zeros((len(new), 11))
            fresh[:, DIST_MIN] = np.inf
            self.acc = np.concatenate([self.acc, fresh])
            for r in new:
                prm = r[PARAMS].tolist()
                self.params.append(
                    {"condim": int(r[DIM]), "friction": prm[:5], "solref": prm[5:7],
                     "solimp": prm[7:12]}
                )  # fmt: skip
        return out

    def rows(self) -> list[tuple[tuple[int, int], dict[str, Any], list[float]]]:
        """(pair, parameters, totals) of every pair, in order of first appearance."""
        acc = self.acc.tolist()
        return [(key, self.params[p], acc[p]) for key, p in self.index.items()]
