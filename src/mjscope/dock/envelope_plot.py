"""The envelope figure: success rate vs magnitude per controller, Wilson 95 % bands shaded.

One figure, ``envelope.png``/``.pdf``, in the seed's style (:mod:`mjscope.dock.plot_style`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import style as mpl_style
from matplotlib.figure import Figure

from mjscope.dock.plot_style import legend, save, styles

#: Magnitude scale and label per kind (lateral shown in mm).
AXIS = {"lateral": (1e3, "lateral dock offset [mm]"), "yaw": (1.0, "dock yaw error [deg]"),
        "tilt": (1.0, "dock tilt [deg]")}  # fmt: skip


def plot_envelope(rows: list[dict[str, Any]], kind: str, name: str, png: Path) -> Path:
    """Write the figure next to ``png`` (PNG and PDF); returns the PNG path.

    ``kind`` is the perturbation (``lateral``, ``yaw``, ``tilt``): it picks the axis scale.

    Raises:
        OutputError: The folder cannot be written.
    """
    scale, label = AXIS[kind]
    with mpl_style.context(styles("en")):
        fig = Figure(figsize=(3.5, 2.6), layout="constrained")
        ax = fig.subplots()
        for c in dict.fromkeys(r["controller"] for r in rows):
            mine = [r for r in rows if r["controller"] == c]
            x = np.array([r["magnitude"] for r in mine]) * scale
            y = np.array([r["rate"] for r in mine]) * 100
            lo = np.array([r["wilson95_low"] for r in mine]) * 100
            hi = np.array([r["wilson95_high"] for r in mine]) * 100
            (line,) = ax.plot(x, y, marker="o", markersize=3, label=c)
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.15, linewidth=0)
        ax.set_xlabel(label)
        ax.set_ylabel("success rate [%]")
        ax.set_ylim(-3, 103)
        legend(ax, ncol=3)
        fig.suptitle(f"{name}: {rows[0]['trials'] if rows else 0} trials per point, "
                     "Wilson 95 % bands", fontsize=6)  # fmt: skip
        return save(fig, png.parent, png.stem)[0]
