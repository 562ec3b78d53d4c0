"""Penetration depth per chain of a hand pose: ``mj_kinematics`` + ``mj_collision``, cached."""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.hand.model import HandModel

NONE = -3  # "no yielding chain" (geom_chain uses -1 for the scene, -2 for the hand root)


class _Pose:
    """One evaluated pose: its hand contacts and, once asked for, depths per chain."""

    __slots__ = ("contacts", "depths", "worst")

    def __init__(self, worst: float, contacts: list[tuple[float, int, int]]) -> None:
        self.worst = worst  # deepest hand contact [m], 0 when none
        self.contacts = contacts  # (depth [m], chain 1, chain 2) per hand contact
        self.depths: dict[int, list[float]] = {}  # yielding chain → depth per chain [m]


class ContactCheck:
    """Evaluates poses on a scratch ``MjData`` (no dynamics: kinematics and collision only).

    Each evaluated pose's hand contacts are cached until :meth:`clear`, so a pose checked
    twice (or with another yielding chain) costs one evaluation.

    Args:
        hand: The prepared hand model.
    """

    def __init__(self, hand: HandModel) -> None:
        self.model = hand.model
        self.data = mujoco.MjData(hand.model)
        self.evaluations = 0
        self.n_chains = len(hand.chain_qadr)
        self._geom_chain = hand.geom_chain.tolist()
        self._cache: dict[bytes, _Pose] = {}
        self._loaded = b""  # the pose the scratch data holds
        self._qpos = self.data.qpos  # (nq,) view, reused: cheaper than an attribute lookup
        self._free = _Pose(0.0, [])  # shared by every pose without contacts

    def clear(self) -> None:
        """Forget the cached poses (call once per projection: bounded memory)."""
        self._cache.clear()

    def depths(self, qpos: np.ndarray, yielding: int = NONE) -> tuple[list[float], float, int]:
        """Per-chain penetration depth of a pose.

        A contact's penetration is ``-dist``; contacts without a moving chain (scene–scene,
        hand root–scene) are left out.

        Args:
            qpos: ``(nq,)`` pose.
            yielding: A chain that yields: its contacts with other chains count only toward
                its own depth, so the others move as if it were not there (default: none).

        Returns:
            Depth per chain [m] (do not modify: cached), the deepest hand contact [m], the
            hand contact count.
        """
        key = qpos.tobytes()
        pose = self._cache.get(key)
        if pose is None:
            pose = self._cache[key] = self._evaluate(qpos, key)
        out = pose.depths.get(yielding)
        if out is None:
            out = pose.depths[yielding] = self._per_chain(pose.contacts, yielding)
        return out, pose.worst, len(pose.contacts)

    def _per_chain(self, contacts: list[tuple[float, int, int]], yielding: int) -> list[float]:
        out = [0.0] * self.n_chains
        for pen, c1, c2 in contacts:
            if yielding in (c1, c2):  # only the yielding chain carries it
                out[yielding] = max(out[yielding], pen)
                continue
            if c1 >= 0 and pen > out[c1]:
                out[c1] = pen
            if c2 >= 0 and pen > out[c2]:
                out[c2] = pen
        return out

    def worst(self, qpos: np.ndarray, skip: int = NONE) -> float:
        """The deepest hand contact of a pose [m] (0 when none): the sweep's fast test.

        It equals the largest per-chain depth of :meth:`depths` with or without a yielding
        chain (yielding only moves a contact's depth between chains).

        Args:
            qpos: ``(nq,)`` pose (C-contiguous).
            skip: A chain whose contacts are left out (default: none): then it is the largest
                depth of the other chains with ``skip`` yielding.
        """
        key = qpos.tobytes()
        pose = self._cache.get(key)
        if pose is None:
            pose = self._cache[key] = self._evaluate(qpos, key)
        if skip == NONE or not pose.contacts:
            return pose.worst
        return max([0.0] + [p for p, c1, c2 in pose.contacts if skip not in (c1, c2)])

    def load(self, qpos: np.ndarray) -> mujoco.MjData:
        """The scratch data holding ``qpos`` after kinematics and collision."""
        key = qpos.tobytes()
        if key != self._loaded:
            self._cache[key] = self._evaluate(qpos, key)
        return self.data

    def _evaluate(self, qpos: np.ndarray, key: bytes) -> _Pose:
        self.evaluations += 1
        m, d = self.model, self.data
        np.copyto(self._qpos, qpos)
        mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        self._loaded = key
        if d.ncon == 0:  # the common case: nothing touches
            return self._free
        gc, con = self._geom_chain, d.contact
        pairs = zip(con.dist.tolist(), con.geom.tolist(), strict=True)
        out = [(-x, gc[a], gc[b]) for x, (a, b) in pairs if gc[a] >= 0 or gc[b] >= 0]
        return _Pose(max([0.0, *(c[0] for c in out)]), out)  # a moving chain is involved
