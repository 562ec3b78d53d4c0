"""PNG plots of a rollout and of sweeps/comparisons (matplotlib, Agg backend).

Each PNG is written whole (:func:`~mjscope.diagnose.outputs.save_figure`); matplotlib's own
warnings (layout, legend placement) go to the log, not the user's terminal. Values a diverged
run or a foreign CSV may hold (NaN, ±inf, |x| ≥ :data:`PLOT_LIMIT`) are drawn as gaps: near
±1e308 matplotlib's tick locator cannot even compute the axis range.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mjscope.diagnose.outputs import save_figure, third_party_warnings_to_log
from mjscope.diagnose.rollout import RolloutResult
from mjscope.paths import ensure_dir

PANELS = (
    ("com_z", "CoM height [m]"),
    ("ncon", "contacts [count]"),
    ("pen_max", "max penetration [m]"),
    ("forces", "generalized force norms [N|Nm]"),
    ("solver_niter", "solver iterations"),
    ("eq_pos_max", "equality violation [m|rad]"),  # only for models with equalities
)
OPTIONAL_PANELS = ("eq_pos_max",)
PLOT_LIMIT = 1e150  # larger magnitudes are not drawn (a gap in the line)
FORCE_COLUMNS = (
    "qfrc_bias_norm",
    "qfrc_constraint_norm",
    "qfrc_actuator_norm",
    "qfrc_passive_norm",
)


def _pyplot() -> Any:
    log = logging.getLogger("matplotlib")  # font-cache notes etc.; the user set it: keep theirs
    if log.level == logging.NOTSET:
        log.setLevel(logging.ERROR)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(plt: Any, fig: Any, path: Path) -> Path:
    """Lay out ``fig``, write it whole to ``path`` and close it (also when writing fails)."""
    try:
        fig.tight_layout()
        return save_figure(fig, path)
    finally:
        plt.close(fig)


def plottable(values: np.ndarray) -> np.ndarray:
    """``values`` as float with NaN where matplotlib cannot place them (non-finite, huge)."""
    v = np.asarray(values, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(v) < PLOT_LIMIT, v, np.nan)


def _out(folder: str | Path, name: str) -> Path:
    return ensure_dir(folder, "plot folder") / name


def plot_rollout(result: RolloutResult, folder: str | Path, title: str) -> Path:
    """Stacked panels: CoM height, contacts, penetration, force norms, solver iterations.

    A last panel, the largest equality violation, when the model has equalities.
    """
    names = [h.split(" [")[0] for h in result.header]
    data = result.preview
    return plot_series([(title, names, data)], folder, "diagnose.png", title)


def plot_series(
    runs: Sequence[tuple[str, list[str], np.ndarray]], folder: str | Path, filename: str, title: str
) -> Path:
    """Overlay several runs (label, column names, rows) in the standard panels."""
    path = _out(folder, filename)  # an unusable folder fails before any drawing
    with third_party_warnings_to_log():
        return _draw_series(runs, path, title)


def _draw_series(runs: Sequence[tuple[str, list[str], np.ndarray]], path: Path, title: str) -> Path:
    plt = _pyplot()
    have = {n for _, names, _ in runs for n in names}
    panels = [p for p in PANELS if p[0] not in OPTIONAL_PANELS or p[0] in have]
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.2 * len(panels)), sharex=True)
    # One run: every force term; an overlay of runs: the constraint force only, to stay legible.
    forces = FORCE_COLUMNS if len(runs) == 1 else ("qfrc_constraint_norm",)
    for label, names, rows in runs:
        if rows.size == 0:
            continue
        t = plottable(rows[:, names.index("time")])
        for ax, (key, ylabel) in zip(axes, panels, strict=True):
            ax.set_ylabel(ylabel, fontsize=8)
            cols = forces if key == "forces" else (key,)
            for c in cols:
                if c in names:
                    lab = label if key != "forces" else f"{label} {c.removeprefix('qfrc_')}"
                    ax.plot(t, plottable(rows[:, names.index(c)]), lw=0.9, label=lab)
    axes[-1].set_xlabel("time [s]")
    for ax in axes:
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=6, loc="best")
    fig.suptitle(title, fontsize=10)
    return _save(plt, fig, path)


def plot_overlay(
    a: tuple[Sequence[str], np.ndarray],
    b: tuple[Sequence[str], np.ndarray],
    labels: tuple[str, str],
    folder: str | Path,
    ranked: Sequence[tuple[str, float]] | None = None,
    units: dict[str, str] | None = None,
    tol: float | None = None,
) -> Path:
    """Compare two CSVs: per column that differs most (up to 8), A and B overlaid beside A−B.

    Each row of panels shows A and B on the left and their difference on the right (B taken
    at A's times), with a marker at the first step where ``|A−B|`` exceeds ``tol``, so runs
    that part early and drift apart read at a glance.

    Args:
        a: Column names and rows ``(n_a, len(names))`` of file A.
        b: Column names and rows ``(n_b, len(names))`` of file B (its columns may differ).
        labels: Legend labels of A and B.
        folder: Output folder; the file is ``compare.png``.
        ranked: ``(column, normalised deviation)`` largest first
            (:func:`~mjscope.diagnose.compare.rank_columns`); ``None``: shared columns in order.
        units: Column units for the axis labels.
        tol: Tolerance per value (``--tol``): where ``|A−B|`` first exceeds it is marked.

    Returns:
        The written PNG.
    """
    path = _out(folder, "compare.png")
    with third_party_warnings_to_log():
        return _draw_overlay(a, b, labels, path, ranked, units or {}, tol)


def _draw_overlay(
    a: tuple[Sequence[str], np.ndarray],
    b: tuple[Sequence[str], np.ndarray],
    labels: tuple[str, str],
    path: Path,
    ranked: Sequence[tuple[str, float]] | None,
    units: dict[str, str],
    tol: float | None = None,
) -> Path:
    plt = _pyplot()
    (na, ra), (nb, rb) = (list(a[0]), a[1]), (list(b[0]), b[1])
    if ranked is None:
        ranked = [(c, 0.0) for c in na if c in nb and c != "time"]
    differing = [kv for kv in ranked if kv[1] > 0]
    chosen = (differing or list(ranked))[:8]
    shown = [c for c, _ in chosen]
    score = dict(chosen)
    n = max(len(shown), 1)
    fig, axes = plt.subplots(
        n, 2, figsize=(10, 1.8 * n + 1), sharex=True, squeeze=False, width_ratios=(3, 2)
    )
    timed = "time" in na and "time" in nb
    xa = plottable(ra[:, na.index("time")] if timed else np.arange(len(ra), dtype=float))
    xb = plottable(rb[:, nb.index("time")] if timed else np.arange(len(rb), dtype=float))
    for (ax, dax), c in zip(axes, shown, strict=False):
        ya, yb = plottable(ra[:, na.index(c)]), plottable(rb[:, nb.index(c)])
        ax.plot(xa, ya, lw=0.9, label=labels[0])
        ax.plot(xb, yb, lw=0.9, ls="--", label=labels[1])
        diff = ya - _at(xa, xb, yb)  # B on A's time axis
        dax.plot(xa, diff, lw=0.9, color="tab:red", label="A−B")
        dax.axhline(0.0, color="0.5", lw=0.5)
        unit = f" [{units[c]}]" if units.get(c) else ""
        ax.set_ylabel(f"{c}{unit}", fontsize=7)
        dax.set_ylabel(f"A−B{unit}", fontsize=7)
        if score.get(c):
            ax.set_title(f"{c}: max |A−B| = {score[c]:.3g} of its range", fontsize=7, loc="left")
        first = _first_beyond(xa, diff, tol)
        if first is not None:
            at = f"{first:.4g} s" if timed else f"row {first:.0f}"
            for axx in (ax, dax):
                axx.axvline(first, color="k", lw=0.8, ls=":", label=f"first |A−B| > tol at {at}")
        for axx in (ax, dax):
            axx.grid(alpha=0.3)
            axx.legend(fontsize=6, loc="best")
    x_label = "time [s]" if timed else "row"
    axes[-1, 0].set_xlabel(x_label)
    axes[-1, 1].set_xlabel(x_label)
    return _save(plt, fig, path)


def _at(x: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """``ys`` (given at ``xs``) at the points ``x`` (the same rows, or linear interpolation)."""
    if len(xs) == len(x) and np.array_equal(xs, x, equal_nan=True):
        return ys
    ok = np.isfinite(xs) & np.isfinite(ys)
    if ok.sum() < 2:
        return np.full_like(x, np.nan)
    return np.interp(x, xs[ok], ys[ok], left=np.nan, right=np.nan)


def _first_beyond(x: np.ndarray, diff: np.ndarray, tol: float | None) -> float | None:
    """The first ``x`` where ``|diff|`` exceeds ``tol`` (``None``: never, or no ``tol``)."""
    if tol is None:
        return None
    beyond = np.flatnonzero(np.nan_to_num(np.abs(diff), nan=0.0) > tol)
    return float(x[beyond[0]]) if beyond.size else None
