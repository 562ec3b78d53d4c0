"""Real-time scheduling for teleop's threads (``--rt-priority``): Linux ``SCHED_FIFO``.

A thread under ``SCHED_FIFO`` runs as soon as it wakes, ahead of every normal process, so a
busy machine no longer delays the arm workers' deadlines (nor the XR ingest they read). Taking
it needs root or ``CAP_SYS_NICE``; without, the thread stays at the normal policy and one
warning says how to get it.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger("mjscope.teleop.worker")  # where the workers' warnings go


def set_realtime(who: str, priority: int) -> bool:
    """Put the calling thread under ``SCHED_FIFO`` at ``priority`` (1–99); whether it worked.

    Args:
        who: The thread, for the warning (``left arm``, ``XR ingest``).
        priority: The ``SCHED_FIFO`` priority.
    """
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))  # 0: this thread
    except (AttributeError, OSError) as e:  # not Linux, or not permitted
        log.warning(
            "%s: no real-time priority (%s); running at the normal priority (run as root or "
            "grant CAP_SYS_NICE, or drop --rt-priority)",
            who,
            e,
        )
        return False
    return True
