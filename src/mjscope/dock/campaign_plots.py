"""Distribution figures of a campaign: violin + box per controller for the key metrics.

One figure, ``distributions.png``/``.pdf`` in the campaign folder, in the seed's style
(SciencePlots ``science`` + ``ieee`` + ``no-latex``, :mod:`mjscope.dock.plot_style`): the
:data:`~mjscope.dock.campaign_results.PLOTTED` metrics (peak contact force, time to depth,
residual lateral error and axis angle, impact peak, force tracking RMS, torque RMS, injected
energy), one panel each, with the
controllers side by side on the same trials. A trial where a quantity never occurred (no
contact, depth never reached) has no value there; each panel says how many values it shows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from matplotlib import style as mpl_style
from matplotlib.figure import Figure

from mjscope.dock.campaign_results import PLOTTED, Tally
from mjscope.dock.plot_style import save, styles

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def plot_campaign(tallies: Sequence[Tally], folder: Path) -> list[Path]:
    """Write the distribution figure; returns the PNG and PDF paths.

    Raises:
        OutputError: The folder cannot be written.
    """
    with mpl_style.context(styles("en")):
        rows = math.ceil(len(PLOTTED) / 2)
        fig = Figure(figsize=(3.5, 1.7 * rows), layout="constrained")
        axes = fig.subplots(rows, 2).ravel()
        names = [t.name for t in tallies]
        for ax, (key, label, scale) in zip(axes, PLOTTED, strict=True):
            data = [_finite(t.values[key], scale) for t in tallies]
            _panel(ax, data, names)
            ax.set_ylabel(label, fontsize=6)
            counts = "/".join(str(len(d)) for d in data)
            ax.set_title(f"n = {counts}", fontsize=6)
        return save(fig, folder, "distributions")


def _finite(values: Sequence[float], scale: float) -> np.ndarray:
    return np.asarray([v * scale for v in values if math.isfinite(v)], float)


def _panel(ax: Axes, data: list[np.ndarray], names: list[str]) -> None:
    pos = list(range(1, len(data) + 1))
    shown = [(p, d) for p, d in zip(pos, data, strict=True) if d.size]
    if shown:
        at, values = [p for p, _ in shown], [d for _, d in shown]
        vp = ax.violinplot(values, at, showextrema=False, widths=0.8)
        for body in list(vp["bodies"]):  # type: ignore[call-overload]
            body.set_facecolor("0.8")
            body.set_edgecolor("0.4")
            body.set_alpha(1.0)
        ax.boxplot(values, positions=at, widths=0.25, showfliers=True,
                   flierprops={"markersize": 2}, medianprops={"color": "r"})  # fmt: skip
    ax.set_xticks(pos, names, fontsize=6)
    ax.set_xlim(0.4, len(data) + 0.6)
    ax.tick_params(axis="y", labelsize=6)
    ax.tick_params(axis="x", which="minor", bottom=False, top=False)  # categories: no minor ticks
