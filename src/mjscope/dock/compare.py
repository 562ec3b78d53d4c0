"""Side by side: several controllers run on the same scene, then one table and overlay figures.

``mjscope dock --controller cic,se3_lie`` runs each controller through
:func:`mjscope.dock.run_docking.main` on the same scene from the same start (the runs have no
random input, so "the same seed" is the same initial state and reference), then writes

- ``<out>/results/<scene>_compare.md`` and ``.json``: every metric and gate check of every
  controller and the difference ``other − first`` for each controller after the first;
- ``<out>/figure/<scene>/compare_*.png|pdf``: overlay figures
  (:mod:`mjscope.dock.plotting_compare`);
- each controller's own table and telemetry, as a single run writes them (with ``plot``, its own
  figures go to ``<out>/figure/<scene>/<controller>/``).

The table itself (rows, markdown, JSON, console) is :mod:`mjscope.dock.comparison`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from mjscope.dock.comparison import Comparison, comparison_json, format_comparison
from mjscope.dock.labels import DEFAULT_LANG
from mjscope.dock.report import DockingReport, results_table_path
from mjscope.dock.run_docking import main, resolve_controller
from mjscope.dock.scene import Scene
from mjscope.exceptions import ConfigError
from mjscope.paths import check_writable, write_json, write_text


def _known() -> list[str]:
    """Every valid ``--controller`` name: the registered controllers, then their aliases."""
    from mjscope.dock.run_docking import ALIASES, CONTROLLERS

    return [*CONTROLLERS, *(a for a, c in ALIASES.items() if c in CONTROLLERS)]


def parse_controllers(text: str) -> tuple[str, ...]:
    """``"cic, se3_lie"`` → ``("cic", "se3_lie")``, each checked and aliases resolved.

    The seed's names are aliases (``task_space`` → ``cic``, ``se3_impedance`` → ``se3_lie``, see
    :func:`mjscope.dock.run_docking.resolve_controller`); a name and its alias are a duplicate.

    Args:
        text: One controller name or a comma-separated list.

    Returns:
        The registered names, in the given order.

    Raises:
        UnknownNameError: A name is not a controller.
        ConfigError: The list is empty or names a controller twice.
    """
    given = [s.strip() for s in text.split(",") if s.strip()]
    if not given:
        raise ConfigError(f"no controller in --controller {text!r}; known: {', '.join(_known())}")
    names = tuple(resolve_controller(n) for n in given)
    for i, n in enumerate(names):
        if n in names[:i]:
            raise ConfigError(
                f"controller {n!r} given twice in --controller {text!r}; give each once "
                f"(known: {', '.join(_known())})"
            )
    return names


def compare_paths(out_dir: str | Path, scene_name: str) -> tuple[Path, Path]:
    """``out_dir/results/<scene>_compare.md`` and ``.json``."""
    stem = Path(out_dir) / "results" / f"{scene_name}_compare"
    return stem.with_suffix(".md"), stem.with_suffix(".json")


def write_comparison(cmp: Comparison, out_dir: str | Path) -> list[Path]:
    """Write the markdown and JSON tables (atomically); returns both paths.

    Raises:
        OutputError: A file cannot be written.
    """
    md, js = compare_paths(out_dir, cmp.scene.name)
    return [write_text(md, format_comparison(cmp)), write_json(js, comparison_json(cmp))]


def _check_outputs(
    scene: Scene, names: tuple[str, ...], root: Path, plot: bool, record: bool
) -> None:
    """Every file the comparison will write is checked writable before the first run."""
    folder = root / "figure" / scene.name
    paths = [*compare_paths(root, scene.name), folder / "compare.png"]
    for n in names:
        stem = f"{scene.name}_{n}"  # as run_docking.main names a run's files
        paths += [results_table_path(root, scene.name, n), root / "telemetry" / f"{stem}.npz"]
        paths += [folder / n / "figure.png"] if plot else []
        paths += [root / "video" / f"{stem}.mp4"] if record else []
    for p in paths:
        check_writable(p)


def run_comparison(
    scene: Scene,
    names: tuple[str, ...],
    out: str | Path,
    *,
    quick: bool = False,
    plot: bool = False,
    record: bool = False,
    friction_comp: bool | None = None,
    lang: str = DEFAULT_LANG,
    progress: Callable[[int, int], None] | None = None,
) -> Comparison:
    """Run each controller on ``scene``, then write the comparison tables and overlay figures.

    Args:
        scene: The scene every controller runs.
        names: Registered controller names (:func:`parse_controllers`), at least two.
        out: Output folder.
        quick: Shorter runs (see :func:`mjscope.dock.run_docking.quick_duration`).
        plot: Also write each controller's own figures into ``figure/<scene>/<controller>/``.
        record: Also write each controller's video.
        friction_comp: Override the scene's friction compensation switch.
        lang: Figure language, ``en`` or ``zh``.
        progress: Called with (controller index, control periods done) every 50 periods.

    Returns:
        The comparison; ``passed`` when every controller's gate passed.

    Raises:
        ConfigError: Fewer than two controllers.
        FontMissingError: ``lang="zh"`` and no CJK font is installed (before any run).
        OutputError: An output cannot be written (checked before any run).
    """
    from mjscope.dock.plot_style import styles
    from mjscope.dock.plotting import plot_results
    from mjscope.dock.plotting_compare import plot_comparison

    if len(names) < 2:
        raise ConfigError(f"a comparison needs two or more controllers, got {list(names)}")
    root = Path(out)
    styles(lang)  # a missing CJK font fails now, not after the runs
    _check_outputs(scene, names, root, plot, record)
    reports: dict[str, DockingReport] = {}
    for i, n in enumerate(names):
        step = None if progress is None else functools.partial(progress, i)
        reports[n] = main(scene, n, plot=False, quick=quick, out=root,
                          friction_comp=friction_comp, record=record, progress=step)  # fmt: skip
        if plot:
            arrays = reports[n].result.log.arrays()
            reports[n].files += plot_results(arrays, scene, root, lang, subfolder=n)
    cmp = Comparison(scene, reports, [f for r in reports.values() for f in r.files])
    cmp.files += write_comparison(cmp, root)
    runs = {n: r.result.log.arrays() for n, r in reports.items()}
    cmp.files += plot_comparison(runs, scene, root, lang)
    return cmp
