"""Penetration projection for hard-write: move fingers toward a goal only as far as they can.

Hard-write puts joint angles straight into ``qpos``; nothing physical stops a finger from being
written through the palm, another finger or a scene object. Before each write the bridge asks
:meth:`PenetrationProjector.project` for the pose closest to the goal along the way from the last
written (penetration-free) pose.

Algorithm (one swept advance with simultaneous bisection; the thumb yields to the fingers):

1. *Goal check.* The goal is checked with ``mj_kinematics`` + ``mj_collision`` on a scratch
   ``MjData`` (no ``mj_forward``); a contact's penetration is ``-dist``. If no contact involving a
   moving hand geom is deeper than ``tol``, the goal is returned exactly (bit-for-bit): one check
   in the common case. Each pose's contacts are cached for the call, so no pose is checked twice.
2. *Chains and groups.* The hand splits into chains (each subtree hanging off the fixed hand root:
   a finger, the thumb) and joint groups (an active joint with its mimic joints, which always move
   together, so mimic couplings hold). A chain's depth is its deepest contact (against the palm,
   another chain or a scene geom).
3. *Swept advance.* Each group moves a fraction ``f`` of the way from ``q_from`` (the last written,
   penetration-free pose) to ``q_to``, in ``n = ceil(max |Δq| / sweep_step)`` sub-steps
   (``sweep_step`` 0.05 rad, so a fingertip moves a few mm per check and cannot tunnel through a
   finger or a box), one check per sub-step. When chains penetrate at a sub-step, their fractions
   are bisected together (``iters`` halvings, default 4: ≤ 3 mrad; each chain judged by its own
   depth, the others held) for the largest values with depth ≤ ``tol``, and they stop there for the
   rest of the sweep: fingers stop where they touch. If the joint result still leaves a contact
   (chains blocking each other), the chains instead move one at a time in priority order, each
   against the fractions already committed. A sub-step is committed only when no moving chain is
   deeper than ``tol``.
4. *Thumb.* The thumb (the chain of the profile's slot 0) yields unless it opens, as a real hand
   closes its fingers before the thumb wraps over them: the fingers' checks leave out their contacts
   with the thumb, so they close through it; the thumb stops at its first touch (bisected against
   the fingers' final poses after the sweep), and where a finger then pushes into it, it backs off
   along the straight way to the open pose just out of contact (a doubling search, then
   ``RETREAT_ITERS`` halvings). Under the per-joint slew the thumb arrives first and is pushed
   back step by step while the fingers close, then follows them to a touch: a fist closes every
   finger. While the thumb opens it leads, and the fingers stop against it.
5. *Fallbacks.* If the thumb cannot back off (the open pose is blocked too), the sweep runs again
   without yielding, the fingers first. A chain that could not move at all (a wedge: every
   straight path into contact) is put at its goal and pushed out along the least joint motion
   that separates its contacts (linearised with ``mj_jac`` along each contact normal,
   up to ``PUSH_STEPS`` (3) Gauss–Newton steps, joint limits minus the margin kept); the result is
   used only if no contact of the chain is deeper than ``tol``.

The result: no pair is deeper than ``tol`` (given the last written pose had none); a free
goal is applied exactly, so with ``slew 0`` a goal beyond a thin obstacle is applied as it is
(the per-step slew keeps moves small enough that fingers stop at obstacles). Pairs without a
moving hand geom (scene–scene, hand root–scene) are ignored. Cost: one check when free; else
``n`` checks plus ``iters + 1`` per blocked sub-step (more only when chains block each other),
``iters + 1`` to settle a touching thumb, or a few to back it off. The same (``q_from``,
``q_to``) as the previous call returns the previous result without checks (a finger held against
an obstacle by a constant goal costs nothing).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mjscope.hand._contacts import ContactCheck
from mjscope.hand._groups import joint_groups, separation_rows
from mjscope.hand._sweep import SweptAdvance
from mjscope.hand.mapping import clamp_to_limits, sdk_range_to_full_urdf_positions
from mjscope.hand.model import HandModel

PUSH_STEPS = 3  # Gauss-Newton steps of a push-out
RETREAT_ITERS = 3  # bisection halvings of a back-off (1/8 of its first step)


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
        iters: Bisection halvings per blocked sub-step.
        sweep_step: Largest joint move between two checked poses [rad] (no tunnelling).
    """

    def __init__(
        self, hand: HandModel, tol: float = 1e-3, iters: int = 4, sweep_step: float = 0.05
    ) -> None:
        self.hand = hand
        self.tol = float(tol)
        self.iters = int(iters)
        self.sweep_step = float(sweep_step)
        self._check = ContactCheck(hand)
        self._g = joint_groups(hand)
        self._sweep = SweptAdvance(
            self._check, self._g, hand.model.nq, self.tol, self.iters, self.sweep_step
        )
        self._n = len(hand.chain_qadr)
        self._chain_of = np.full(hand.model.nq, -1)  # (nq,) chain of each entry, -1: none
        for c, adr in enumerate(hand.chain_qadr):
            self._chain_of[adr] = c
        thumb = hand.qadr[hand.profile.active_joints[0]]
        self._thumb = [c for c, a in enumerate(hand.chain_qadr) if thumb in a]
        self._fingers = [c for c in range(self._n) if c not in self._thumb]
        self._rest = _open_pose(hand)  # (nq,) the open hand: where a yielding thumb backs off to
        self._last: tuple[bytes, ProjectionResult] | None = None  # (q_from, q_to) bytes

    def depths(self, qpos: np.ndarray) -> tuple[np.ndarray, float, int]:
        """Per-chain penetration depth of a pose.

        Args:
            qpos: ``(nq,)`` pose.

        Returns:
            ``(n_chains,)`` depths [m], the deepest hand contact [m], the hand contact count.
        """
        self._check.clear()
        depth, worst, count = self._check.depths(qpos)
        return np.array(depth), worst, count

    def project(self, q_from: np.ndarray, q_to: np.ndarray) -> ProjectionResult:
        """The pose closest to ``q_to`` reachable from ``q_from`` with no deep contact.

        Args:
            q_from: ``(nq,)`` last written pose (penetration-free).
            q_to: ``(nq,)`` goal pose.

        Returns:
            The projected pose and its contact summary.
        """
        key = q_from.tobytes() + q_to.tobytes()
        last = self._last
        if last is not None and last[0] == key:
            return last[1]._replace(qpos=last[1].qpos.copy(), evaluations=0)  # held against contact
        result = self._project(q_from, q_to)
        self._last = (key, result)
        return result

    def _project(self, q_from: np.ndarray, q_to: np.ndarray) -> ProjectionResult:
        self._check.clear()
        start = self._check.evaluations
        depth, worst, ncon = self._check.depths(q_to)
        if max(depth, default=0.0) <= self.tol:  # a penetration-free goal is applied exactly
            return ProjectionResult(q_to.copy(), worst, ncon, (), self._check.evaluations - start)
        q = self._yield_thumb(q_from, q_to) if self._thumb_yields(q_from, q_to) else None
        if q is None:
            q = self._sweep_all(q_from, q_to)
        _, worst, ncon = self._check.depths(q)
        short = set(self._chain_of[q != q_to].tolist())  # chains not at their goal
        limited = tuple(self.hand.chain_names[c] for c in range(self._n) if c in short)
        return ProjectionResult(q, worst, ncon, limited, self._check.evaluations - start)

    def _thumb_yields(self, q_from: np.ndarray, q_to: np.ndarray) -> bool:
        """The thumb yields to the fingers unless it opens (then it leads)."""
        if not self._thumb:
            return False
        adr = self.hand.chain_qadr[self._thumb[0]]
        return float(np.sum(q_to[adr] - q_from[adr])) >= 0.0

    def _yield_thumb(self, q_from: np.ndarray, q_to: np.ndarray) -> np.ndarray | None:
        """One sweep: fingers move through the thumb; it stops at a touch, backs off if pushed."""
        t = self._thumb[0]
        q = self._sweep.pose(q_from, q_to, self._sweep.run(q_from, q_to, self._fingers, t))
        if self._check.depths(q)[0][t] <= self.tol:
            return q
        return self._retreat(q, t)

    def _retreat(self, q: np.ndarray, c: int) -> np.ndarray | None:
        """``q`` with chain ``c`` backed off toward the open pose just out of contact."""
        adr = self.hand.chain_qadr[c]
        way = self._rest[adr] - q[adr]  # the straight way back to the open pose
        lo, hi = 0.0, min(1.0, self.sweep_step / max(float(np.max(np.abs(way))), 1e-12))
        trial = q.copy()
        while True:  # doubling search for a free fraction, then bisection
            trial[adr] = q[adr] + hi * way
            if self._check.depths(trial)[0][c] <= self.tol:
                break
            if hi >= 1.0:
                return None
            lo, hi = hi, min(1.0, 2.0 * hi)
        for _ in range(RETREAT_ITERS):
            mid = 0.5 * (lo + hi)
            trial[adr] = q[adr] + mid * way
            lo, hi = (lo, mid) if self._check.depths(trial)[0][c] <= self.tol else (mid, hi)
        trial[adr] = q[adr] + hi * way
        return trial

    def _sweep_all(self, q_from: np.ndarray, q_to: np.ndarray) -> np.ndarray:
        """All chains swept together (an opening thumb first); stuck chains pushed out."""
        thumb_first = bool(self._thumb) and not self._thumb_yields(q_from, q_to)
        order = self._thumb + self._fingers if thumb_first else self._fingers + self._thumb
        f = self._sweep.run(q_from, q_to, order)
        q = self._sweep.pose(q_from, q_to, f)
        for c in order:  # a chain that could not move at all: push its goal out instead
            adr = self.hand.chain_qadr[c]
            if not f[self._sweep.chain_groups[c]].any() and np.any(q_from[adr] != q_to[adr]):
                pushed = self._push_out(q, q_to, c)
                q = q if pushed is None else pushed
        return q

    def _push_out(self, q: np.ndarray, q_to: np.ndarray, c: int) -> np.ndarray | None:
        """``q`` with chain ``c`` at its goal pushed out of contact (least joint motion)."""
        cand = q.copy()
        cand[self.hand.chain_qadr[c]] = q_to[self.hand.chain_qadr[c]]
        members = self._sweep.chain_groups[c]
        m, g = self.hand.model, self._g
        for _ in range(PUSH_STEPS):
            if self._check.depths(cand)[0][c] <= self.tol:
                return cand
            data = self._check.load(cand)
            rows, depth = separation_rows(
                m, data, self.hand.geom_chain, c, g, members, 0.5 * self.tol
            )
            need = depth - 0.5 * self.tol  # (k,) separation to gain [m]
            x = rows.T @ np.linalg.solve(rows @ rows.T + 1e-10 * np.eye(len(need)), need)
            x *= min(1.0, self.sweep_step / max(float(np.max(np.abs(x))), 1e-12))
            for i, grp in enumerate(members):
                cand[g.adr[grp]] += x[i] * g.pattern[grp]
            cand = np.clip(cand, g.lower, g.upper)
        return cand if self._check.depths(cand)[0][c] <= self.tol else None


def _open_pose(hand: HandModel) -> np.ndarray:
    """``(nq,)`` the profile's open hand (within the limit margin), other joints at ``qpos0``."""
    p = hand.profile
    q = hand.model.qpos0.copy()
    full = sdk_range_to_full_urdf_positions(p.open_command, p)
    for j, v in clamp_to_limits(full, hand.limits, p.limit_margin).items():
        q[hand.qadr[j]] = v
    return q
