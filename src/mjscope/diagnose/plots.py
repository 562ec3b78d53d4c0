"""PNG plots of a rollout and of sweeps/comparisons (matplotlib, Agg backend)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mjscope.diagnose.rollout import RolloutResult
from mjscope.paths import ensure_dir

PANELS = (
    ("com_z", "CoM height [m]"),
    ("ncon", "contacts [count]"),
    ("pen_max", "max penetration [m]"),
    ("forces", "generalized force norms [N|Nm]"),
    ("solver_niter", "solver iterations"),
)
FORCE_COLUMNS = (
    "qfrc_bias_norm",
    "qfrc_constraint_norm",
    "qfrc_actuator_norm",
    "qfrc_passive_norm",
)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _out(folder: str | Path, name: str) -> Path:
    return ensure_dir(folder, "plot folder") / name


def plot_rollout(result: RolloutResult, folder: str | Path, title: str) -> Path:
    """Five stacked panels (CoM height, contacts, penetration, force norms, solver iterations)."""
    names = [h.split(" [")[0] for h in result.header]
    data = result.preview
    return plot_series([(title, names, data)], folder, "diagnose.png", title)


def plot_series(
    runs: Sequence[tuple[str, list[str], np.ndarray]], folder: str | Path, filename: str, title: str
) -> Path:
    """Overlay several runs (label, column names, rows) in the standard panels."""
    plt = _pyplot()
    fig, axes = plt.subplots(len(PANELS), 1, figsize=(8, 11), sharex=True)
    # One run: every force term; an overlay of runs: the constraint force only, to stay legible.
    forces = FORCE_COLUMNS if len(runs) == 1 else ("qfrc_constraint_norm",)
    for label, names, rows in runs:
        if rows.size == 0:
            continue
        t = rows[:, names.index("time")]
        for ax, (key, ylabel) in zip(axes, PANELS, strict=True):
            ax.set_ylabel(ylabel, fontsize=8)
            cols = forces if key == "forces" else (key,)
            for c in cols:
                if c in names:
                    lab = label if key != "forces" else f"{label} {c.removeprefix('qfrc_')}"
                    ax.plot(t, rows[:, names.index(c)], lw=0.9, label=lab)
    axes[-1].set_xlabel("time [s]")
    for ax in axes:
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=6, loc="best")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path = _out(folder, filename)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_overlay(
    a: tuple[Sequence[str], np.ndarray],
    b: tuple[Sequence[str], np.ndarray],
    labels: tuple[str, str],
    folder: str | Path,
) -> Path:
    """Compare two CSVs: one panel per shared column (up to 8), A and B overlaid.

    Args:
        a: Column names and rows ``(n_a, len(names))`` of file A.
        b: Column names and rows ``(n_b, len(names))`` of file B (its columns may differ).
        labels: Legend labels of A and B.
        folder: Output folder; the file is ``compare.png``.

    Returns:
        The written PNG.
    """
    plt = _pyplot()
    (na, ra), (nb, rb) = (list(a[0]), a[1]), (list(b[0]), b[1])
    shown = [c for c in na if c in nb and c != "time"][:8]
    fig, axes = plt.subplots(
        max(len(shown), 1), 1, figsize=(8, 1.8 * max(len(shown), 1) + 1), sharex=True, squeeze=False
    )
    xa = ra[:, na.index("time")] if "time" in na and "time" in nb else np.arange(len(ra))
    xb = rb[:, nb.index("time")] if "time" in na and "time" in nb else np.arange(len(rb))
    for ax, c in zip(axes[:, 0], shown, strict=False):
        ax.plot(xa, ra[:, na.index(c)], lw=0.9, label=labels[0])
        ax.plot(xb, rb[:, nb.index(c)], lw=0.9, ls="--", label=labels[1])
        ax.set_ylabel(c, fontsize=7)
        ax.grid(alpha=0.3)
    if shown:
        axes[0, 0].legend(fontsize=7)
    axes[-1, 0].set_xlabel("time [s]" if "time" in na and "time" in nb else "row")
    fig.tight_layout()
    path = _out(folder, "compare.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
