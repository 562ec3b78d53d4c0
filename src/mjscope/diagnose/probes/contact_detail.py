"""Per-contact detail: forces in the contact frame, friction, softness and slip, by geom pair.

What S1.10's ``diagnose_contacts`` prints, recorded over the rollout: for each active contact
the geom pair, ``dist``, condim, the mixed friction, solref and solimp, and its force from
``mj_contactForce`` in the contact frame (normal ``f_n`` [N], tangential ``|f_t|`` [N]). A
geom pair **slides** at a step when its contacts carry a normal force and their friction is
saturated, ``Σ|f_t| ≥ (1 − SLIP_TOL)·μ·Σf_n`` (μ: the first friction coefficient; summed over
the pair's contacts, because the solver may load one corner of a resting box lightly and push
that corner to its cone), or when it is frictionless (condim 1) and its surfaces move
tangentially faster than :data:`SLIP_SPEED`.

The probe reads every ``every``-th step (a Python call per contact: the rollout stays cheap
when only the per-pair summary is wanted); with a path it writes every sampled contact as one
row of a long-format CSV (``--contacts FILE.csv``), through a partial file renamed when the
rollout completes (:mod:`mjscope.diagnose.outputs`); the CSV's tangential slip speed ``vt``
is measured for every condim (without a file only for condim 1, where slip needs it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import mujoco
import numpy as np

from mjscope.diagnose.names import geom_name
from mjscope.diagnose.outputs import commit, partial_path
from mjscope.diagnose.probes.base import Probe, Reader
from mjscope.diagnose.probes.contacts import ContactViews
from mjscope.exceptions import OutputError

SLIP_TOL = 0.02  # friction counts as saturated within 2 % of μ·f_n [1]
SLIP_SPEED = 1e-3  # frictionless contacts slide above this tangential speed [m/s]
MIN_NORMAL = 1e-6  # contacts with a smaller normal force carry nothing [N]
CONTACTS_HEADER = (
    "step,time [s],geom1,geom2,dist [m],condim,friction [1],solref_timeconst [s],"
    "solref_dampratio [1],fn [N],ft [N],ft_over_mufn [1],vt [m/s],sliding"
)

# Per-pair accumulator slots.
(_N, _SLIDE, _LATE, _LATE_SLIDE, _FN_MAX, _FN_SUM, _FT_MAX, _RATIO_MAX, _DIST_MIN, _LAST,
 _LAST_SLIDE) = range(11)  # fmt: skip


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
        self.pairs: dict[tuple[int, int], list[float]] = {}
        self.params: dict[tuple[int, int], dict[str, Any]] = {}
        self.step = 0

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        self.f6 = np.zeros(6)
        self.fv = self.f6.data  # Python floats without a list per contact
        self.views = ContactViews(data, 32)
        v = self.views
        self.fields = (v.geom1, v.geom2, v.dist, v.dim, v.mu, v.exclude)
        self.v1, self.v2 = np.zeros(6), np.zeros(6)
        self.h = float(model.opt.timestep)
        self.names = [geom_name(model, g) for g in range(model.ngeom)] + ["(flex)"]
        self.step = 0
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

    def _sample(self, step: int) -> None:
        """Capture this step's contacts (there is at least one) into the per-pair totals."""
        groups: dict[tuple[int, int], list[tuple[Any, ...]]] = {}
        for row in self._contacts():
            key = (row[0], row[1])
            rows = groups.get(key)
            if rows is None:
                groups[key] = [row]
            else:
                rows.append(row)
        late = step >= self.late_from
        add = self._add_pair
        for key, rows in groups.items():
            add(key, rows, step, late)

    def _contacts(self) -> list[tuple[Any, ...]]:
        """(g1, g2, dist, dim, μ, f_n, |f_t|, v_t, index) of each active contact.

        The first slots are read through fixed views (one list per field, Python numbers);
        contacts beyond them through ``data.contact``.
        """
        m, d, v = self.model, self.data, self.views
        n = d.ncon
        s = min(n, v.slots)
        fields = [a[:s].tolist() for a in self.fields]
        for k in range(s, n):  # beyond the viewed slots (rare): one struct read each
            c = d.contact[k]
            extra = (int(c.geom[0]), int(c.geom[1]), float(c.dist), int(c.dim))
            for lst, x in zip(fields, (*extra, float(c.friction[0]), int(c.exclude)), strict=True):
                lst.append(x)
        out = []
        force, hypot, nan, f6, fv = mujoco.mj_contactForce, math.hypot, math.nan, self.f6, self.fv
        every_dim = self.path is not None  # the CSV has vt for every condim
        k = -1
        for g1, g2, dist, dim, mu, exclude in zip(*fields, strict=True):
            k += 1
            if exclude:
                continue
            force(m, d, k, f6)
            vt = self._slip_speed(d.contact[k]) if dim == 1 or every_dim else nan
            out.append((g1, g2, dist, dim, mu, fv[0], hypot(fv[1], fv[2]), vt, k))
        return out

    def _add_pair(
        self, key: tuple[int, int], rows: list[tuple[Any, ...]], step: int, late: bool
    ) -> None:
        """One geom pair at one step: its contacts' totals decide whether it slides."""
        if len(rows) == 1:  # the usual case; the same numbers as the sums below
            r = rows[0]
            dim, mu, dmin, vmax = r[3], r[4], r[2], r[7]
            fn, ft = 0 + r[5], 0 + r[6]
        else:
            dim, mu = rows[0][3], rows[0][4]
            fn = sum([r[5] for r in rows])
            ft = sum([r[6] for r in rows])
            dmin = min([r[2] for r in rows])
            vmax = max([r[7] for r in rows])
        ratio = ft / (mu * fn) if fn > MIN_NORMAL and mu > 0 and dim > 1 else 0.0
        if dim > 1:
            sliding = fn > MIN_NORMAL and ratio >= 1.0 - SLIP_TOL
        else:
            sliding = fn > MIN_NORMAL and vmax > SLIP_SPEED
        acc = self.pairs.get(key)
        if acc is None:
            acc = self._new_pair(key, rows[0][8], dim)
        acc[0] += 1  # _N
        acc[1] += sliding  # _SLIDE
        if late:
            acc[2] += 1  # _LATE
            acc[3] += sliding  # _LATE_SLIDE
        if fn > acc[4]:  # _FN_MAX; the comparisons keep max()/min()'s picks, NaN included
            acc[4] = fn
        acc[5] += fn  # _FN_SUM
        if ft > acc[6]:  # _FT_MAX
            acc[6] = ft
        if ratio > acc[7]:  # _RATIO_MAX
            acc[7] = ratio
        if dmin < acc[8]:  # _DIST_MIN
            acc[8] = dmin
        acc[9], acc[10] = step, sliding  # _LAST, _LAST_SLIDE
        if self.fh is not None:
            self._lines(key, rows, step, sliding)

    def _new_pair(self, key: tuple[int, int], k: int, dim: int) -> list[float]:
        """The accumulator of a pair first seen at contact ``k``; records its parameters."""
        c = self.data.contact[k]
        acc = self.pairs[key] = [0.0] * 11
        acc[_DIST_MIN] = float("inf")
        self.params[key] = {
            "condim": dim,
            "friction": [float(x) for x in c.friction],
            "solref": [float(x) for x in c.solref],
            "solimp": [float(x) for x in c.solimp],
        }
        return acc

    def _lines(
        self, key: tuple[int, int], rows: list[tuple[Any, ...]], step: int, sliding: bool
    ) -> None:
        """The long-CSV rows of one pair's contacts at one step."""
        t = self.data.time - self.h
        n1, n2 = self.names[key[0]], self.names[key[1]]
        tc, dr = self.params[key]["solref"]  # the pair's mixed solref (first contact's)
        for _, _, dist, dim, mu, fn, ft, vt, _ in rows:
            r = ft / (mu * fn) if fn > MIN_NORMAL and mu > 0 and dim > 1 else 0.0
            self.lines.append(
                f"{step},{t:.10g},{n1},{n2},{dist:.10g},{dim},{mu:.10g},{tc:.10g},"
                f"{dr:.10g},{fn:.10g},{ft:.10g},{r:.10g},{vt:.10g},{int(sliding)}\n"
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
        rows = []
        for key, acc in self.pairs.items():
            n = acc[_N]
            rows.append(
                {
                    "geom1": self.names[key[0]],
                    "geom2": self.names[key[1]],
                    **self.params[key],
                    "samples": int(n),
                    "min_dist_m": acc[_DIST_MIN],
                    "max_normal_n": acc[_FN_MAX],
                    "mean_normal_n": acc[_FN_SUM] / n if n else 0.0,
                    "max_tangential_n": acc[_FT_MAX],
                    "max_ft_over_mufn": acc[_RATIO_MAX],
                    "sliding_fraction": acc[_SLIDE] / n if n else 0.0,
                    "late_samples": int(acc[_LATE]),
                    "late_sliding_fraction": acc[_LATE_SLIDE] / acc[_LATE] if acc[_LATE] else 0.0,
                    "last_step": int(acc[_LAST]),
                    "last_sliding": bool(acc[_LAST_SLIDE]),
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
