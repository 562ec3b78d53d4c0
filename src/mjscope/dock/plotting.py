"""Publication figures of a docking or tracking run, drawn from its telemetry arrays.

Figures use SciencePlots' ``science`` + ``ieee`` + ``no-latex`` styles (no LaTeX install
needed) and are drawn on plain :class:`matplotlib.figure.Figure` objects, so no GUI backend and
no pyplot global state are involved (PNG through Agg, PDF through matplotlib's PDF backend).
Each figure is written as PNG and PDF into ``<out>/figure/<scene>/``. Labels are in English.
The metrics table is written by :mod:`mjscope.dock.report`.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import scienceplots  # noqa: F401  (registers the styles)
from matplotlib import colormaps
from matplotlib import style as mpl_style
from matplotlib.figure import Figure

from mjscope.control.lie import rotation_error
from mjscope.paths import check_writable

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from mjscope.dock.scene import Scene

log = logging.getLogger(__name__)

STYLES = ["science", "ieee", "no-latex"]
FORMATS = ("png", "pdf")
AXES = "xyz"
LOG_FLOOR = 1e-4  # lower clip of log-scale error curves (in the plotted unit)

Arrays = Mapping[str, np.ndarray]


def _save(fig: Figure, folder: Path, stem: str) -> list[Path]:
    paths = []
    for ext in FORMATS:
        p = check_writable(folder / f"{stem}.{ext}")
        with warnings.catch_warnings():
            # Matplotlib warns on an intermediate constrained-layout pass of the legends-above
            # figures although the saved layout is the constrained one (compared pixel by pixel).
            warnings.filterwarnings("ignore", "constrained_layout not applied", UserWarning)
            fig.savefig(p)
        paths.append(p)
    return paths


def _legend(ax: Axes, ncol: int = 2) -> None:
    """Legend in a row above the axes, clear of the data."""
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0, 1.0, 0.1), mode="expand", ncol=ncol)


def _semilogy(ax: Axes, t: np.ndarray, y: np.ndarray) -> None:
    """Log-scale error curve: transient and residual both readable (floored at LOG_FLOOR)."""
    ax.semilogy(t, np.maximum(y, LOG_FLOOR), "k-")


def _rows(n: int, height: float = 1.3) -> tuple[Figure, list[Axes]]:
    fig = Figure(figsize=(3.3, 0.5 + height * n), layout="constrained")
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    axes[-1].set_xlabel("time [s]")
    return fig, list(axes)


def _position(d: Arrays, scene: Scene) -> Figure:
    fig, axes = _rows(3)
    for i, ax in enumerate(axes):
        ax.plot(d["t"], d["eef_pos"][:, i], "k-", label="actual")
        ax.plot(d["t"], d["ref_pos"][:, i], "r--", label="reference")
        ax.set_ylabel(f"{AXES[i]} [m]")
    _legend(axes[0])
    return fig


def _errors(d: Arrays, scene: Scene) -> Figure:
    fig, (a, b) = _rows(2)
    _semilogy(a, d["t"], 1e3 * np.linalg.norm(d["eef_pos"] - d["ref_pos"], axis=1))
    a.set_ylabel("position error [mm]")
    _semilogy(b, d["t"], 1e3 * rotation_error(d["ref_rot"], d["eef_rot"]))
    b.set_ylabel("orient. error [mrad]")
    for ax in (a, b):
        ax.axvline(float(d["t"][0]) + float(scene.cfg.gate.track_skip), color="gray", ls=":")
    return fig


def _forces(d: Arrays, scene: Scene) -> Figure:
    fig, (a, b) = _rows(2)
    for i in range(3):
        a.plot(d["t"], d["wrench"][:, i], label=f"$F_{AXES[i]}$")
        b.plot(d["t"], d["wrench"][:, 3 + i], label=f"$M_{AXES[i]}$")
    if scene.mode == "docking":
        a.plot(d["t"], d["contact_force"], color="0.55", ls="-", lw=1.2, label="contact $F_n$")
    a.set_ylabel("force [N]")
    b.set_ylabel("torque [N$\\cdot$m]")
    _legend(a, 2)
    _legend(b, 3)
    return fig


def _insertion(d: Arrays, scene: Scene) -> Figure:
    dock, gate = scene.cfg.dock, scene.cfg.gate
    assert dock is not None  # figure_names() skips this figure without a dock
    fig, (a, b, c) = _rows(3)
    a.plot(d["t"], 1e3 * d["insertion_depth"], "k-")
    a.axhline(1e3 * dock.depth, color="gray", ls="--", label="socket depth")
    a.axhline(1e3 * gate.depth_fraction * dock.depth, color="r", ls=":", label="gate")
    a.set_ylabel("depth [mm]")
    _legend(a)
    _semilogy(b, d["t"], 1e3 * np.abs(d["lateral_error"]))
    lateral = dock.clearance if gate.max_lateral is None else gate.max_lateral
    b.axhline(1e3 * lateral, color="r", ls=":")
    b.set_ylabel("lateral [mm]")
    _semilogy(c, d["t"], np.degrees(np.abs(d["axis_angle"])))
    c.axhline(math.degrees(gate.max_axis_angle), color="r", ls=":")
    c.set_ylabel("axis angle [deg]")
    return fig


def _torques(d: Arrays, scene: Scene) -> Figure:
    fig, (a,) = _rows(1, height=2.2)
    tau = d["tau"].reshape(len(d["t"]), -1)
    colors = colormaps["viridis"](np.linspace(0.0, 0.9, tau.shape[1]))
    for j in range(tau.shape[1]):
        a.plot(d["t"], tau[:, j], color=colors[j], ls="-", label=f"$\\tau_{j + 1}$")
    a.set_ylabel("joint torque [N$\\cdot$m]")
    _legend(a, 4)
    return fig


def _path(d: Arrays, scene: Scene) -> Figure:
    fig = Figure(figsize=(3.3, 3.0), layout="constrained")
    a = fig.subplots()
    a.plot(d["eef_pos"][:, 0], d["eef_pos"][:, 1], "k-", label="actual")
    a.plot(d["ref_pos"][:, 0], d["ref_pos"][:, 1], "r--", label="reference")
    a.set_xlabel("x [m]")
    a.set_ylabel("y [m]")
    a.set_aspect("equal", adjustable="datalim")
    _legend(a)
    return fig


FIGURES: dict[str, Callable[[Arrays, Scene], Figure]] = {
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


def plot_results(d: Arrays, scene: Scene, out_dir: str | Path) -> list[Path]:
    """Write every figure of a run as PNG and PDF into ``out_dir/figure/<scene.name>/``.

    Args:
        d: Telemetry arrays (:meth:`mjscope.dock.telemetry.Log.arrays`, or a loaded ``.npz``).
        scene: The scene that was run.
        out_dir: Root output folder.

    Returns:
        The written files, two per figure.

    Raises:
        OutputError: The folder cannot be created or written.
    """
    folder = Path(out_dir) / "figure" / scene.name
    if len(d["t"]) == 0:
        log.warning("no samples recorded; no figures written for %s", scene.name)
        return []
    paths: list[Path] = []
    with mpl_style.context(STYLES):
        for name in figure_names(scene):
            paths += _save(FIGURES[name](d, scene), folder, name)
    log.info("wrote %d figure files into %s", len(paths), folder)
    return paths
