"""Campaign throughput: quick docking trials per second on 1 and 2 local workers and on Ray.

All in one run: the same perturbed ``iiwa14_docking`` trials (CIC, ``--quick``) through
:func:`mjscope.runner.run_items` on this process (the bare cost of a trial), on a pool of two
worker processes, and on a private two-CPU Ray head on 127.0.0.1. Each backend is warmed up
(one trial per worker: imports, Ray's worker start) before it is timed; the head's start-up is
a one-off and only noted. Reported: trials/s per backend, the parallel efficiency
(speed-up / workers; target ≥ 0.8 at two workers) and Ray's overhead per trial against the
local pool with the same two workers (target ≤ 10 % of a quick trial). A no-op item stream
measures what one item costs the driver on each backend (its result-stream limit). On a
machine whose cores are shared with other work the efficiency is what was measured, no less.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Any

from mjscope.dock.campaign import CampaignCmdCfg, TrialItem, plan, run_trial
from mjscope.runner import ExecutorCfg, LocalRayCluster, run_items
from mjscope.runner.base import Backend
from mjscope.runner.local import InlineBackend, ProcessBackend

PERTURB = "dock_pos=0.0005/0.0005/0,dock_rpy_deg=0.5,friction=0.2:0.5,ft_noise=0.2/0.005"
WORKERS = 2
QUIET = ExecutorCfg(progress=False)


def _noop(x: int) -> int:
    return x


def _items(n: int, first: int = 0) -> list[TrialItem]:
    p = plan(CampaignCmdCfg(trials=first + n, seed=0, quick=True, perturb=PERTURB,
                            out=Path("unused")))  # fmt: skip
    return list(p.items())[first:]


def _rate(be: Backend, fn: Any, items: list[Any]) -> float:
    """Items per second through ``be``."""
    start = time.perf_counter()
    n = sum(1 for r in run_items(fn, items, QUIET, backend=be) if r.ok)
    return n / (time.perf_counter() - start)


def _measure(be: Backend, n: int, warm: int) -> float:
    try:
        _rate(be, run_trial, _items(warm, first=10_000))  # warm-up: other trials
        return _rate(be, run_trial, _items(n))
    finally:
        be.close()


def _noop_cost(make: Any, n: int) -> float:
    """Driver seconds per no-op item on a backend (1 / its item stream limit)."""
    be = make()
    try:
        _rate(be, _noop, list(range(2 * WORKERS)))
        return 1.0 / _rate(be, _noop, list(range(n)))
    finally:
        be.close()


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure the three backends; return the bench rows."""
    n = 4 if quick else 16
    n_noop = 200 if quick else 2000
    r1 = _measure(InlineBackend(run_trial), n, 1)
    r2 = _measure(ProcessBackend(run_trial, WORKERS), n, WORKERS)
    pool_item = _noop_cost(lambda: ProcessBackend(_noop, WORKERS), n_noop)
    trial = 1.0 / r1  # the bare cost of one quick trial [s]
    eff = r2 / r1 / WORKERS
    note = f"{n} quick CIC trials per backend, after warm-up"
    rows = [
        {"metric": "campaign trials/s, 1 worker (this process)", "value": r1, "unit": "1/s",
         "ratio": 1.0, "target": "", "note": f"{note}; {1e3 * trial:.0f} ms per trial"},
        {"metric": "campaign trials/s, 2 local workers", "value": r2, "unit": "1/s",
         "ratio": r2 / r1, "target": "", "note": "speed-up vs 1 worker"},
        {"metric": "parallel efficiency at 2 local workers", "value": eff, "unit": "-",
         "ratio": eff, "target": ">= 0.8", "met": bool(eff >= 0.8),
         "note": "speed-up / workers (cores shared?)"},
        {"metric": "driver cost per item, local pool (no-op items)", "value": 1e3 * pool_item,
         "unit": "ms", "ratio": pool_item / trial, "target": "",
         "note": f"result-stream limit ~{1 / pool_item:.0f} items/s"},
    ]  # fmt: skip
    if importlib.util.find_spec("ray") is None:
        why = 'Ray is not installed: pip install "mjscope[cluster]"'
        rows.append({"metric": "campaign trials/s, local Ray head", "value": "skipped",
                     "unit": "", "target": "", "note": why})  # fmt: skip
        return rows
    return rows + _ray_rows(n, n_noop, r2, trial)


def _ray_rows(n: int, n_noop: int, r2: float, trial: float) -> list[dict[str, Any]]:
    """Ray on a private 2-CPU head on 127.0.0.1, against the pool's rate ``r2`` [1/s]."""
    from mjscope.runner.ray_backend import RayBackend

    t0 = time.perf_counter()
    with LocalRayCluster(num_cpus=WORKERS) as head:
        startup = time.perf_counter() - t0
        rr = _measure(RayBackend(run_trial, head.address), n, WORKERS)
        ray_item = _noop_cost(lambda: RayBackend(_noop, head.address), n_noop)
    overhead = WORKERS / rr - WORKERS / r2  # extra worker-seconds per trial on Ray [s]
    return [
        {"metric": "campaign trials/s, local Ray head (2 CPUs)", "value": rr, "unit": "1/s",
         "ratio": rr * trial, "target": "", "note": f"head start-up {startup:.1f} s (one-off)"},
        {"metric": "Ray overhead per trial vs local pool", "value": 1e3 * overhead, "unit": "ms",
         "ratio": overhead / trial, "target": "<= 0.10 of a quick trial",
         "met": bool(overhead / trial <= 0.10),
         "note": "worker-time per trial, Ray minus pool, same 2 workers"},
        {"metric": "driver cost per item, Ray (no-op items)", "value": 1e3 * ray_item,
         "unit": "ms", "ratio": ray_item / trial, "target": "",
         "note": f"result-stream limit ~{1 / ray_item:.0f} items/s"},
    ]  # fmt: skip


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
