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
from mjscope.dock.labels import check_lang
from mjscope.dock.report import DockingReport, print_report
from mjscope.dock.run_docking import main
from mjscope.dock.scene import Scene, load_scene, scene_names
from mjscope.paths import check_writable, ensure_dir

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
        for name in scene_names():
            con.print(f"{name}: {load_scene(name).cfg.description}")
        return EXIT_PASS
    check_lang(cfg.lang)
    scene = load_scene(cfg.scene)
    if cfg.calibrate:
        from mjscope.dock.calibrate import calibrate, print_calibration, write_calibration

        cal = calibrate(scene)
        print_calibration(con, cal, write_calibration(cal, ensure_dir(cfg.out)))
        return EXIT_PASS
    names = parse_controllers(cfg.controller)
    root = ensure_dir(cfg.out)
    if len(names) > 1:
        cmp = run_comparison(scene, names, root, quick=cfg.quick, plot=cfg.plot,
                             record=cfg.record, friction_comp=cfg.friction_comp,
                             lang=cfg.lang)  # fmt: skip
        print_comparison(con, cmp)
        return EXIT_PASS if cmp.passed else EXIT_FAIL
    report = _run_one(scene, names[0], cfg, root)
    print_report(con, report)
    return EXIT_PASS if report.passed else EXIT_FAIL


def _run_one(scene: Scene, controller: str, cfg: DockCmdCfg, root: Path) -> DockingReport:
    """One controller: :func:`~mjscope.dock.run_docking.main`, figures in ``cfg.lang``."""
    if cfg.plot:
        from mjscope.dock.plot_style import styles

        styles(cfg.lang)  # a missing CJK font fails before the run
        check_writable(root / "figure" / scene.name / "figure.png")
    report = main(scene, controller, plot=False, quick=cfg.quick, out=root,
                  friction_comp=cfg.friction_comp, record=cfg.record)  # fmt: skip
    if cfg.plot:
        from mjscope.dock.plotting import plot_results  # matplotlib only when plotting

        report.files += plot_results(report.result.log.arrays(), scene, root, cfg.lang)
    return report
