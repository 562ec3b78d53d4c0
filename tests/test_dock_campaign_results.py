"""Campaign results: fixed cell formatting, streamed table, Wilson interval, tallies."""

from __future__ import annotations

import json
import math

import pytest

from mjscope.dock.campaign_results import (
    COLUMNS,
    Tally,
    TrialTable,
    cell,
    csv_line,
    markdown,
    wilson,
)


def test_wilson_interval_matches_hand_computed_values() -> None:
    # 8 of 10, z = 1.96: centre (0.8 + z²/20)/(1 + z²/10),
    # half-width z·sqrt(0.016 + z²/400)/(1 + z²/10)
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.49016, abs=5e-5) and hi == pytest.approx(0.94332, abs=5e-5)
    lo, hi = wilson(0, 10)  # no success: [0, z²/(n + z²)]
    z2 = 1.959963984540054**2
    assert lo == 0.0 and hi == pytest.approx(z2 / (10 + z2), abs=1e-12)
    assert wilson(10, 10) == (pytest.approx(10 / (10 + z2), abs=1e-12), 1.0)
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_cells_have_one_fixed_format() -> None:
    assert cell(0.1 + 0.2) == "0.3" and cell(1 / 3) == "0.3333333333"
    assert cell(-0.0) == "0" and cell(float("nan")) == "nan" and cell(True) == "true"
    assert cell(12) == "12" and cell(None) == "" and cell(2.5e-7) == "2.5e-07"


def _row(k: int, success: bool, margin: float, **kw: object) -> dict[str, object]:
    row: dict[str, object] = dict.fromkeys(COLUMNS, math.nan)
    row.update(trial=k, controller="cic", success=success, status="ok", margin=margin,
               failed_checks="" if success else "final_lateral_error", error="")  # fmt: skip
    row.update(kw)
    return row


def test_table_streams_rows_to_csv_and_json(tmp_path) -> None:  # type: ignore[no-untyped-def]
    table = TrialTable(tmp_path / "t.csv", tmp_path / "t.json")
    rows = [_row(0, True, 0.2, peak_contact_force=1 / 3), _row(1, False, -0.5)]
    for r in rows:
        table.add(r)
    assert not (tmp_path / "t.csv").exists()  # only the partial file until the end
    table.close()
    lines = (tmp_path / "t.csv").read_text().splitlines()
    assert lines[0] == ",".join(COLUMNS) and lines[1:] == [csv_line(r) for r in rows]
    assert "0.3333333333" in lines[1]
    data = json.loads((tmp_path / "t.json").read_text())
    assert [d["trial"] for d in data] == [0, 1] and data[0]["peak_contact_force"] == 0.3333333333
    assert data[1]["time_to_depth"] is None  # NaN → null: the JSON stays standard


def test_tally_counts_rate_and_keeps_the_worst_trials() -> None:
    t = Tally("cic")
    margins = [0.3, -0.2, 0.1, math.nan, 0.5, -0.1]
    for k, m in enumerate(margins):
        t.add(_row(k, m > 0, m, peak_contact_force=float(k)))
    t.add(_row(6, False, math.nan, status="error"))
    s = t.summary()
    assert (s["trials"], s["successes"], s["errors"]) == (7, 3, 1)
    assert s["success_rate"] == 0.5  # errors are not in the denominator
    assert (s["wilson95_low"], s["wilson95_high"]) == tuple(
        float(format(x, ".10g")) for x in wilson(3, 6))  # fmt: skip
    assert s["median_peak_contact_force"] == 2.5
    assert [r["trial"] for r in t.worst_rows()] == [3, 1, 5]  # NaN (no data) first
    md = markdown({"scene": "s", "trials": 6, "seed": 0, "perturb": ""}, [s], ["| x |"])
    assert "| cic | 6 | 3 | 1 | 0.5 | [0.188, 0.812] |" in md and "| x |" in md
