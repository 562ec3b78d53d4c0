"""Baselines (S1.14: "keep a baseline curve per model and check later changes against it").

``--baseline DIR``: the first run saves its per-step CSV and its JSON report in ``DIR``
(``baseline.csv``, ``baseline.json``); every later run is compared against them:

- columns: max |run − baseline| over the run, normalised by the baseline column's range
  (:func:`~mjscope.diagnose.compare.rank_columns`); above ``tol`` the column deviates;
- checks: warnings and errors (code and element) the run raises that the baseline did not,
  and those it no longer raises.

The run and the baseline must have the same rollout settings (steps, ctrl, key, seed), or the
comparison would not be like with like.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, NamedTuple

from mjscope.diagnose.compare import compare, rank_columns, read_csv, read_units
from mjscope.diagnose.report import write_json
from mjscope.exceptions import ConfigError
from mjscope.paths import ensure_dir

SETTINGS = ("steps", "ctrl", "key", "seed", "inverse")


class BaselineResult(NamedTuple):
    """How a run compares with its baseline.

    Attributes:
        created: The baseline did not exist and was saved from this run.
        deviating: ``(column, normalised deviation)`` above the tolerance, largest first.
        new_checks: ``"CODE element"`` raised now but not in the baseline.
        gone_checks: ``"CODE element"`` in the baseline but not raised now.
        rows: Row counts (run, baseline).
    """

    created: bool
    deviating: list[tuple[str, float]]
    new_checks: list[str]
    gone_checks: list[str]
    rows: tuple[int, int]

    @property
    def changed(self) -> bool:
        """The model's behaviour differs from the baseline."""
        return bool(self.deviating or self.new_checks or self.rows[0] != self.rows[1])


def baseline_files(folder: str | Path) -> tuple[Path, Path]:
    """``(baseline.csv, baseline.json)`` in ``folder``."""
    d = Path(folder)
    return d / "baseline.csv", d / "baseline.json"


def check_baseline(
    folder: str | Path, csv: str | Path, report: dict[str, Any], tol: float
) -> BaselineResult:
    """Save the run as the baseline (first use) or compare it with the saved one.

    Args:
        folder: The baseline folder.
        csv: The run's per-step CSV.
        report: The run's report.
        tol: Largest accepted normalised deviation of a column [1].

    Raises:
        ConfigError: The baseline was made with other rollout settings, or is unreadable.
        OutputError: The baseline cannot be written.
    """
    bcsv, bjson = baseline_files(folder)
    if not bcsv.is_file() or not bjson.is_file():
        ensure_dir(folder, "baseline folder")
        shutil.copyfile(csv, bcsv)
        write_json(report, bjson)
        n = len(read_csv(bcsv)[1])
        return BaselineResult(True, [], [], [], (n, n))
    try:
        base = json.loads(bjson.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ConfigError(f"--baseline: {bjson} is not a diagnose report ({e})") from e
    _same_settings(base, report, folder)
    run, ref = read_csv(csv), read_csv(bcsv)
    res = compare(ref, run, 0.0)
    ranked = rank_columns(res, ref, run, read_units(bcsv))
    deviating = [(c, d) for c, d in ranked if d > tol]
    now, before = _checks(report), _checks(base)
    return BaselineResult(
        False,
        deviating,
        [c for c in now if c not in before],
        [c for c in before if c not in now],
        (res["rows_b"], res["rows_a"]),
    )


def _checks(report: dict[str, Any]) -> list[str]:
    return [
        f"{c['code']} {c['element']}" for c in report.get("checks", []) if c["severity"] != "info"
    ]


def _same_settings(base: dict[str, Any], report: dict[str, Any], folder: str | Path) -> None:
    a, b = base.get("rollout", {}), report["rollout"]
    diff = [f"{k} {a.get(k)!r} → {b.get(k)!r}" for k in SETTINGS if a.get(k) != b.get(k)]
    if base.get("model") != report.get("model"):
        diff.insert(0, f"model {base.get('model')!r} → {report.get('model')!r}")
    if diff:
        raise ConfigError(
            f"--baseline {str(folder)!r} was made with other settings ({'; '.join(diff)}): "
            "run with the same ones, or choose a new folder"
        )
