"""Penetration projection for hard-write: move fingers toward a goal only as far as they can.

Hard-write puts joint angles straight into ``qpos``; nothing physical stops a finger from being
written through the palm, another finger or a scene object. Before each write the bridge asks
:meth:`PenetrationProjector.project` for the pose closest to the goal along the way from the last
written (penetration-free) pose.

Algorithm (per-finger bisection along a swept path, with push-out fallbacks):

1. *Goal check.* The goal is checked with ``mj_kinematics`` + ``mj_collision`` on a scratch
   ``MjData``; a contact's penetration is ``-dist``. If no contact involving a moving hand geom is
   deeper than ``tol``, the goal is returned exactly (bit-for-bit): one check in the common case.
2. *Chains and groups.* The hand splits into chains (each subtree hanging off the fixed hand root:
   a finger, the thumb) and joint groups (an active joint with its mimic joints, which always move
   together, so mimic couplings hold). A chain's depth is its deepest contact (against the palm,
   another chain or a scene geom).
3. *Swept advance.* Each group moves a fraction ``f`` of the way from ``q_from`` (the last written,
   penetration-free pose) to ``q_to``, in ``n = ceil(max |Δq| / sweep_step)`` sub-steps
   (``sweep_step`` 0.05 rad, so a fingertip moves a few mm per check and cannot tunnel through a
   finger or a box). When a sub-step penetrates, the chains move one at a time, each against the
   fractions already committed for the others; a chain that is not free at the sub-step has its
   fraction bisected (``iters`` halvings, default 4: ≤ 3 mrad) for the largest value with depth
   ≤ ``tol``, and stops there for the rest of the sweep: fingers stop where they touch. Each chain
   is checked against every pair it can touch when it commits, so no pair ends deeper than ``tol``.
4. *Thumb.* While the thumb (the chain of the profile's slot 0) closes it yields: the fingers are
   swept ignoring it, then the thumb at its goal is pushed out of contact (step 5); if that fails,
   step 3 runs with the fingers first and the thumb last. While it opens it leads.
5. *Push-out.* A chain that could not move at all (a wedge: every straight path into contact) is
   put at its goal and pushed out along the least joint motion that separates its contacts
   (linearised with ``mj_jac`` along each contact normal, up to ``PUSH_STEPS`` (3) Gauss–Newton
   steps, joint limits minus the margin kept); the result is used only if no contact of the
   chain is deeper than ``tol``.

The result: no pair is deeper than ``tol`` (given the last written pose had none); a free
goal is applied exactly, so with ``slew 0`` a goal beyond a thin obstacle is applied as it is
(the per-step slew keeps moves small enough that fingers stop at obstacles). Pairs without a
moving hand geom (scene–scene, hand root–scene) are ignored. Cost: one check when free; ``n``
checks plus up to ``iters + 1`` per blocked chain and sub-step in contact. The same
(``q_from``, ``q_to``) as the previous call returns the previous result without checks (a finger
held against an obstacle by a constant goal costs nothing).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import mujoco
import numpy as np

from mjscope.hand._groups import joint_groups, separation_rows
from mjscope.hand.model import HandModel

PUSH_STEPS = 3  # Gauss-Newton steps of a push-out


class ProjectionResult(NamedTuple):
    """Outcome of one projection.

    Attributes:
        qpos: ``(nq,)`` the pose to write.
        max_penetration: Deepest hand contact in that pose [m] (0 when none).
        contacts: Hand contacts in that pose.
        limited: Chains stopped short of the goal.
        evaluations: Collision evaluations used.
    """

    qpos: np.ndarray
    max_penetration: float
    contacts: int
    limited: tuple[str, ...]
    evaluations: int


class PenetrationProjector:
    """Projects goals onto penetration-free poses (see the module docstring).

    Args:
        hand: The prepared hand model.
        tol: Allowed penetration [m].
        iters: Bisection halvings per chain and sub-step.
        sweep_step: Largest joint move between two checked poses [rad] (no tunnelling).
    """

    def __init__(
        self, hand: HandModel, tol: float = 1e-3, iters: int = 4, sweep_step: float = 0.05
    ) -> None:
        self.hand = hand
        self.tol = float(tol)
        self.iters = int(iters)
        self.sweep_step = float(sweep_step)
        self._data = mujoco.MjData(hand.model)
        self._n = len(hand.chain_qadr)
        self._adr = np.concatenate(hand.chain_qadr) if self._n else np.zeros(0, np.intp)
        self._g = joint_groups(hand)
        self._adr_group = np.full(hand.model.nq, len(self._g.adr), dtype=np.intp)  # last: none
        for g, adr in enumerate(self._g.adr):
            self._adr_group[adr] = g
        thumb = hand.qadr[hand.profile.active_joints[0]]
        self._thumb = [c for c, a in enumerate(hand.chain_qadr) if thumb in a]
        self._fingers = [c for c in range(self._n) if c not in self._thumb]
        self._geom_chain = hand.geom_chain.tolist()
        self._evals = 0
        self._last: tuple[np.ndarray, np.ndarray, ProjectionResult] | None = None

    def depths(self, qpos: np.ndarray, ignore: int = -3) -> tuple[np.ndarray, float, int]:
        """Per-chain penetration depth of a pose (leaves its contacts in the scratch data).

        Args:
            qpos: ``(nq,)`` pose.
            ignore: A chain whose contacts are left out (default: none).

        Returns:
            ``(n_chains,)`` depths [m], the deepest hand contact [m], the hand contact count.
        """
        self._evals += 1
        m, d = self.hand.model, self._data
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        n = d.ncon
        if n == 0:  # the common case: nothing touches
            return np.zeros(self._n), 0.0, 0
        out = [0.0] * self._n
        worst, count, gc = 0.0, 0, self._geom_chain
        for dist, (g1, g2) in zip(
            d.contact.dist[:n].tolist(), d.contact.geom[:n].tolist(), strict=True
        ):  # plain loop: a handful of contacts, cheaper than array ops
            c1, c2 = gc[g1], gc[g2]
            if (c1 < 0 and c2 < 0) or ignore in (c1, c2):
                continue
            count += 1
            worst = max(worst, -dist)
            for c in (c1, c2):
                if c >= 0 and -dist > out[c]:
                    out[c] = -dist
        return np.array(out), worst, count

    def project(self, q_from: np.ndarray, q_to: np.ndarray) -> ProjectionResult:
        """The pose closest to ``q_to`` reachable from ``q_from`` with no deep contact.

        Args:
            q_from: ``(nq,)`` last written pose (penetration-free).
            q_to: ``(nq,)`` goal pose.

        Returns:
            The projected pose and its contact summary.
        """
        last = self._last
        if last is not None and np.array_equal(last[0], q_from) and np.array_equal(last[1], q_to):
            return last[2]._replace(qpos=last[2].qpos.copy(), evaluations=0)  # held against contact
        result = self._project(q_from, q_to)
        self._last = (q_from.copy(), q_to.copy(), result)
        return result

    def _project(self, q_from: np.ndarray, q_to: np.ndarray) -> ProjectionResult:
        self._evals = 0
        depth, worst, ncon = self.depths(q_to)
        if not (depth > self.tol).any():  # a penetration-free goal is applied exactly
            return ProjectionResult(q_to.copy(), worst, ncon, (), self._evals)
        order, yielding = self._chain_order(q_from, q_to)
        q = None
        if yielding is not None:  # closing: the fingers go first, the thumb is pushed aside
            f = self._sweep(q_from, q_to, [c for c in order if c != yielding], yielding)
            q = self._push_out(self._pose(q_from, q_to, f), q_to, yielding)
        if q is None:
            q = self._pose(q_from, q_to, self._sweep(q_from, q_to, order))
            for c in order:  # a chain that could not move at all: push its goal out instead
                adr = self.hand.chain_qadr[c]
                if np.array_equal(q[adr], q_from[adr]) and not np.array_equal(q[adr], q_to[adr]):
                    pushed = self._push_out(q, q_to, c)
                    q = q if pushed is None else pushed
        _, worst, ncon = self.depths(q)
        limited = tuple(
            self.hand.chain_names[c]
            for c in range(self._n)
            if np.any(q[self.hand.chain_qadr[c]] != q_to[self.hand.chain_qadr[c]])
        )
        return ProjectionResult(q, worst, ncon, limited, self._evals)

    def _chain_order(self, q_from: np.ndarray, q_to: np.ndarray) -> tuple[list[int], int | None]:
        """Chain order and the yielding chain: the thumb yields while closing, leads opening."""
        if not self._thumb:
            return self._fingers, None
        adr = self.hand.chain_qadr[self._thumb[0]]
        if float(np.sum(q_to[adr] - q_from[adr])) < 0:
            return self._thumb + self._fingers, None
        return self._fingers + self._thumb, self._thumb[0]

    def _sweep(
        self, q_from: np.ndarray, q_to: np.ndarray, order: list[int], ignore: int = -3
    ) -> np.ndarray:
        """Fractions per joint group after the swept advance (``ignore``: a chain not checked)."""
        span = float(np.max(np.abs(q_to - q_from)[self._adr], initial=0.0))
        n = max(1, math.ceil(span / self.sweep_step - 1e-9))
        f = np.zeros(len(self._g.adr))
        moving = np.ones(len(self._g.adr), dtype=bool)
        for k in range(1, n + 1):
            t = 1.0 if k == n else k / n
            trial = np.where(moving, t, f)
            if (self.depths(self._pose(q_from, q_to, trial), ignore)[0] > self.tol).any():
                trial = f.copy()
                for c in order:  # one chain at a time against the others' committed fractions
                    groups = np.flatnonzero(moving & (self._g.chain == c))
                    if groups.size:
                        trial = self._advance(q_from, q_to, trial, groups, t, c, ignore)
                moving &= trial >= t  # a joint cut short stops where it touched
            f = trial
            if not moving.any():
                break
        return f

    def _advance(
        self,
        q_from: np.ndarray,
        q_to: np.ndarray,
        cur: np.ndarray,
        groups: np.ndarray,
        t: float,
        c: int,
        ignore: int = -3,
    ) -> np.ndarray:
        """Move ``groups`` (of chain ``c``) as far toward ``t`` as chain ``c`` stays free."""
        start = cur[groups].copy()
        trial = cur.copy()
        trial[groups] = t
        if self.depths(self._pose(q_from, q_to, trial), ignore)[0][c] <= self.tol:
            return trial
        lo, hi = 0.0, 1.0
        for _ in range(self.iters):
            mid = 0.5 * (lo + hi)
            trial[groups] = start + mid * (t - start)
            if self.depths(self._pose(q_from, q_to, trial), ignore)[0][c] <= self.tol:
                lo = mid
            else:
                hi = mid
        trial[groups] = start + lo * (t - start)
        return trial

    def _push_out(self, q: np.ndarray, q_to: np.ndarray, c: int) -> np.ndarray | None:
        """``q`` with chain ``c`` at its goal pushed out of contact (least joint motion)."""
        cand = q.copy()
        cand[self.hand.chain_qadr[c]] = q_to[self.hand.chain_qadr[c]]
        members = np.flatnonzero(self._g.chain == c)
        m, g = self.hand.model, self._g
        for _ in range(PUSH_STEPS):
            if self.depths(cand)[0][c] <= self.tol:
                return cand
            rows, depth = separation_rows(
                m, self._data, self.hand.geom_chain, c, g, members, 0.5 * self.tol
            )
            need = depth - 0.5 * self.tol  # (k,) separation to gain [m]
            x = rows.T @ np.linalg.solve(rows @ rows.T + 1e-10 * np.eye(len(need)), need)
            x *= min(1.0, self.sweep_step / max(float(np.max(np.abs(x))), 1e-12))
            for i, grp in enumerate(members):
                cand[g.adr[grp]] += x[i] * g.pattern[grp]
            cand = np.clip(cand, g.lower, g.upper)
        return cand if self.depths(cand)[0][c] <= self.tol else None

    def _pose(self, q_from: np.ndarray, q_to: np.ndarray, f: np.ndarray) -> np.ndarray:
        frac = np.append(f, 1.0)[self._adr_group]  # (nq,) fraction per qpos entry
        return np.where(frac >= 1.0, q_to, q_from + frac * (q_to - q_from))
