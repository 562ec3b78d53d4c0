"""A campaign's results: the per-trial table streamed to disk, tallies, Wilson intervals.

The table has fixed columns (:data:`COLUMNS`) and fixed number formatting (:func:`cell`: ten
significant digits), and holds no wall times, so the same campaign gives byte-identical CSV and
JSON files on any backend. Rows are written as they arrive (in trial order) into partial files
that are renamed into place at the end, or when the run is interrupted, so memory stays flat
and finished trials are kept. The tallies keep per controller only counts, the few worst trials
and the four plotted metrics as compact float arrays.
"""

from __future__ import annotations

import csv
import heapq
import io
import json
import math
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from mjscope.paths import check_writable, move_into_place, part_path

#: The per-trial table's columns, in order.
COLUMNS = (
    "trial", "controller", "success", "status", "margin", "failed_checks",
    "final_insertion_depth", "time_to_depth", "peak_contact_force", "final_lateral_error",
    "final_axis_angle", "steady_state_force", "contact_onset_time", "pos_err_rms_settled",
    "impact_peak_force", "impact_impulse", "force_tracking_rms", "torque_rms", "torque_peak",
    "injected_energy", "joint_limit_margin", "limit_violations", "time_to_depth_after_contact",
    "dock_dx", "dock_dy", "dock_dz", "dock_droll_deg", "dock_dpitch_deg", "dock_dyaw_deg",
    "friction", "tool_mass", "q0_offset_max", "ft_noise_force", "ft_noise_torque", "error",
)  # fmt: skip
#: Distribution metrics (column, label, scale to the plotted unit).
PLOTTED = (
    ("peak_contact_force", "peak contact force [N]", 1.0),
    ("time_to_depth", "time to depth [s]", 1.0),
    ("final_lateral_error", "residual lateral error [mm]", 1e3),
    ("final_axis_angle", "residual axis angle [deg]", 180.0 / math.pi),
    ("impact_peak_force", "impact peak, first 20 ms [N]", 1.0),
    ("force_tracking_rms", "force tracking RMS [N]", 1.0),
    ("torque_rms", "joint torque RMS [N·m]", 1.0),
    ("injected_energy", "energy injected [J]", 1.0),
)
Z95 = 1.959963984540054  # two-sided 95 % normal quantile
WORST = 3  # worst trials listed per controller


def cell(v: Any) -> str:
    """One table cell: booleans ``true``/``false``, floats with 10 significant digits."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else format(v + 0.0, ".10g")  # + 0.0: no "-0"
    return "" if v is None else str(v)


def json_value(v: Any) -> Any:
    """The cell's value for JSON: the same rounding as the CSV; NaN → ``null``."""
    if isinstance(v, float):
        return None if math.isnan(v) else float(format(v + 0.0, ".10g"))
    return v


def csv_line(row: dict[str, Any]) -> str:
    """The row as one CSV line (no line end)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow([cell(row.get(c)) for c in COLUMNS])
    return buf.getvalue()


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (95 % by default); (nan, nan) for n = 0."""
    if n == 0:
        return math.nan, math.nan
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends, no rounding residue
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


class TrialTable:
    """``trials.csv`` and ``trials.json`` (an array of row objects), written row by row.

    Args:
        csv_path: The CSV file.
        json_path: The JSON file.
    """

    def __init__(self, csv_path: Path, json_path: Path) -> None:
        self.paths = (check_writable(csv_path), check_writable(json_path))
        self._parts = (part_path(self.paths[0]), part_path(self.paths[1]))
        self._csv: TextIO = self._parts[0].open("w", encoding="utf-8", newline="")
        self._json: TextIO = self._parts[1].open("w", encoding="utf-8")
        self._csv.write(",".join(COLUMNS) + "\n")
        self._json.write("[")
        self.rows = 0

    def add(self, row: dict[str, Any]) -> None:
        """Append one row to both files."""
        self._csv.write(csv_line(row) + "\n")
        obj = {c: json_value(row.get(c)) for c in COLUMNS}
        self._json.write(("\n  " if self.rows == 0 else ",\n  ") + json.dumps(obj))
        self.rows += 1

    def close(self) -> list[Path]:
        """Finish both files and move them into place; returns their paths."""
        self._json.write("\n]\n" if self.rows else "]\n")
        for f in (self._csv, self._json):
            f.close()
        for part, path in zip(self._parts, self.paths, strict=True):
            move_into_place(part, path)
        return list(self.paths)

    def discard(self) -> None:
        """Close and remove the partial files (a run that failed before any trial)."""
        for f, part in zip((self._csv, self._json), self._parts, strict=True):
            f.close()
            part.unlink(missing_ok=True)


@dataclass
class Tally:
    """One controller's results so far.

    Attributes:
        name: The controller.
        trials: Trials finished (errors included).
        successes: Trials that passed the gate.
        errors: Trials whose run failed after every retry (not counted in the rate).
        values: The :data:`PLOTTED` metrics, one float per finished trial (NaN kept).
        worst: Heap of the :data:`WORST` lowest-margin trials as ``(-key, -trial, row)``.
        failed: Trials that did not pass (errors included), in arrival (trial) order.
    """

    name: str
    trials: int = 0
    successes: int = 0
    errors: int = 0
    values: dict[str, array] = field(default_factory=lambda: {k: array("d") for k, *_ in PLOTTED})
    worst: list[tuple[float, int, dict[str, Any]]] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)

    def add(self, row: dict[str, Any]) -> None:
        """Count one row."""
        self.trials += 1
        if row["status"] == "error" or not row["success"]:
            self.failed.append(int(row["trial"]))
        if row["status"] == "error":
            self.errors += 1
            return
        self.successes += bool(row["success"])
        for k, *_ in PLOTTED:
            self.values[k].append(float(row[k]))
        margin = float(row["margin"])
        key = -math.inf if math.isnan(margin) else margin
        heapq.heappush(self.worst, (-key, -int(row["trial"]), row))
        if len(self.worst) > WORST:
            heapq.heappop(self.worst)

    @property
    def runs(self) -> int:
        """Trials that ran to the end (the rate's denominator)."""
        return self.trials - self.errors

    def summary(self) -> dict[str, Any]:
        """Counts, rate, Wilson 95 % interval and medians of the plotted metrics."""
        lo, hi = wilson(self.successes, self.runs)
        rate = self.successes / self.runs if self.runs else math.nan
        out: dict[str, Any] = {
            "controller": self.name, "trials": self.trials, "successes": self.successes,
            "errors": self.errors, "success_rate": rate, "wilson95_low": lo, "wilson95_high": hi,
        }  # fmt: skip
        for k, *_ in PLOTTED:
            finite = sorted(v for v in self.values[k] if math.isfinite(v))
            out[f"median_{k}"] = _median(finite)
        out["failed_trials"] = list(self.failed)
        return {k: json_value(v) for k, v in out.items()}

    def worst_rows(self) -> list[dict[str, Any]]:
        """The worst trials, lowest margin first."""
        return [r for *_, r in sorted(self.worst, key=lambda e: (-e[0], -e[1]))]


def _median(xs: list[float]) -> float:
    if not xs:
        return math.nan
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def markdown(head: dict[str, Any], summaries: list[dict[str, Any]], worst: list[str]) -> str:
    """The campaign's Markdown summary.

    Args:
        head: ``scene``, ``trials``, ``seed``, ``perturb`` (text), ``interrupted``.
        summaries: :meth:`Tally.summary` of each controller.
        worst: Table lines of the worst trials (``| controller | trial | ... |``).
    """
    lines = [
        f"# Docking campaign: {head['scene']}",
        "",
        f"{head['trials']} trials per controller, seed {head['seed']}; "
        f"perturbations: {head['perturb'] or 'none'}.",
    ]
    if head.get("interrupted"):
        lines += ["", f"**Interrupted**: {head['done']} of {head['planned']} runs finished."]
    lines += [
        "",
        "| controller | runs | successes | errors | success rate | Wilson 95 % | "
        + " | ".join(label for _, label, _ in PLOTTED)
        + " |",
        "|---|---|---|---|---|---|" + "---|" * len(PLOTTED),
    ]
    for s in summaries:
        med = [_num(s[f"median_{k}"], scale) for k, _, scale in PLOTTED]
        lines.append(
            f"| {s['controller']} | {s['trials'] - s['errors']} | {s['successes']} | "
            f"{s['errors']} | {_num(s['success_rate'], 1.0)} | "
            f"[{_num(s['wilson95_low'], 1.0)}, {_num(s['wilson95_high'], 1.0)}] | "
            + " | ".join(med)
            + " |"
        )
    lines += ["", "Metric columns are medians over the runs where the quantity occurred.", ""]
    failed = [f"- {s['controller']}: trials {', '.join(map(str, s['failed_trials']))}"
              for s in summaries if s.get("failed_trials")]  # fmt: skip
    lines += ["## Failed trials", "", *(failed or ["none"]), ""]
    lines += ["## Worst trials", "", "| controller | trial | margin | failed checks | replay |"]
    lines += ["|---|---|---|---|---|", *worst, ""]
    return "\n".join(lines)


def _num(v: float | None, scale: float) -> str:
    return "n/a" if v is None or math.isnan(v) else f"{v * scale:.3g}"
