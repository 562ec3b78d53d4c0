"""Overlay figures of several controllers on one scene: ``figure/<scene>/compare_*.png|pdf``.

One curve per controller on each axes, in the IEEE style's black/red/blue/green cycle with
distinct line styles (readable in grey print); the legend names the controllers. Which figures
apply depends on the scene: position and orientation error always, contact force and insertion
depth with a dock, the xy path for tracking. Same style, fonts and languages as
:mod:`mjscope.dock.plotting`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from matplotlib import style as mpl_style
from matplotlib.figure import Figure

from mjscope.dock.labels import DEFAULT_LANG, text
from mjscope.dock.plot_style import legend, save, styles
from mjscope.dock.plotting import (
    Arrays,
    orientation_error_mrad,
    position_error_mm,
    rows,
    semilogy,
    top_view,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from mjscope.dock.scene import Scene

log = logging.getLogger(__name__)

Runs = Mapping[str, Arrays]  # controller -> telemetry arrays
PREFIX = "compare_"


def _axes(lang: str) -> tuple[Figure, Axes]:
    fig, (a,) = rows(1, lang, height=1.9)
    return fig, a


def _skip_line(a: Axes, runs: Runs, scene: Scene, lang: str) -> None:
    t0 = min(float(d["t"][0]) for d in runs.values())
    skip = t0 + float(scene.cfg.gate.track_skip)
    a.axvline(skip, color="gray", ls=":", lw=0.8, label=text("track_skip", lang))


def _error_overlay(
    runs: Runs, scene: Scene, lang: str, label: str, error: Callable[[Arrays], np.ndarray]
) -> Figure:
    """One log-scale ``error(d)`` curve per run, the tracking-skip line, y label ``label``."""
    fig, a = _axes(lang)
    for name, d in runs.items():
        semilogy(a, d["t"], error(d), "", label=name, lang=lang)
    _skip_line(a, runs, scene, lang)
    a.set_ylabel(text(label, lang))
    legend(a, len(runs) + 1)  # the runs and the tracking-skip line
    return fig


def _position_error(runs: Runs, scene: Scene, lang: str) -> Figure:
    return _error_overlay(runs, scene, lang, "pos_error", position_error_mm)


def _orientation_error(runs: Runs, scene: Scene, lang: str) -> Figure:
    return _error_overlay(runs, scene, lang, "ori_error", orientation_error_mrad)


def _contact_force(runs: Runs, scene: Scene, lang: str) -> Figure:
    fig, a = _axes(lang)
    for name, d in runs.items():
        a.plot(d["t"], d["contact_force"], label=name)
    gate = scene.cfg.gate.max_peak_force
    a.axhline(gate, color="0.55", ls=(0, (1, 1)), lw=0.8, label=text("gate", lang))
    a.set_ylabel(text("contact_force", lang))
    legend(a, len(runs) + 1)
    return fig


def _insertion_depth(runs: Runs, scene: Scene, lang: str) -> Figure:
    dock, gate = scene.cfg.dock, scene.cfg.gate
    assert dock is not None  # compare_figure_names() skips this figure without a dock
    fig, a = _axes(lang)
    for name, d in runs.items():
        a.plot(d["t"], 1e3 * d["insertion_depth"], label=name)
    a.axhline(1e3 * dock.depth, color="0.55", ls="--", lw=0.8, label=text("socket_depth", lang))
    a.axhline(1e3 * gate.depth_fraction * dock.depth, color="0.55", ls=(0, (1, 1)), lw=0.8,
              label=text("gate", lang))  # fmt: skip
    a.set_ylabel(text("depth", lang))
    legend(a, 2)
    return fig


def _path_xy(runs: Runs, scene: Scene, lang: str) -> Figure:
    fig, a = top_view(lang)
    first = next(iter(runs.values()))
    a.plot(first["ref_pos"][:, 0], first["ref_pos"][:, 1], color="0.6", ls="-", lw=2.0,
           label=text("reference", lang))  # fmt: skip
    for name, d in runs.items():
        a.plot(d["eef_pos"][:, 0], d["eef_pos"][:, 1], label=name)
    legend(a, len(runs) + 1)
    return fig


#: Figure name (without the ``compare_`` prefix) -> ``(runs, scene, lang) -> Figure``.
COMPARE_FIGURES: dict[str, Callable[[Runs, Scene, str], Figure]] = {
    "position_error": _position_error,
    "orientation_error": _orientation_error,
    "contact_force": _contact_force,
    "insertion_depth": _insertion_depth,
    "path_xy": _path_xy,
}


def compare_figure_names(scene: Scene) -> list[str]:
    """Overlay figures for this scene (file stems, ``compare_`` prefixed)."""
    if scene.mode == "docking" and scene.cfg.dock is not None:
        names = ["position_error", "orientation_error", "contact_force", "insertion_depth"]
    else:
        names = ["position_error", "orientation_error", "path_xy"]
    return [PREFIX + n for n in names]


def plot_comparison(
    runs: Runs, scene: Scene, out_dir: str | Path, lang: str = DEFAULT_LANG
) -> list[Path]:
    """Write the overlay figures of several runs as PNG and PDF into ``out_dir/figure/<scene>/``.

    Args:
        runs: Controller name → telemetry arrays, in legend order; runs without samples are
            left out of the figures.
        scene: The scene every run used.
        out_dir: Root output folder.
        lang: Figure language, ``en`` or ``zh``.

    Returns:
        The written files, two per figure (none when no run has samples).

    Raises:
        OutputError: The folder cannot be created or written.
        UnknownNameError: Unknown ``lang``.
        FontMissingError: ``lang="zh"`` and no CJK font is installed.
    """
    style = styles(lang)
    folder = Path(out_dir) / "figure" / scene.name
    kept = {n: d for n, d in runs.items() if len(d["t"])}
    if not kept:
        log.warning("no samples recorded; no comparison figures written for %s", scene.name)
        return []
    paths: list[Path] = []
    with mpl_style.context(style):
        for stem in compare_figure_names(scene):
            fig = COMPARE_FIGURES[stem.removeprefix(PREFIX)](kept, scene, lang)
            paths += save(fig, folder, stem)
    log.info("wrote %d comparison figure files into %s", len(paths), folder)
    return paths
