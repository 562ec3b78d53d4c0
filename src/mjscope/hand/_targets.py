"""Vectorised joint targets for the bridge: the §4 mapping chain over precomputed index maps.

The same arithmetic as :mod:`mjscope.hand.mapping` (raw → arc → ``/ divisor`` → mimic →
limit clamp), on arrays ordered like ``HandModel.qadr`` (active joints in slot order, then the
mimic joints), so a command costs a few numpy operations instead of dict walks.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from mjscope.hand.mapping import RAW_MAX
from mjscope.hand.model import HandModel
from mjscope.hand.profile import N_SLOTS


class TargetMap:
    """Index maps between a profile's joints and ``(n_joints,)`` target arrays.

    Args:
        hand: The prepared hand model.

    Attributes:
        names: Profile joint names in array order: active (slot order), then mimic.
        index: Profile joint name → array index.
        qadr: ``(n_joints,)`` ``qpos`` address of each joint.
        n_active: The first ``n_active`` entries are the active joints (slot order).
    """

    def __init__(self, hand: HandModel) -> None:
        p = hand.profile
        self.names = [*p.active_joints, *p.mimic_joints]
        self.index = {j: i for i, j in enumerate(self.names)}
        self.qadr = np.array([hand.qadr[j] for j in self.names], dtype=np.intp)
        self.n_active = len(p.active_joints)
        slots = sorted(p.slots, key=lambda s: s.index)
        self._slot = np.array([s.index for s in slots], dtype=np.intp)  # (n_active,)
        lo, hi = np.array([s.min for s in slots]), np.array([s.max for s in slots])
        down = np.array([s.direction == -1 for s in slots])
        # arc = start + frac · signed span: exactly max − frac·(max − min) for direction −1
        self._start = np.where(down, hi, lo)
        self._span = np.where(down, -(hi - lo), hi - lo)
        self._div = np.array([s.divisor for s in slots])
        self.mimic = np.array([self.index[m.joint] for m in p.mimic], dtype=np.intp)
        self.driver = np.array([self.index[m.driver] for m in p.mimic], dtype=np.intp)
        self.ratio = np.array([m.ratio for m in p.mimic])
        lower, upper = np.full(len(self.names), -np.inf), np.full(len(self.names), np.inf)
        for i, j in enumerate(self.names):
            lim = hand.limits.get(j)
            if lim is not None:
                margin = min(p.limit_margin, 0.5 * (lim[1] - lim[0]))
                lower[i], upper[i] = lim[0] + margin, lim[1] - margin
        self.lower, self.upper = lower, upper
        self.actuated = np.array([self.index[j] for j in hand.actuator], dtype=np.intp)
        self.actuator = np.array(list(hand.actuator.values()), dtype=np.intp)

    def from_sdk(self, values: npt.ArrayLike) -> np.ndarray:
        """``(n_joints,)`` unclamped targets [rad] from 20 raw values (clamped to 0..255)."""
        raw = np.asarray(values, dtype=float).reshape(N_SLOTS)
        frac = np.minimum(np.maximum(raw[self._slot], 0.0), RAW_MAX) / RAW_MAX
        out = np.empty(len(self.names))
        out[: self.n_active] = (self._start + frac * self._span) / self._div
        out[self.mimic] = self.ratio * out[self.driver]
        return out

    def merge(self, goal: np.ndarray, positions: Mapping[str, float]) -> np.ndarray:
        """``goal`` with the given joints replaced; mimic follows its driver unless given.

        Args:
            goal: ``(n_joints,)`` the previous goal [rad].
            positions: Profile joint name → target [rad] (names already checked).

        Returns:
            ``(n_joints,)`` unclamped targets [rad].
        """
        q = goal.copy()
        given = [(self.index[j], float(v)) for j, v in positions.items()]
        for i, v in given:
            if i < self.n_active:
                q[i] = v
        q[self.mimic] = self.ratio * q[self.driver]
        for i, v in given:
            if i >= self.n_active:
                q[i] = v
        return q

    def slew(self, applied: np.ndarray, goal: np.ndarray, max_step: float) -> np.ndarray:
        """Active joints at most ``max_step`` [rad] toward ``goal``; mimic re-completed.

        A joint within one step of its goal lands on it exactly; a slewing mimic joint keeps
        the goal's offset from ``ratio · driver`` (an explicitly given mimic target).

        Returns:
            ``(n_joints,)`` unclamped targets [rad].
        """
        n, g = self.n_active, goal
        dq = g[:n] - applied[:n]
        new = g.copy()
        step = applied[:n] + np.clip(dq, -max_step, max_step)
        new[:n] = np.where(np.abs(dq) <= max_step, g[:n], step)
        slewed = new[self.driver] != g[self.driver]
        offset = g[self.mimic] - self.ratio * g[self.driver]
        new[self.mimic] = np.where(slewed, self.ratio * new[self.driver] + offset, g[self.mimic])
        return new

    def clamp(self, q: np.ndarray) -> np.ndarray:
        """``q`` clamped into the limits minus the profile's margin (a new array)."""
        return np.minimum(np.maximum(q, self.lower), self.upper)

    def to_dict(self, q: np.ndarray, active_only: bool = False) -> dict[str, float]:
        """Profile joint name → value (all joints, or the active ones)."""
        names = self.names[: self.n_active] if active_only else self.names
        return dict(zip(names, q.tolist(), strict=False))
