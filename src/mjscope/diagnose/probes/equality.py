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

import ctypes
import math
from typing import Any, NamedTuple

import mujoco
import numpy as np

from mjscope.diagnose.names import name_of
from mjscope.diagnose.probes.base import Column, Probe, address
from mjscope.diagnose.recording.scalars import scalar_views

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


class EqualityNative(NamedTuple):
    """What the compiled loop needs to do :meth:`EqualityProbe.read` (``_steploop.c``).

    Attributes:
        ne: ``(1,)`` int32 view of ``data.ne``.
        pos_field, id_field: Addresses of ``mjData``'s ``efc_pos`` and ``efc_id`` pointers.
        arrays: ``weld`` (int64 0/1), ``scale``, ``pos_max``, ``rot_max``, ``pos_last``,
            ``rot_last``, ``worst_step`` (int64), ``steps`` (``(1,)`` int64), ``cells`` (the
            probe's block column).
    """

    ne: np.ndarray
    pos_field: int
    id_field: int
    arrays: dict[str, np.ndarray]


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
        self.worst_step = np.full(n, -1, np.int64)
        self.steps = np.zeros(1, np.int64)  # steps read (an array: the compiled loop counts too)
        self.weld = model.eq_type == _EQ.mjEQ_WELD
        self.scale = np.where(self.weld, model.eq_data[:, 10], 1.0)
        self.scale = np.where(self.scale > 0, self.scale, 1.0)

    def read(self, i: int) -> None:  # noqa: D102
        d = self.data
        ne = d.ne
        step = int(self.steps[0])
        self.steps[0] = step + 1
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
            self.pos_last[e] = math.sqrt(_sumsq(v))
            if self.weld[e] and rows == 6:
                r = pos[k + 3 : k + 6] / self.scale[e]
                self.rot_last[e] = 2.0 * math.asin(min(1.0, math.sqrt(_sumsq(r))))
            k += rows
        worse = self.pos_last > self.pos_max
        self.worst_step[worse] = step
        np.maximum(self.pos_max, self.pos_last, out=self.pos_max)
        np.maximum(self.rot_max, self.rot_last, out=self.rot_max)
        self.cells[i, 0] = float(self.pos_last.max())

    def native(self) -> EqualityNative | None:
        """The compiled loop's view of this probe, or ``None`` (it then reads in Python).

        ``efc_pos``/``efc_id`` move in the arena every step, so the loop reads ``mjData``'s
        pointers to them: found in the struct as the only words holding the arrays' current
        addresses (equality rows needed now, else ``None``).
        """
        d = self.data
        views = scalar_views(d, ("ne",))
        if views is None or d.ne == 0:
            return None
        start = address(d.energy) + d.energy.nbytes  # mjData's pointers follow energy[2]
        struct = _mapped_words(start, 2048)
        fields = []
        for arr in (d.efc_pos, d.efc_id):
            hits = np.flatnonzero(struct == np.uint64(address(arr)))
            if hits.size != 1:
                return None
            fields.append(start + 8 * int(hits[0]))
        col = self.out[:, 0]
        if col.strides[0] != 8:  # pragma: no cover - the block is column-major
            return None
        arrays = {
            "weld": self.weld.astype(np.int64), "scale": np.ascontiguousarray(self.scale),
            "pos_max": self.pos_max, "rot_max": self.rot_max, "pos_last": self.pos_last,
            "rot_last": self.rot_last, "worst_step": self.worst_step, "steps": self.steps,
            "cells": col,
        }  # fmt: skip
        return EqualityNative(views["ne"], fields[0], fields[1], arrays)

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


def _sumsq(v: np.ndarray) -> float:
    """Σ v² in index order (what the compiled loop computes, bit for bit)."""
    total = 0.0
    for x in v.tolist():
        total += x * x
    return total


def _mapped_words(start: int, count: int) -> np.ndarray:
    """Up to ``count`` uint64 words from ``start`` (8-aligned), never past its mapping."""
    end = start
    with open("/proc/self/maps", encoding="ascii") as fh:
        for line in fh:
            lo, hi = (int(x, 16) for x in line.split(None, 1)[0].split("-"))
            if lo <= start < hi:
                end = hi
                break
    n = max(0, min(count, (end - start) // 8))
    if n == 0 or start % 8:
        return np.zeros(0, np.uint64)
    return np.ctypeslib.as_array((ctypes.c_uint64 * n).from_address(start)).copy()
