"""Diagnose with full per-step recording vs a bare ``mj_step`` loop, same model and steps.

All loops run in this process, interleaved, best of ``repeats`` (wall time). Rows: ratio with
the CSV streamed (formatted in a forked writer), ratio with the recording kept in memory only,
per-step overhead [µs], the ``--inverse`` ratio, and peak memory (tracemalloc, separate runs).
"""

from __future__ import annotations

import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import mujoco

from mjscope.diagnose.rollout import RolloutCfg, run_rollout
from mjscope.models import load

MODEL = "quadruped"


def _bare(steps: int) -> float:
    m = load(MODEL)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    t0 = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(m, d)
    return time.perf_counter() - t0


def _diagnose(steps: int, csv: Path | None, inverse: bool = False) -> float:
    m = load(MODEL)
    t0 = time.perf_counter()
    run_rollout(m, RolloutCfg(steps=steps, csv=csv, inverse=inverse))
    return time.perf_counter() - t0


def _peak_mib(steps: int, csv: Path) -> float:
    tracemalloc.start()
    run_rollout(load(MODEL), RolloutCfg(steps=steps, csv=csv))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def _row(metric: str, value: float, unit: str, ratio: float | None, target: str, note: str) -> dict:
    return {"metric": metric, "value": value, "unit": unit, "ratio": ratio, "target": target,
            "note": note}  # fmt: skip


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure and return the rows."""
    steps = 4000 if quick else 20000
    repeats = 2 if quick else 5
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "diag.csv"
        bare = with_csv = in_memory = float("inf")
        for _ in range(repeats):
            bare = min(bare, _bare(steps))
            with_csv = min(with_csv, _diagnose(steps, csv))
            in_memory = min(in_memory, _diagnose(steps, None))
        inverse = _diagnose(steps // 4, csv, inverse=True) * 4
        peak_short = _peak_mib(steps // 10, csv)
        peak = _peak_mib(steps, csv)
    per_step = bare / steps * 1e6
    note = f"{MODEL}, {steps} steps, best of {repeats}; bare {per_step:.1f} µs/step"
    r_csv, r_mem = with_csv / bare, in_memory / bare
    return [
        _row("diagnose --csv / bare", r_csv, "x", r_csv, "≤ 1.5 (stretch ≤ 1.2)", note),
        _row("diagnose (no CSV) / bare", r_mem, "x", r_mem, "≤ 1.5", "recording in memory only"),
        _row("overhead per step (--csv)", (with_csv - bare) / steps * 1e6, "µs", r_csv, "",
             "4096-row blocks; CSV formatted in a forked writer"),
        _row("diagnose --inverse / bare", inverse / bare, "x", inverse / bare, "",
             "extra mj_forward + mj_inverse per step (only when asked)"),
        _row("peak recording memory", peak, "MiB", None, "flat in steps",
             f"{steps} steps; {peak_short:.2f} MiB at {steps // 10} steps"),
    ]  # fmt: skip
