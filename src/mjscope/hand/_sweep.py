"""The swept advance of the penetration projection (see :mod:`mjscope.hand.projection`)."""

from __future__ import annotations

import math

import numpy as np

from mjscope.hand._contacts import NONE, ContactCheck
from mjscope.hand._groups import JointGroups


class SweptAdvance:
    """Moves joint groups from one pose toward another, stopping chains where they touch.

    A state is a fraction per joint group (0: ``q_from``, 1: ``q_to``).

    Args:
        check: Contact evaluation.
        groups: Joint groups of the hand.
        nq: Size of ``qpos``.
        tol: Allowed penetration [m].
        iters: Bisection halvings per blocked sub-step.
        sweep_step: Largest joint move between two checked poses [rad].
    """

    def __init__(
        self,
        check: ContactCheck,
        groups: JointGroups,
        nq: int,
        tol: float,
        iters: int,
        sweep_step: float,
    ) -> None:
        self.check, self.tol, self.iters, self.step = check, tol, iters, sweep_step
        n_chains = check.n_chains
        self.chain_groups = [np.flatnonzero(groups.chain == c) for c in range(n_chains)]
        self._adr = np.concatenate(groups.adr) if groups.adr else np.zeros(0, np.intp)
        self._adr_group = np.full(nq, len(groups.adr), dtype=np.intp)  # last: not a group
        for g, adr in enumerate(groups.adr):
            self._adr_group[adr] = g
        self._frac = np.ones(len(groups.adr) + 1)  # scratch: fractions, then 1 for "none"
        self._mov = np.zeros(len(groups.adr) + 1, dtype=bool)  # scratch: moving, then "none"
        self._group_chain = np.where(groups.chain >= 0, groups.chain, n_chains)  # (n_groups,)
        self._unchained = self._group_chain == n_chains  # (n_groups,) joints outside chains
        self._grouped = self._adr_group < len(groups.adr)  # (nq,) entries a group moves

    def pose(self, q_from: np.ndarray, q_to: np.ndarray, f: np.ndarray) -> np.ndarray:
        """``(nq,)`` the pose at group fractions ``f`` (exactly ``q_to`` where ``f = 1``)."""
        return self._pose(q_to, q_to - q_from, f)

    def _rows(
        self,
        q0: np.ndarray,
        q_to: np.ndarray,
        dq: np.ndarray,
        f: np.ndarray,
        moving: np.ndarray,
        ts: np.ndarray,
        every: bool,
    ) -> np.ndarray:
        """``(len(ts), nq)`` sub-step poses: moving groups at each ``t``, the others at ``f``.

        All moving (``every``): ``q0 + t · (q_to − q0)`` (the goal itself at ``t = 1``); else
        as :meth:`_pose` (the same arithmetic, so a pose and its cache key are the same).
        """
        if every:
            rows = q0 + ts[:, None] * (q_to - q0)
            if ts[-1] == 1.0:
                rows[-1] = q_to
            return rows
        self._frac[:-1] = f
        self._mov[:-1] = moving
        frac = np.where(self._mov[self._adr_group], ts[:, None], self._frac[self._adr_group])
        return q_to - (1.0 - frac) * dq

    def _pose(self, q_to: np.ndarray, dq: np.ndarray, f: np.ndarray) -> np.ndarray:
        self._frac[:-1] = f
        return q_to - (1.0 - self._frac[self._adr_group]) * dq  # (nq,)

    def run(
        self, q_from: np.ndarray, q_to: np.ndarray, order: list[int], yielding: int = NONE
    ) -> np.ndarray:
        """Fractions per joint group after the swept advance.

        The poses of the remaining sub-steps are computed in one array operation and tested
        in order with :meth:`ContactCheck.worst` (one cached evaluation each, no per-chain
        work) until one is deep; only that one takes the per-chain path (bisection, stops).
        Once the yielding chain has stopped, its contacts are left out of that test: they can
        neither block nor stop another chain. The result is the same as testing each sub-step
        with per-chain depths.

        Args:
            q_from: ``(nq,)`` penetration-free start.
            q_to: ``(nq,)`` goal.
            order: Chain priority when simultaneous bisection does not resolve a sub-step.
            yielding: A chain the others move through; it stops at its first touch (the
                caller backs it off where the others then pushed into it).

        Returns:
            ``(n_groups,)`` fractions.
        """
        tol, check = self.tol, self.check
        dq = q_to - q_from
        span = float(np.abs(dq[self._adr]).max()) if self._adr.size else 0.0
        n = max(1, math.ceil(span / self.step - 1e-9))
        q0 = np.where(self._grouped, q_from, q_to)  # joints outside groups start at the goal
        ts = np.arange(n + 1) / n  # (n + 1,) sub-step fractions k / n
        ts[n] = 1.0
        f = np.zeros(self._frac.size - 1)
        chains = range(len(self.chain_groups))
        stopped = np.zeros(len(self.chain_groups) + 1, dtype=bool)  # last: groups of no chain
        moving = np.ones(f.size, dtype=bool)
        touch = 0.0
        k, skip, every = 1, NONE, True
        while k <= n:
            rows = self._rows(q0, q_to, dq, f, moving, ts[k:], every)  # sub-steps k..n
            free = 0
            for q in rows:  # the common case: free sub-steps, one cheap test each (a stopped
                if check.worst(q, skip) > tol:  # yielding chain's contacts change nothing)
                    break
                free += 1
            if free:
                f = np.where(moving, ts[k + free - 1], f)
                k += free
            if k > n:
                break
            t = float(ts[k])
            trial = np.where(moving, t, f)
            depth = check.depths(rows[free], yielding)[0]
            blocked = [c for c in chains if c != yielding and not stopped[c] and depth[c] > tol]
            if blocked:
                active = [c for c in chains if not stopped[c]]
                trial = self._resolve(q_to, dq, f, trial, blocked, active, t, order, yielding)
                depth = check.depths(self._pose(q_to, dq, trial), yielding)[0]
            touched = yielding != NONE and not stopped[yielding] and depth[yielding] > tol
            if touched:  # the yielding chain touched: it stops there (found after the sweep)
                groups = self.chain_groups[yielding]
                trial[groups] = f[groups]
                touch = t
            if blocked or touched:  # a chain cut short stops where it touched
                stopped[self._group_chain[moving & (trial < t)]] = True
                stopped[-1] = False
                moving = ~stopped[self._group_chain]
                every = bool(moving.all())
                skip = yielding if yielding != NONE and stopped[yielding] else NONE
            f = trial
            k += 1
            if not moving.any():
                break
        if touch > 0.0:  # settle it against the others' final poses; if they pushed into it,
            groups = self.chain_groups[yielding]  # it stays and the caller backs it off
            if self.check.depths(self._pose(q_to, dq, f), yielding)[0][yielding] <= tol:
                f = self._advance(q_to, dq, f, groups, touch, yielding, yielding, known=True)
        return f

    def _resolve(
        self,
        q_to: np.ndarray,
        dq: np.ndarray,
        f: np.ndarray,
        trial: np.ndarray,
        blocked: list[int],
        active: list[int],
        t: float,
        order: list[int],
        yielding: int,
    ) -> np.ndarray:
        """Blocked chains bisected together; one at a time (``order``) if that leaves a contact."""
        sel = [self.chain_groups[c][trial[self.chain_groups[c]] >= t] for c in blocked]
        idx = np.concatenate(sel)  # the blocked chains' moving groups, all at once
        owner = np.repeat(np.arange(len(sel)), [g.size for g in sel])  # (len(idx),) chain no.
        base = f[idx]
        span = t - base
        lo, hi = np.zeros(len(blocked)), np.ones(len(blocked))
        cur = trial.copy()
        for _ in range(self.iters):
            mid = 0.5 * (lo + hi)
            cur[idx] = base + mid[owner] * span
            depth = self.check.depths(self._pose(q_to, dq, cur), yielding)[0]
            free = np.array([depth[c] <= self.tol for c in blocked])
            lo, hi = np.where(free, mid, lo), np.where(free, hi, mid)
        cur[idx] = base + lo[owner] * span
        depth = self.check.depths(self._pose(q_to, dq, cur), yielding)[0]
        if all(depth[c] <= self.tol for c in active if c != yielding):
            return cur
        cur = np.where(self._unchained, trial, f)  # one chain at a time against the committed
        for c in order:
            groups = self.chain_groups[c][trial[self.chain_groups[c]] >= t]
            if c != yielding and groups.size:
                cur = self._advance(q_to, dq, cur, groups, t, c, yielding)
        if yielding != NONE:
            cur[self.chain_groups[yielding]] = trial[self.chain_groups[yielding]]
        return cur

    def _advance(
        self,
        q_to: np.ndarray,
        dq: np.ndarray,
        cur: np.ndarray,
        groups: np.ndarray,
        t: float,
        c: int,
        yielding: int,
        known: bool = False,
    ) -> np.ndarray:
        """Move ``groups`` (of chain ``c``) as far toward ``t`` as chain ``c`` stays free.

        ``known``: it is known not to be free at ``t`` (bisect at once).
        """
        start = cur[groups].copy()
        trial = cur.copy()
        trial[groups] = t
        if not known and self.check.depths(self._pose(q_to, dq, trial), yielding)[0][c] <= self.tol:
            return trial
        lo, hi = 0.0, 1.0
        for _ in range(self.iters):
            mid = 0.5 * (lo + hi)
            trial[groups] = start + mid * (t - start)
            if self.check.depths(self._pose(q_to, dq, trial), yielding)[0][c] <= self.tol:
                lo = mid
            else:
                hi = mid
        trial[groups] = start + lo * (t - start)
        return trial
