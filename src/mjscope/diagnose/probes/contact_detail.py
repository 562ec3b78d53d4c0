"""Per-contact detail: forces in the contact frame, friction, softness and slip, by geom pair.

What S1.10's ``diagnose_contacts`` prints, recorded over the rollout: for each active contact
the geom pair, ``dist``, condim, the mixed friction, solref and solimp, and its force from
``mj_contactForce`` in the contact frame (normal ``f_n`` [N], tangential ``|f_t|`` [N]). A
geom pair **slides** at a step when its contacts carry a normal force and their friction is
saturated, ``Σ|f_t| ≥ (1 − SLIP_TOL)·μ·Σf_n`` (μ: the first friction coefficient; summed over
the pair's contacts, because the solver may load one corner of a resting box lightly and push
that corner to its cone), or when it is frictionless (condim 1) and its surfaces move
tangentially faster than :data:`SLIP_SPEED`.

The probe reads every ``every``-th step: each sampled step's contacts become rows of a capture
buffer (:mod:`~mjscope.diagnose.probes.contact_pairs`; filled in C by the compiled loop, see
:meth:`ContactDetailProbe.capture`, else here), taken into the per-pair totals a block at a
time. With a path it writes every sampled contact as one row of a long-format CSV
(``--contacts FILE.csv``), through a partial file renamed when the rollout completes
(:mod:`mjscope.diagnose.outputs`); the CSV's tangential slip speed ``vt`` is measured for
every condim (without a file only for condim 1, where slip needs it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, NamedTuple

import mujoco
import numpy as np

from mjscope.diagnose.names import geom_name
from mjscope.diagnose.outputs import commit, partial_path
from mjscope.diagnose.probes import contact_pairs as cp
from mjscope.diagnose.probes.base import Probe, Reader, address
from mjscope.diagnose.probes.contact_pairs import MIN_NORMAL, SLIP_SPEED, SLIP_TOL, PairTotals
from mjscope.diagnose.probes.contacts import ContactViews
from mjscope.diagnose.recording.scalars import scalar_views
from mjscope.exceptions import OutputError

__all__ = ["CAPTURE_WIDTH", "MIN_NORMAL", "SLIP_SPEED", "SLIP_TOL", "Capture",
           "ContactDetailProbe"]  # fmt: skip

CONTACTS_HEADER = (
    "step,time [s],geom1,geom2,dist [m],condim,friction [1],solref_timeconst [s],"
    "solref_dampratio [1],fn [N],ft [N],ft_over_mufn [1],vt [m/s],sliding"
)
CAPTURE_WIDTH = cp.WIDTH  # floats per captured contact (contact_pairs.FIELDS, then params)
CAPTURE_SAMPLES = 128  # samples of full slots the capture buffer holds between drains


class Capture(NamedTuple):
    """Where a compiled loop puts the sampled rows' contacts (:meth:`ContactDetailProbe.drain`).

    Attributes:
        every: Sample stride [steps].
        buffer: ``(n, CAPTURE_WIDTH)`` float64 rows, one per contact.
        filled: ``(1,)`` int64: rows filled.
        ncon: ``(1,)`` int32 view of ``data.ncon``.
        time: ``(1,)`` float64 view of ``data.time``.
        slots: Most contacts a sampled step may have (more: sampled in Python).
        stride: ``sizeof(mjContact)`` [B].
        fields: Address of contact 0's ``dist``, ``geom``, ``dim``, ``exclude``,
            ``friction``, ``solref``, ``solimp``.
    """

    every: int
    buffer: np.ndarray
    filled: np.ndarray
    ncon: np.ndarray
    time: np.ndarray
    slots: int
    stride: int
    fields: dict[str, int]


class ContactDetailProbe(Probe):
    """Per-contact forces, friction and slip every ``every`` steps; per-pair summary.

    Args:
        steps: Planned rollout steps (the second half is what "sustained" slip looks at).
        every: Sample every this many steps (1: every step).
        path: Long-format CSV of every sampled contact (``None``: no file).
    """

    def __init__(self, steps: int, every: int = 1, path: str | Path | None = None) -> None:
        self.every = max(1, int(every))
        self.late_from = steps // 2
        self.path = Path(path) if path is not None else None
        self.partial = partial_path(self.path) if self.path is not None else None
        self.fh: IO[str] | None = None
        self.lines: list[str] = []
        self.totals = PairTotals(self.late_from)
        self.step = 0

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        self.f6 = np.zeros(6)
        self.views = ContactViews(data, 32)
        self.v1, self.v2 = np.zeros(6), np.zeros(6)
        self.h = float(model.opt.timestep)
        self.names = [geom_name(model, g) for g in range(model.ngeom)] + ["(flex)"]
        self.step = 0
        self.buffer = np.zeros((self.views.slots * CAPTURE_SAMPLES, CAPTURE_WIDTH))
        self.filled = np.zeros(1, np.int64)
        if self.partial is not None and self.fh is None:
            try:
                self.fh = self.partial.open("w", encoding="utf-8", newline="\n")
                self.fh.write(CONTACTS_HEADER + "\n")
            except OSError as e:
                raise OutputError(
                    f"cannot write contacts CSV {str(self.path)!r}: {e.strerror}; choose another"
                ) from e

    def read(self, i: int) -> None:  # noqa: D102
        step = self.step
        self.step = step + 1
        if step % self.every == 0 and self.data.ncon:
            self._sample(step)

    def reader(self) -> Reader:
        """:meth:`read` as a countdown: a non-sampled step costs one decrement.

        ``step`` then follows the recorder's rows (:meth:`flush`), not the calls.
        """
        data, every, sample = self.data, self.every, self._sample
        left = -self.step % every + 1  # calls up to and including the next sampled step
        upcoming = self.step + left - 1  # that step's index

        def read(i: int) -> None:
            nonlocal left, upcoming
            left -= 1
            if left:
                return
            left = every
            step, upcoming = upcoming, upcoming + every
            if data.ncon:
                sample(step)

        return read

    def sampler(self) -> tuple[int, Callable[[int], None]]:
        """Every ``every``-th step: the contacts, if there are any (see :meth:`Probe.sampler`)."""
        data, sample = self.data, self._sample

        def sample_step(step: int) -> None:
            if data.ncon:
                sample(step)

        return self.every, sample_step

    def capture(self) -> Capture | None:
        """The buffer a compiled loop fills at sampled steps, or ``None`` (sample in Python).

        ``None`` with a contacts CSV (its rows need every contact's slip speed) or where
        ``ncon`` and ``time`` cannot be viewed. The loop leaves a step to :meth:`sampler`'s
        function when it has more contacts than the viewed slots, a condim-1 contact (the
        slip speed) or no room left in the buffer.
        """
        if self.path is not None:
            return None
        views = scalar_views(self.data, ("ncon", "time"))
        if views is None:
            return None
        con = self.data.contact
        fields = {
            k: address(getattr(con, k))
            for k in ("dist", "geom", "dim", "exclude", "friction", "solref", "solimp")
        }
        return Capture(
            self.every, self.buffer, self.filled, views["ncon"], views["time"],
            self.views.slots, int(self.views.dist.strides[0]), fields,
        )  # fmt: skip

    def _sample(self, step: int) -> None:
        """This step's contacts (there is at least one) into the capture buffer."""
        rows = self._rows(step)
        n = int(self.filled[0])
        if n + rows.shape[0] > self.buffer.shape[0]:
            self.drain()
            n = 0
        if rows.shape[0] > self.buffer.shape[0]:  # more contacts than the buffer holds
            self._take(rows)
            return
        self.buffer[n : n + rows.shape[0]] = rows
        self.filled[0] = n + rows.shape[0]

    def _rows(self, step: int) -> np.ndarray:
        """The captured rows of this step's contacts (excluded ones left out)."""
        m, d = self.model, self.data
        c = d.contact
        keep = np.flatnonzero(np.asarray(c.exclude) == 0)
        rows = np.zeros((keep.size, CAPTURE_WIDTH))
        rows[:, cp.STEP], rows[:, cp.K], rows[:, cp.TIME] = step, keep, d.time
        rows[:, cp.G1 : cp.G2 + 1] = c.geom[keep]
        rows[:, cp.DIST], rows[:, cp.DIM] = c.dist[keep], c.dim[keep]
        friction = c.friction[keep]
        rows[:, cp.MU] = friction[:, 0]
        rows[:, cp.PARAMS] = np.concatenate([friction, c.solref[keep], c.solimp[keep]], axis=1)
        every_dim = self.path is not None  # the CSV has vt for every condim
        f6, force = self.f6, mujoco.mj_contactForce
        for j, k in enumerate(keep.tolist()):
            force(m, d, k, f6)
            rows[j, cp.FN : cp.F2 + 1] = f6[:3]
            slips = every_dim or rows[j, cp.DIM] == 1
            rows[j, cp.VT] = self._slip_speed(d.contact[k]) if slips else math.nan
        return rows

    def drain(self) -> None:
        """Take the captured contacts into the per-pair totals (and the CSV's lines)."""
        n = int(self.filled[0])
        if not n:
            return
        self.filled[0] = 0
        self._take(self.buffer[:n])

    def _take(self, rows: np.ndarray) -> None:
        groups = self.totals.add(rows)
        if self.fh is not None:
            self._lines(rows, groups)

    def _lines(self, rows: np.ndarray, groups: cp.Groups) -> None:
        """The long-CSV rows of captured contacts, in capture order."""
        names, h, index, params = self.names, self.h, self.totals.index, self.totals.params
        sliding = groups.sliding[groups.of_row].tolist()
        ft_rows = groups.ft_rows.tolist()
        for j, r in enumerate(rows.tolist()):
            step, g1, g2, dim = int(r[cp.STEP]), int(r[cp.G1]), int(r[cp.G2]), int(r[cp.DIM])
            dist, mu, fn, vt, ft = r[cp.DIST], r[cp.MU], r[cp.FN], r[cp.VT], ft_rows[j]
            t = r[cp.TIME] - h
            tc, dr = params[index[(g1, g2)]]["solref"]  # the pair's mixed solref
            ratio = ft / (mu * fn) if fn > MIN_NORMAL and mu > 0 and dim > 1 else 0.0
            self.lines.append(
                f"{step},{t:.10g},{names[g1]},{names[g2]},{dist:.10g},{dim},{mu:.10g},"
                f"{tc:.10g},{dr:.10g},{fn:.10g},{ft:.10g},{ratio:.10g},{vt:.10g},"
                f"{int(sliding[j])}\n"
            )

    def _slip_speed(self, c: Any) -> float:
        """Tangential speed [m/s] of geom 2's surface relative to geom 1's at the contact."""
        m, d = self.model, self.data
        pos = np.asarray(c.pos)
        rel = np.zeros(3)
        for sign, g, v in ((-1.0, int(c.geom[0]), self.v1), (1.0, int(c.geom[1]), self.v2)):
            if g < 0:
                continue
            mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_GEOM, g, v, 0)
            rel += sign * (v[3:] + np.cross(v[:3], pos - d.geom_xpos[g]))
        frame = np.asarray(c.frame).reshape(3, 3)
        return float(np.linalg.norm(frame[1:] @ rel))

    def flush(self, n: int, start: int, raw: np.ndarray) -> None:  # noqa: D102
        self.drain()
        self.step = start + n  # the steps read so far (the fast reader does not count them)
        if self.fh is not None and self.lines:
            try:
                self.fh.write("".join(self.lines))
            except OSError as e:
                raise OutputError(f"cannot write contacts CSV {str(self.path)!r}: {e}") from e
            self.lines.clear()

    def close(self) -> None:  # noqa: D102
        if self.fh is None or self.partial is None or self.path is None:
            return
        fh, self.fh = self.fh, None
        try:
            fh.close()
        except OSError as e:
            raise OutputError(f"cannot write contacts CSV {str(self.path)!r}: {e}") from e
        commit(self.partial, self.path)

    def abort(self) -> None:  # noqa: D102
        if self.fh is not None:
            fh, self.fh = self.fh, None
            fh.close()

    def summary(self) -> dict[str, Any]:  # noqa: D102
        self.drain()
        rows = []
        for key, params, acc in self.totals.rows():
            n = acc[cp.N]
            rows.append(
                {
                    "geom1": self.names[key[0]],
                    "geom2": self.names[key[1]],
                    **params,
                    "samples": int(n),
                    "min_dist_m": acc[cp.DIST_MIN],
                    "max_normal_n": acc[cp.FN_MAX],
                    "mean_normal_n": acc[cp.FN_SUM] / n if n else 0.0,
                    "max_tangential_n": acc[cp.FT_MAX],
                    "max_ft_over_mufn": acc[cp.RATIO_MAX],
                    "sliding_fraction": acc[cp.SLIDE] / n if n else 0.0,
                    "late_samples": int(acc[cp.LATE]),
                    "late_sliding_fraction": (
                        acc[cp.LATE_SLIDE] / acc[cp.LATE] if acc[cp.LATE] else 0.0
                    ),
                    "last_step": int(acc[cp.LAST]),
                    "last_sliding": bool(acc[cp.LAST_SLIDE]),
                }
            )
        rows.sort(key=lambda r: -r["max_normal_n"])
        out: dict[str, Any] = {
            "contact_pairs": rows,
            "contact_sample_every": self.every,
            "contact_last_step": self.step - 1,
        }
        if self.path is not None:
            out["contacts_csv"] = str(self.path)
        return out
