r"""Adaptive task stiffness of the HQP (:mod:`.hqp`): softens under contact, restores after.

Per task axis ``i`` (world x, y, z, then rotations) with the contact level
``σ_i = clip((|F_i| − f_dead)/(f_sat − f_dead), 0, 1)`` (moments: ``m_dead``, ``m_sat``):

    k*_i = k_nom,i − σ_i (k_nom,i − k_min),   k_i ← k_i + (1 − e^(−Δt/T)) (k*_i − k_i)

with ``T = T_soften`` while ``k*`` is below ``k`` and ``T_restore`` otherwise; ``k_nom`` is
clamped into ``[k_min, k_max]``, so ``k`` always stays in it. Damping keeps the damping ratio:
``d_i = d_nom,i √(k_i / k_nom,i)``. Stiffnesses are in task-acceleration units [1/s²] like CIC's.
"""

from __future__ import annotations

import math

import numpy as np

from mjscope.control.controllers import hqp_native
from mjscope.control.controllers.hqp_config import HqpGains


class StiffnessAdaptation:
    """The first-order stiffness adaptation of the module docstring.

    Args:
        gains: The HQP gains (nominal stiffness/damping, bounds, dead bands, time constants).
        dt: Control period [s].

    Attributes:
        kp: Adapted stiffness [1/s²]; (6,) (updated in place).
        kd: Damping that keeps the damping ratio [1/s]; (6,) (updated in place).
        k_nom: Nominal stiffness (the gains', scheduled by :meth:`set_scale`) [1/s²]; (6,).
    """

    def __init__(self, gains: HqpGains, dt: float) -> None:
        self.gains = gains
        self.k_nom = np.clip(gains.kp, gains.kp_min, gains.kp_max)
        self._kd_nom = gains.kd.copy()  # scheduled with k_nom (set_scale)
        self._dead = np.r_[np.full(3, gains.force_dead), np.full(3, gains.moment_dead)]
        self._span = np.r_[np.full(3, gains.force_sat), np.full(3, gains.moment_sat)] - self._dead
        self._k_drop = self.k_nom - gains.kp_min  # full softening per axis [1/s²]; (6,)
        self._k_tol = 1e-9 * self.k_nom.max()  # "restored" tolerance [1/s²]
        self.alpha_soft = 1.0 - math.exp(-dt / gains.t_soften)
        self._alpha_rest = 1.0 - math.exp(-dt / gains.t_restore)
        self._use_c = hqp_native.enabled()  # update in C (:mod:`.hqp_native`)
        self._pack = hqp_native.adapt_pack(self) if self._use_c else None
        self.reset()

    def reset(self) -> None:
        """Nominal stiffness and damping."""
        self.kp = self.k_nom.copy()
        self.kd = self._kd_nom.copy()
        self._nominal = True  # kp == k_nom (idle until a force leaves the dead band)

    def set_scale(self, stiffness: float, damping: float) -> None:
        """Nominal stiffness and damping = the gains' × ``stiffness`` and × ``damping`` [-].

        The adapted stiffness moves to the new nominal with the adaptation's time constants
        (``t_restore`` up, ``t_soften`` down), so a schedule step is smoothed.
        """
        g = self.gains
        self.k_nom = np.clip(g.kp * stiffness, g.kp_min, g.kp_max)
        self._k_drop = self.k_nom - g.kp_min
        self._kd_nom = g.kd * damping
        self._nominal = False  # let the adaptation move kp to the new nominal
        if self._use_c:
            self._pack = hqp_native.adapt_pack(self)

    def update(self, F: np.ndarray) -> None:
        """One period toward ``k*`` for the wrench ``F`` [N, N·m]; (6,)."""
        if self._pack is not None:
            self._nominal = hqp_native.hqp_c.adapt(self._pack, F, self.kp, self.kd, self._nominal)
            return
        load = np.abs(F) - self._dead
        if self._nominal and not np.count_nonzero(load > 0.0):
            return  # no contact and nothing to restore
        g, kp = self.gains, self.kp
        sigma = np.divide(load, self._span, out=load)
        np.minimum(np.maximum(sigma, 0.0, out=sigma), 1.0, out=sigma)
        k_star = self.k_nom - sigma * self._k_drop
        alpha = np.where(k_star < kp, self.alpha_soft, self._alpha_rest)
        k_star -= kp
        k_star *= alpha
        kp += k_star  # kp += α (k* − kp)
        np.minimum(np.maximum(kp, g.kp_min, out=kp), g.kp_max, out=kp)
        # restored: no load and |kp − k_nom| ≤ tol on every axis (a NaN fails the comparison)
        if (
            not np.count_nonzero(sigma)
            and np.count_nonzero(np.abs(kp - self.k_nom) <= self._k_tol) == kp.size
        ):
            kp[:] = self.k_nom  # restored
            self._nominal = True
        else:
            self._nominal = False
        np.multiply(self._kd_nom, np.sqrt(kp / self.k_nom), out=self.kd)
