"""Sweep summary figures: one number per run against the swept value.

- ``sweep_bars.png``: a two-axis bar chart, one group per swept value: the sweep's metric on
  the left axis, the wall time per step [µs] on the right (S1.11 exercise 6: condim vs the
  cylinder's z drop and the step cost).
- ``sweep_curve.png`` (numeric values only): the metric against the swept number, log axes
  when they span more than a decade (exercise 5: ``solref[0]`` vs the largest separation).

The metric (:func:`primary_metric`): the largest equality violation when the model has
equalities, else the largest z drop of a free-floating body, else the final CoM height.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mjscope.diagnose.outputs import third_party_warnings_to_log
from mjscope.diagnose.plots import _out, _pyplot, _save

METRICS = {
    "max_eq_violation": "largest equality violation [m]",
    "max_z_drop_mm": "largest z drop of a free body [mm]",
    "final_com_z_m": "final CoM height [m]",
}


def primary_metric(rows: list[dict[str, Any]]) -> str:
    """The table column the summary figures show (module docstring)."""
    for key in METRICS:
        if all(key in r for r in rows):
            return key
    return "final_com_z_m"


def _first_number(value: str) -> float | None:
    try:
        return float(value.replace(",", " ").split()[0])
    except (ValueError, IndexError):
        return None


def plot_sweep_summary(rows: list[dict[str, Any]], folder: str | Path, title: str) -> list[Path]:
    """Write the summary figures of a sweep's table rows; returns the files written."""
    metric = primary_metric(rows)
    paths = [_out(folder, "sweep_bars.png")]
    xs = [_first_number(str(r["value"])) for r in rows]
    numeric = all(x is not None for x in xs) and len(rows) > 1
    if numeric:
        paths.append(_out(folder, "sweep_curve.png"))
    with third_party_warnings_to_log():
        out = [_bars(rows, metric, paths[0], title)]
        if numeric:
            out.append(
                _curve(rows, [float(x) for x in xs if x is not None], metric, paths[1], title)
            )
    return out


def _bars(rows: list[dict[str, Any]], metric: str, path: Path, title: str) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.6))
    labels = [str(r["value"]) for r in rows]
    x = np.arange(len(rows))
    w = 0.38
    left = ax.bar(x - w / 2, [r[metric] for r in rows], w, color="tab:blue", label=METRICS[metric])
    ax.set_ylabel(METRICS[metric], color="tab:blue")
    ax.tick_params(axis="y", colors="tab:blue")
    ax2 = ax.twinx()
    cost = [r["us_per_step"] for r in rows]
    right = ax2.bar(x + w / 2, cost, w, color="tab:orange", label="CPU time per mj_step [µs]")
    ax2.set_ylabel("mean CPU time per mj_step [µs]", color="tab:orange")
    ax2.tick_params(axis="y", colors="tab:orange")
    ax.set_xticks(x, labels)
    ax.set_xlabel(rows[0]["setting"])
    ax.bar_label(left, fmt="%.3g", fontsize=7)
    ax2.bar_label(right, fmt="%.3g", fontsize=7)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(
        handles=[left, right], fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2
    )
    ax.set_title(title, fontsize=9)
    return _save(plt, fig, path)


def _curve(
    rows: list[dict[str, Any]], xs: list[float], metric: str, path: Path, title: str
) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    ys = np.array([r[metric] for r in rows], dtype=float)
    order = np.argsort(xs)
    xa = np.asarray(xs)[order]
    ax.plot(xa, ys[order], "o-", lw=1.2)
    for xv, yv in zip(xa, ys[order], strict=True):
        ax.annotate(f"{yv:.3g}", (xv, yv), textcoords="offset points", xytext=(4, 4), fontsize=7)
    if xa.min() > 0 and xa.max() / xa.min() > 10:
        ax.set_xscale("log")
    pos = ys[ys > 0]
    if pos.size == ys.size and pos.max() / pos.min() > 10:
        ax.set_yscale("log")
    ax.set_xlabel(f"{rows[0]['setting']} (first number)")
    ax.set_ylabel(METRICS[metric])
    ax.grid(alpha=0.3, which="both")
    ax.set_title(title, fontsize=9)
    return _save(plt, fig, path)
