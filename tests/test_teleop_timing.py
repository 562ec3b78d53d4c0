"""The per-arm stage log: rows kept as lists, written into the ring in batches."""

from __future__ import annotations

import numpy as np
import pytest

from mjscope.teleop.timing import StageLog


@pytest.mark.parametrize(("capacity", "cycles"), [(5, 3), (5, 12), (7, 1030), (2000, 2500)])
def test_the_summary_covers_the_newest_cycles_across_batches_and_wrap_around(
    capacity: int, cycles: int
) -> None:
    log = StageLog(capacity)
    for i in range(cycles):
        row = log.next()
        row[1] = i * 1e-6  # target [s]
        if i % 2:
            row[2] = 1e-3  # ik, every other cycle
    kept = np.arange(cycles)[-capacity:]
    s = log.summary()
    assert s["target"]["n"] == kept.size and s["target"]["max_us"] == pytest.approx(kept.max())
    assert s["target"]["p50_us"] == pytest.approx(np.percentile(kept, 50), abs=0.01)
    assert s["ik"]["n"] == int((kept % 2).sum()) and s["xr"]["n"] == 0
    assert log.summary() == s  # asking again changes nothing
    log.next()[1] = 5.0  # the cycles go on after a summary
    assert log.summary()["target"]["max_us"] == pytest.approx(5e6)
