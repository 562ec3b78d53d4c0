"""``mjscope dock`` as a function: :class:`~mjscope.dock.config.DockCmdCfg` → exit code.

The CLI only parses its arguments into a ``DockCmdCfg`` and calls :func:`run_dock` with its
console; everything else (scene list, the run, the report, the exit code) happens here.
"""

from __future__ import annotations

from rich.console import Console

from mjscope.dock.config import DockCmdCfg
from mjscope.dock.report import print_report
from mjscope.dock.run_docking import main
from mjscope.dock.scene import load_scene, scene_names
from mjscope.paths import ensure_dir

EXIT_PASS, EXIT_FAIL = 0, 1


def run_dock(cfg: DockCmdCfg, con: Console) -> int:
    """List the scenes, or run one and print its metrics and gate.

    Args:
        cfg: The command's options.
        con: Where to print.

    Returns:
        0 when the gate passed (or the scenes were listed), 1 when it failed or the run stopped
        early.

    Raises:
        MjscopeError: A user error (unknown scene or controller, invalid scene file,
            unwritable output folder); the CLI prints it on one line and exits 2.
    """
    if cfg.list_scenes:
        for name in scene_names():
            con.print(f"{name}: {load_scene(name).cfg.description}")
        return EXIT_PASS
    scene = load_scene(cfg.scene)
    root = ensure_dir(cfg.out)
    report = main(scene, cfg.controller, plot=cfg.plot, quick=cfg.quick, out=root,
                  friction_comp=cfg.friction_comp, record=cfg.record)  # fmt: skip
    print_report(con, report)
    return EXIT_PASS if report.passed else EXIT_FAIL
