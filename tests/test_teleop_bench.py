"""The teleop benchmark's rows (shape and sanity; the figures themselves are machine-bound)."""

from __future__ import annotations

import math

from mjscope.benchmarks import bench_teleop


def test_cycle_rows_compare_against_bare_placo() -> None:
    rows = bench_teleop.bench_cycle(quick=True)
    assert [r["unit"] for r in rows] == ["µs", "µs", "µs"]
    for r in rows:
        assert math.isfinite(r["value"]) and r["value"] > 0 and r["ratio"] > 1.0
        assert set(r) == {"metric", "value", "unit", "ratio", "target", "note"}
    assert rows[1]["target"] == "≤ 500 µs"
    assert "3000 engaged arm-cycles of 3000" in rows[0]["note"]  # every cycle ran the chain
