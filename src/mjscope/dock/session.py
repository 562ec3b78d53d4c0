"""``mjscope dock`` as a function: :class:`~mjscope.dock.config.DockCmdCfg` → exit code.

The CLI only parses its arguments into a ``DockCmdCfg`` and calls :func:`run_dock` with its
console; everything else (scene list, the run or the side-by-side comparison, the report, the
exit code) happens here.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from mjscope.dock.compare import parse_controllers, run_comparison
from mjscope.dock.comparison import print_comparison
from mjscope.dock.config import DockCmdCfg
from mjscope.dock.html_page import calibration_page, comparison_page, run_page
from mjscope.dock.labels import check_lang
from mjscope.dock.outputs import check_outputs, figures_for_page, pngs, write_outputs
from mjscope.dock.report import DockingReport, print_report
from mjscope.dock.run_docking import main, run_steps
from mjscope.dock.scene import Scene, load_scene, scene_names
from mjscope.dock.summary import calibration_summary, comparison_summary, run_summary
from mjscope.paths import check_writable, ensure_dir, write_json
from mjscope.progress import RunProgress

EXIT_PASS, EXIT_FAIL = 0, 1


def run_dock(cfg: DockCmdCfg, con: Console) -> int:
    """List the scenes, or run one with one or more controllers and print metrics and gate.

    Args:
        cfg: The command's options.
        con: Where to print.

    Returns:
        0 when the gate passed (for a comparison: every controller's gate), the scenes were
        listed or the calibration ran; 1 when a gate failed or a run stopped early.

    Raises:
        MjscopeError: A user error (unknown scene, controller or language, a controller given
            twice, invalid scene file, unwritable output folder, ``--lang zh`` without a CJK
            font); the CLI prints it on one line and exits 2.
    """
    if cfg.list_scenes:
        scenes = {name: load_scene(name).cfg.description for name in scene_names()}
        for name, description in scenes.items():
            con.print(f"{name}: {description}")
        if cfg.json is not None:
            write_json(cfg.json, {"kind": "scenes", "scenes": scenes})
        return EXIT_PASS
    check_lang(cfg.lang)
    scene = load_scene(cfg.scene)
    check_outputs(cfg.json, cfg.html)
    if cfg.calibrate:
        return _calibrate(scene, cfg, con)
    names = parse_controllers(cfg.controller)
    root = ensure_dir(cfg.out)
    if len(names) > 1:
        return _compare(scene, names, cfg, root, con)
    report = _run_one(scene, names[0], cfg, root)
    print_report(con, report)
    with figures_for_page(cfg.html is not None, pngs(report.files) if cfg.plot else [],
                          lambda tmp: _plot(report, scene, tmp, cfg.lang)) as figs:  # fmt: skip
        write_outputs(con, cfg.json, run_summary(report), cfg.html, lambda: run_page(report, figs))
    return EXIT_PASS if report.passed else EXIT_FAIL


def _calibrate(scene: Scene, cfg: DockCmdCfg, con: Console) -> int:
    """``--calibrate``: identify the tool load, print it, write its JSON (and the outputs)."""
    from mjscope.dock.calibrate import (
        calibrate,
        calibration_record,
        print_calibration,
        write_calibration,
    )

    cal = calibrate(scene)
    path = write_calibration(cal, ensure_dir(cfg.out))
    print_calibration(con, cal, path)
    record = calibration_record(cal)
    write_outputs(con, cfg.json, calibration_summary(record, [path]), cfg.html,
                  lambda: calibration_page(record))  # fmt: skip
    return EXIT_PASS


def _plot(report: DockingReport, scene: Scene, root: Path, lang: str) -> list[Path]:
    from mjscope.dock.plotting import plot_results  # matplotlib only when plotting

    return plot_results(report.result.log.arrays(), scene, root, lang)


def _bar(what: str, total: int, cfg: DockCmdCfg, dt: float | None) -> RunProgress:
    return RunProgress(what, total=total, unit="steps", dt=dt, show=False if cfg.quiet else None)


def _compare(scene: Scene, names: tuple[str, ...], cfg: DockCmdCfg, root: Path,
             con: Console) -> int:  # fmt: skip
    """Every controller on the scene, one progress line over controllers × steps."""
    n, dt = run_steps(scene, cfg.quick), scene.cfg.control_period
    with _bar(f"dock {scene.name}: {' vs '.join(names)}", n * len(names), cfg, None) as bar:

        def progress(i: int, k: int) -> None:
            bar.update(i * n + k, f"{names[i]} t={k * dt:.2f} s")

        cmp = run_comparison(scene, names, root, quick=cfg.quick, plot=cfg.plot,
                             record=cfg.record, friction_comp=cfg.friction_comp,
                             lang=cfg.lang, progress=progress)  # fmt: skip
        bar.update(n * len(names))
    print_comparison(con, cmp)
    figs = pngs(cmp.files, "compare_")
    write_outputs(con, cfg.json, comparison_summary(cmp), cfg.html,
                  lambda: comparison_page(cmp, figs))  # fmt: skip
    return EXIT_PASS if cmp.passed else EXIT_FAIL


def _run_one(scene: Scene, controller: str, cfg: DockCmdCfg, root: Path) -> DockingReport:
    """One controller: :func:`~mjscope.dock.run_docking.main`, figures in ``cfg.lang``."""
    if cfg.plot or cfg.html:
        from mjscope.dock.plot_style import styles

        styles(cfg.lang)  # a missing CJK font fails before the run
    if cfg.plot:
        check_writable(root / "figure" / scene.name / "figure.png")
    n = run_steps(scene, cfg.quick)
    with _bar(f"dock {scene.name} {controller}", n, cfg, scene.cfg.control_period) as bar:
        report = main(scene, controller, plot=False, quick=cfg.quick, out=root,
                      friction_comp=cfg.friction_comp, record=cfg.record,
                      progress=bar.update)  # fmt: skip
        bar.update(report.result.steps)
    if cfg.plot:
        from mjscope.dock.plotting import plot_results  # matplotlib only when plotting

        report.files += plot_results(report.result.log.arrays(), scene, root, cfg.lang)
    return report
