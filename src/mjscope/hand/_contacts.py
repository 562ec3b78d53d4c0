"""Penetration depth per chain of a hand pose: ``mj_kinematics`` + ``mj_collision``, cached."""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.hand.model import HandModel

NONE = -3  # "no yielding chain" (geom_chain uses -1 for the scene, -2 for the hand root)


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
        self._cache: dict[bytes, list[tuple[float, int, int]]] = {}
        self._loaded = b""  # the pose the scratch data holds
        self._qpos = self.data.qpos  # (nq,) view, reused: cheaper than an attribute lookup

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
            Depth per chain [m], the deepest hand contact [m], the hand contact count.
        """
        key = qpos.tobytes()
        contacts = self._cache.get(key)
        if contacts is None:
            contacts = self._cache[key] = self._evaluate(qpos, key)
        out = [0.0] * self.n_chains
        worst = 0.0
        for pen, c1, c2 in contacts:
            worst = max(worst, pen)
            if yielding in (c1, c2):  # only the yielding chain carries it
                out[yielding] = max(out[yielding], pen)
                continue
            if c1 >= 0 and pen > out[c1]:
                out[c1] = pen
            if c2 >= 0 and pen > out[c2]:
                out[c2] = pen
        return out, worst, len(contacts)

    def load(self, qpos: np.ndarray) -> mujoco.MjData:
        """The scratch data holding ``qpos`` after kinematics and collision."""
        key = qpos.tobytes()
        if key != self._loaded:
            self._cache[key] = self._evaluate(qpos, key)
        return self.data

    def _evaluate(self, qpos: np.ndarray, key: bytes) -> list[tuple[float, int, int]]:
        self.evaluations += 1
        m, d = self.model, self.data
        self._qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        self._loaded = key
        if d.ncon == 0:  # the common case: nothing touches
            return []
        gc, out = self._geom_chain, []
        con = d.contact
        for dist, (g1, g2) in zip(con.dist.tolist(), con.geom.tolist(), strict=True):
            c1, c2 = gc[g1], gc[g2]
            if c1 >= 0 or c2 >= 0:
                out.append((-dist, c1, c2))
        return out
