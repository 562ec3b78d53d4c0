"""Publication figures of a docking or tracking run, drawn from its telemetry arrays.

Figures use SciencePlots' ``science`` + ``ieee`` + ``no-latex`` styles (no LaTeX install
needed; see :mod:`mjscope.dock.plot_style`) and are drawn on plain
:class:`matplotlib.figure.Figure` objects, so no GUI backend and no pyplot global state are
involved (PNG through Agg, PDF through matplotlib's PDF backend). Each figure is written as PNG
and PDF into ``<out>/figure/<scene>/``. Labels are in English or Chinese (``lang``, texts in
:mod:`mjscope.dock.labels`). The side-by-side figures of several controllers are in
:mod:`mjscope.dock.plotting_compare`; the metrics table is written by :mod:`mjscope.dock.report`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib import colormaps
from matplotlib import style as mpl_style
from matplotlib.figure import Figure

from mjscope.control.lie import rotation_error
from mjscope.dock.labels import DEFAULT_LANG, text
from mjscope.dock.plot_style import STYLES, legend, save, styles

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from mjscope.dock.scene import Scene

log = logging.getLogger(__name__)

__all__ = ["FIGURES", "STYLES", "figure_names", "plot_results", "rows", "semilogy"]

AXES = "xyz"
LOG_FLOOR = 1e-4  # lower clip of log-scale error curves (in the plotted unit)

Arrays = Mapping[str, np.ndarray]


def semilogy(ax: Axes, t: np.ndarray, y: np.ndarray, fmt: str = "k-", **kw: Any) -> None:
    """Log-scale error curve: transient and residual both readable (floored at LOG_FLOOR).

    ``fmt=""`` takes the style's next colour and line style (one curve per controller). When
    any value lies below the floor, the axes say so in their lower right corner (``lang``: the
    note's language, default English).
    """
    lang = kw.pop("lang", "en")
    ax.semilogy(t, np.maximum(y, LOG_FLOOR), *([fmt] if fmt else []), **kw)
    note = f"{text('log_floor', lang)} {LOG_FLOOR:g}"
    if np.any(np.asarray(y) < LOG_FLOOR) and all(t.get_text() != note for t in ax.texts):
        ax.text(0.99, 0.03, note, transform=ax.transAxes, ha="right", va="bottom",
                fontsize=5, color="0.35")  # fmt: skip


def rows(n: int, lang: str, height: float = 1.3) -> tuple[Figure, list[Axes]]:
    """A figure of ``n`` stacked axes sharing a labelled time axis, 3.3 in wide (IEEE column)."""
    fig = Figure(figsize=(3.3, 0.5 + height * n), layout="constrained")
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    axes[-1].set_xlabel(text("time", lang))
    return fig, list(axes)


def top_view(lang: str) -> tuple[Figure, Axes]:
    """One labelled x–y axes at equal scale, 3.3 in wide: a path seen from above."""
    fig = Figure(figsize=(3.3, 3.0), layout="constrained")
    a = fig.subplots()
    a.set_xlabel(text("x", lang))
    a.set_ylabel(text("y", lang))
    a.set_aspect("equal", adjustable="datalim")
    return fig, a


def position_error_mm(d: Arrays) -> np.ndarray:
    """Tracking position error |p − p_d| [mm]; (n,)."""
    return 1e3 * np.linalg.norm(d["eef_pos"] - d["ref_pos"], axis=1)


def orientation_error_mrad(d: Arrays) -> np.ndarray:
    """Tracking orientation error (rotation angle of R_d Rᵀ) [mrad]; (n,)."""
    return 1e3 * rotation_error(d["ref_rot"], d["eef_rot"])


def _position(d: Arrays, scene: Scene, lang: str) -> Figure:
    fig, axes = rows(3, lang)
    for i, ax in enumerate(axes):
        # reference underneath, wide and light; the actual curve on top stays visible on it
        ax.plot(d["t"], d["ref_pos"][:, i], color="tab:red", lw=2.4, alpha=0.45,
                label=text("reference", lang), zorder=1)  # fmt: skip
        ax.plot(d["t"], d["eef_pos"][:, i], "k-", lw=0.8, label=text("actual", lang), zorder=2)
        ax.set_ylabel(text("pos_axis", lang, axis=AXES[i]))
    legend(axes[0])
    return fig


def _errors(d: Arrays, scene: Scene, lang: str) -> Figure:
    fig, (a, b) = rows(2, lang)
    semilogy(a, d["t"], position_error_mm(d), lang=lang)
    a.set_ylabel(text("pos_error", lang))
    semilogy(b, d["t"], orientation_error_mrad(d), lang=lang)
    b.set_ylabel(text("ori_error", lang))
    skip = float(d["t"][0]) + float(scene.cfg.gate.track_skip)
    for ax in (a, b):
        ax.axvline(skip, color="gray", ls=":", label=text("track_skip", lang))
    legend(a, 1)
    return fig


def _forces(d: Arrays, scene: Scene, lang: str) -> Figure:
    fig, (a, b) = rows(2, lang)
    if scene.mode == "docking":  # underneath, wide and light: F_z on top of it stays visible
        fn = text("contact_fn", lang)
        a.plot(d["t"], d["contact_force"], color="0.6", ls="-", lw=2.6, alpha=0.6, label=fn,
               zorder=1)  # fmt: skip
    for i in range(3):
        a.plot(d["t"], d["wrench"][:, i], lw=0.8, label=f"$F_{AXES[i]}$", zorder=2)
        b.plot(d["t"], d["wrench"][:, 3 + i], lw=0.8, label=f"$M_{AXES[i]}$", zorder=2)
    a.set_ylabel(text("force", lang))
    b.set_ylabel(text("torque", lang))
    legend(a, 2)
    legend(b, 3)
    return fig


def _insertion(d: Arrays, scene: Scene, lang: str) -> Figure:
    dock, gate = scene.cfg.dock, scene.cfg.gate
    assert dock is not None  # figure_names() skips this figure without a dock
    fig, (a, b, c) = rows(3, lang)
    a.plot(d["t"], 1e3 * d["insertion_depth"], "k-")
    a.axhline(1e3 * dock.depth, color="gray", ls="--", label=text("socket_depth", lang))
    a.axhline(1e3 * gate.depth_fraction * dock.depth, color="r", ls=":", label=text("gate", lang))
    a.set_ylabel(text("depth", lang))
    legend(a)
    semilogy(b, d["t"], 1e3 * np.abs(d["lateral_error"]), lang=lang)
    lateral = dock.clearance if gate.max_lateral is None else gate.max_lateral
    b.axhline(1e3 * lateral, color="r", ls=":")
    b.set_ylabel(text("lateral", lang))
    semilogy(c, d["t"], np.degrees(np.abs(d["axis_angle"])), lang=lang)
    c.axhline(math.degrees(gate.max_axis_angle), color="r", ls=":")
    c.set_ylabel(text("axis_angle", lang))
    return fig


def _torques(d: Arrays, scene: Scene, lang: str) -> Figure:
    fig, (a,) = rows(1, lang, height=2.2)
    tau = d["tau"].reshape(len(d["t"]), -1)
    colors = colormaps["viridis"](np.linspace(0.0, 0.9, tau.shape[1]))
    for j in range(tau.shape[1]):
        a.plot(d["t"], tau[:, j], color=colors[j], ls="-", label=f"$\\tau_{j + 1}$")
    a.set_ylabel(text("joint_torque", lang))
    legend(a, 4)
    return fig


def _path(d: Arrays, scene: Scene, lang: str) -> Figure:
    fig, a = top_view(lang)
    a.plot(d["ref_pos"][:, 0], d["ref_pos"][:, 1], color="tab:red", lw=2.4, alpha=0.45,
           label=text("reference", lang), zorder=1)  # fmt: skip
    a.plot(d["eef_pos"][:, 0], d["eef_pos"][:, 1], "k-", lw=0.8, label=text("actual", lang),
           zorder=2)  # fmt: skip
    legend(a)
    return fig


#: Figure name -> ``(arrays, scene, lang) -> Figure``.
FIGURES: dict[str, Callable[[Arrays, Scene, str], Figure]] = {
    "position_tracking": _position,
    "errors": _errors,
    "forces": _forces,
    "insertion_depth": _insertion,
    "joint_torques": _torques,
    "path_xy": _path,
}


def figure_names(scene: Scene) -> list[str]:
    """Figures written for this scene (insertion depth only with a dock; path only tracking)."""
    skip = (
        "path_xy" if scene.mode == "docking" and scene.cfg.dock is not None else "insertion_depth"
    )
    return [n for n in FIGURES if n != skip]


def plot_results(
    d: Arrays,
    scene: Scene,
    out_dir: str | Path,
    lang: str = DEFAULT_LANG,
    subfolder: str | None = None,
) -> list[Path]:
    """Write every figure of a run as PNG and PDF into ``out_dir/figure/<scene.name>/``.

    Args:
        d: Telemetry arrays (:meth:`mjscope.dock.telemetry.Log.arrays`, or a loaded ``.npz``).
        scene: The scene that was run.
        out_dir: Root output folder.
        lang: Figure language, ``en`` or ``zh`` (titles, axis labels, legends).
        subfolder: Write into ``out_dir/figure/<scene.name>/<subfolder>/`` instead (one
            controller of a side-by-side run).

    Returns:
        The written files, two per figure.

    Raises:
        OutputError: The folder cannot be created or written.
        UnknownNameError: Unknown ``lang``.
        FontMissingError: ``lang="zh"`` and no CJK font is installed.
    """
    folder = Path(out_dir) / "figure" / scene.name
    if subfolder is not None:
        folder /= subfolder
    style = styles(lang)  # a bad language or a missing font fails before anything is drawn
    if len(d["t"]) == 0:
        log.warning("no samples recorded; no figures written for %s", scene.name)
        return []
    paths: list[Path] = []
    with mpl_style.context(style):
        for name in figure_names(scene):
            paths += save(FIGURES[name](d, scene, lang), folder, name)
    log.info("wrote %d figure files into %s", len(paths), folder)
    return paths
