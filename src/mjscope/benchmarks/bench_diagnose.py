"""Diagnose with full per-step recording vs a bare ``mj_step`` loop, same model and steps.

All loops run in this process, interleaved: each repeat times a bare loop, the default
diagnose with the CSV streamed (formatted in a forked writer), the same without per-contact
capture, the default in memory and ``--contacts``, back to back (wall time). The ratios are the
median over repeats of the paired ratios (robust on a shared, noisy machine); the best-of
ratio is in the note. The per-contact capture (the default summary, ``--contacts``) is reported
apart, as its cost over the no-capture run. Also: per-step overhead [µs], the ``--inverse``
ratio, and peak memory (tracemalloc, separate runs).
"""

from __future__ import annotations

import csv
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose import RolloutCfg, run_rollout
from mjscope.diagnose.controls import hold_ctrl
from mjscope.models import load

MODEL = "quadruped"


def _bare(steps: int) -> tuple[float, float]:
    """The bare loop: the same model, the same control as diagnose's default (``hold``).

    Returns:
        (wall time, CPU time of this thread) [s].
    """
    m = load(MODEL)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    d.ctrl[:] = hold_ctrl(m, d)
    c0, t0 = time.thread_time(), time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(m, d)
    return time.perf_counter() - t0, time.thread_time() - c0


def _peer(steps: int, path: Path) -> float:
    """The naive peer a user writes: ``csv.writer`` of time, qpos, qvel, ncon, energy per step."""
    m = load(MODEL)
    m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    d.ctrl[:] = hold_ctrl(m, d)
    t0 = time.perf_counter()
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(
            ["time", *(f"qpos{i}" for i in range(m.nq)), *(f"qvel{i}" for i in range(m.nv)),
             "ncon", "energy_potential", "energy_kinetic"]
        )  # fmt: skip
        for _ in range(steps):
            mujoco.mj_step(m, d)
            w.writerow([d.time, *d.qpos, *d.qvel, d.ncon, *d.energy])
    return time.perf_counter() - t0


def _diagnose(steps: int, csv: Path | None, inverse: bool = False, **kw: Any) -> float:
    return _diagnose_cpu(steps, csv, inverse, **kw)[0]


def _diagnose_cpu(
    steps: int, csv: Path | None, inverse: bool = False, **kw: Any
) -> tuple[float, float, float]:
    """(wall time, CPU time of this thread, CPU time of the forked CSV writer) [s]."""
    m = load(MODEL)
    w0 = _children_cpu()
    c0, t0 = time.thread_time(), time.perf_counter()
    run_rollout(m, RolloutCfg(steps=steps, csv=csv, inverse=inverse, **kw))
    wall, cpu = time.perf_counter() - t0, time.thread_time() - c0
    return wall, cpu, _children_cpu() - w0


def _children_cpu() -> float:
    """User + system CPU time of this process's reaped children (the CSV writers) [s]."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _peak_mib(steps: int, csv: Path) -> float:
    tracemalloc.start()
    run_rollout(load(MODEL), RolloutCfg(steps=steps, csv=csv, contact_every=0))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def _target(ratio: float, limit: float) -> str:
    """The target, marked MISS when ``ratio`` is above it."""
    return f"≤ {limit:g}" + ("" if ratio <= limit else "  MISS")


def _columns(out_hint: int) -> int:
    """How many CSV columns the default diagnose of :data:`MODEL` records."""
    m = load(MODEL)
    from mjscope.diagnose.rollout import probes_for

    return sum(len(p.columns) for p in probes_for(RolloutCfg(steps=out_hint), m))


def _row(metric: str, value: float, unit: str, ratio: float | None, target: str, note: str) -> dict:
    return {"metric": metric, "value": value, "unit": unit, "ratio": ratio, "target": target,
            "note": note}  # fmt: skip


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure and return the rows.

    Each repeat times, back to back: the bare loop; the default diagnose with the CSV
    streamed (``mjscope diagnose quadruped --csv out.csv``: per-contact summary every 10th
    step); the same without per-contact capture (``contact_every=0``: the recorder and CSV
    sink alone); the default diagnose in memory (no CSV); ``--contacts`` (every contact of
    every step, to a long CSV).
    """
    steps = 4000 if quick else 20000
    repeats = 3 if quick else 9
    with tempfile.TemporaryDirectory() as tmp:
        out, contacts = Path(tmp) / "diag.csv", Path(tmp) / "contacts.csv"
        peer_csv = Path(tmp) / "peer.csv"
        runs, cpus = [], []
        for _ in range(repeats):
            bare, bare_cpu = _bare(steps)
            with_csv, csv_cpu, writer_cpu = _diagnose_cpu(steps, out)
            plain = _diagnose(steps, out, contact_every=0)
            memory, memory_cpu, _ = _diagnose_cpu(steps, None)
            runs.append(
                (bare, with_csv, plain, memory, _diagnose(steps, out, contacts=contacts),
                 _peer(steps, peer_csv))
            )  # fmt: skip
            cpus.append((bare_cpu, csv_cpu, memory_cpu, writer_cpu))
        inverse = _diagnose(steps // 4, out, inverse=True, contact_every=0) * 4
        peak_short = _peak_mib(steps // 10, out)
        peak = _peak_mib(steps, out)
    t = np.array(runs)  # (repeats, 6): bare, --csv, no capture, in memory, --contacts, peer [s]
    c = np.array(cpus)  # (repeats, 4): CPU of bare, --csv, in memory; the writer's CPU [s]
    cpu_csv, cpu_mem = (float(np.median(c[:, k] / c[:, 0])) for k in (1, 2))
    writer_us = float(np.median(c[:, 3])) / steps * 1e6
    bare = float(np.median(t[:, 0]))
    r_csv, r_plain, r_mem, r_contacts = (float(np.median(t[:, k] / t[:, 0])) for k in (1, 2, 3, 4))
    best_csv, best_plain, best_mem = (float(t[:, k].min() / t[:, 0].min()) for k in (1, 2, 3))
    r_peer = float(np.median(t[:, 5] / t[:, 0]))
    vs_peer = float(np.median(t[:, 1] / t[:, 5]))
    per_step = bare / steps * 1e6
    blocks = RolloutCfg().block_rows
    writer = "a forked writer when a core is free, else in this process"
    note = (
        f"{MODEL} under hold control, {steps} steps, median of {repeats} paired ratios; "
        f"bare {per_step:.1f} µs/step"
    )
    return [
        _row("diagnose --csv / bare", r_csv, "x", r_csv, _target(r_csv, 1.3),
             f"{note}; default options (per-contact summary every 10th step); "
             f"best-of ratio {best_csv:.2f}"),
        _row("diagnose --csv / naive csv.writer peer", vs_peer, "x", r_csv, _target(vs_peer, 0.75),
             f"the peer writes time, qpos, qvel, ncon, energy per step with csv.writer after "
             f"each mj_step ({r_peer:.2f}x bare); ours writes {_columns(out_hint=steps)} "
             "columns with units"),
        _row("recorder + CSV, no contact capture / bare", r_plain, "x", r_plain, "",
             f"contact_every=0: the recorder and CSV sink alone; best-of ratio {best_plain:.2f}"),
        _row("diagnose (no CSV) / bare", r_mem, "x", r_mem, _target(r_mem, 1.5),
             f"default options, recording in memory only; best-of ratio {best_mem:.2f}"),
        _row("CPU time: diagnose --csv / bare", cpu_csv, "x", cpu_csv, "",
             f"the stepping thread's CPU time (a loaded machine does not inflate it); in "
             f"memory {cpu_mem:.2f}x; the forked writer's CPU apart: {writer_us:.1f} µs per row "
             "on the other core when one is free"),
        _row("overhead per step (--csv)", (r_csv - 1.0) * per_step, "µs", r_csv, "",
             f"{blocks}-row blocks; CSV formatted in {writer}; the CSV's share "
             f"{(r_csv - r_mem) * per_step:.1f} µs ({r_csv - r_mem:+.2f} in ratio)"),
        _row("per-contact summary, every 10th step", (r_csv - r_plain) * per_step, "µs",
             r_csv - r_plain + 1.0, "",
             "the default's per-pair summary and CONTACT_SLIP: cost per step over the "
             "no-capture run, as a ratio 1 + Δ"),
        _row("--contacts (every contact, every step)", (r_contacts - r_plain) * per_step, "µs",
             r_contacts - r_plain + 1.0, "",
             f"mj_contactForce per contact + the long CSV, over the no-capture run, as a ratio "
             f"1 + Δ; whole run {r_contacts:.2f}x bare"),
        _row("diagnose --inverse / bare", inverse / bare, "x", inverse / bare, "",
             "extra mj_forward + mj_inverse per step (only when asked)"),
        _row("peak recording memory", peak, "MiB", None, "flat in steps",
             f"{steps} steps; {peak_short:.2f} MiB at {steps // 10} steps"),
    ]  # fmt: skip
