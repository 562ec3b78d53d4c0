"""The executor shared by diagnose sweeps and docking campaigns: local processes or Ray.

``run_items(fn, items, ExecutorCfg(jobs=2))`` maps ``fn`` over numbered, idempotent items on
this process (``jobs=1``), a local process pool (default: one worker per CPU) or a Ray cluster
(``ray="auto" | "local" | ADDRESS``, optional extra ``mjscope[cluster]``), and yields the
results in index order whatever the backend, retrying items whose worker failed or died.
"""

from mjscope.runner.base import ExecutorCfg, ExecutorError, ItemResult, RunInterrupted
from mjscope.runner.cluster import LocalRayCluster
from mjscope.runner.executor import default_workers, open_backend, run_items

__all__ = [
    "ExecutorCfg",
    "ExecutorError",
    "ItemResult",
    "LocalRayCluster",
    "RunInterrupted",
    "default_workers",
    "open_backend",
    "run_items",
]
