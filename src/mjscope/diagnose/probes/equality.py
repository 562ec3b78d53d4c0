"""Equality-constraint probe: how far each ``<equality>`` is from holding, step by step.

MuJoCo's equality rows come first in the constraint arrays (``d.ne`` of them) and their
``efc_pos`` is the violation the solver sees: a ``connect`` gives the anchor-to-anchor vector
(3 rows) [m]; a ``weld`` the same plus 3 rotation rows, the imaginary part of the error
quaternion times ``torquescale`` (turned here into an angle, ``2·asin(|v|/torquescale)``
[rad]); a ``joint`` or ``tendon`` coupling one row [rad or m]. For a ``connect`` the position
violation is the distance between the two anchor points: the separation S1.11's exercise 5
measures between its two sites. Disabled equalities have no rows and count as holding.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.names import name_of
from mjscope.diagnose.probes.base import Column, Probe

_EQ = mujoco.mjtEq


def eq_kind(model: mujoco.MjModel, e: int) -> str:
    """``connect``, ``weld``, ``joint``, ``tendon``, ``flex``, ... of equality ``e``."""
    return mujoco.mjtEq(int(model.eq_type[e])).name.removeprefix("mjEQ_").lower()


def eq_unit(model: mujoco.MjModel, e: int) -> str:
    """Unit of an equality's position violation: m, or rad for a coupling of hinges."""
    if int(model.eq_type[e]) == _EQ.mjEQ_JOINT:
        j = int(model.eq_obj1id[e])
        return "m" if int(model.jnt_type[j]) == mujoco.mjtJoint.mjJNT_SLIDE else "rad"
    return "m"


class EqualityProbe(Probe):
    """Per step the largest position violation over equalities; per equality max and final.

    Columns: ``eq_pos_max`` [m|rad], the largest position violation this step (0 without
    active equalities).
    """

    columns = (Column("eq_pos_max", "m|rad", "largest equality position violation this step"),)

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        n = model.neq
        self.pos_max, self.rot_max = np.zeros(n), np.zeros(n)
        self.pos_last, self.rot_last = np.zeros(n), np.zeros(n)
        self.worst_step = np.full(n, -1)
        self.step = 0
        self.weld = model.eq_type == _EQ.mjEQ_WELD
        self.scale = np.where(self.weld, model.eq_data[:, 10], 1.0)
        self.scale = np.where(self.scale > 0, self.scale, 1.0)

    def read(self, i: int) -> None:  # noqa: D102
        d = self.data
        ne = d.ne
        self.step += 1
        if not ne:
            self.cells[i, 0] = 0.0
            return
        pos = d.efc_pos[:ne]
        ids = d.efc_id[:ne]
        self.pos_last[:] = 0.0
        self.rot_last[:] = 0.0
        k = 0
        while k < ne:
            e, end = int(ids[k]), k + 1
            while end < ne and ids[end] == e:  # an equality's rows are consecutive
                end += 1
            rows = end - k
            v = pos[k : k + 3] if self.weld[e] else pos[k:end]
            self.pos_last[e] = float(np.sqrt(v @ v))
            if self.weld[e] and rows == 6:
                r = pos[k + 3 : k + 6] / self.scale[e]
                self.rot_last[e] = 2.0 * float(np.arcsin(min(1.0, float(np.sqrt(r @ r)))))
            k += rows
        worse = self.pos_last > self.pos_max
        self.worst_step[worse] = self.step - 1
        np.maximum(self.pos_max, self.pos_last, out=self.pos_max)
        np.maximum(self.rot_max, self.rot_last, out=self.rot_max)
        self.cells[i, 0] = float(self.pos_last.max())

    def summary(self) -> dict[str, Any]:  # noqa: D102
        m = self.model
        rows = [
            {
                "name": name_of(m, mujoco.mjtObj.mjOBJ_EQUALITY, e, "equality"),
                "type": eq_kind(m, e),
                "unit": eq_unit(m, e),
                "max_position": float(self.pos_max[e]),
                "final_position": float(self.pos_last[e]),
                "max_rotation_rad": float(self.rot_max[e]),
                "worst_step": int(self.worst_step[e]),
                "solref": [float(x) for x in m.eq_solref[e]],
            }
            for e in range(m.neq)
        ]
        return {"equalities": rows}
