"""The dock part of ``mjscope demo``: a quick iiwa14 docking run with plots."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from mjscope.dock.report import print_report
from mjscope.dock.run_docking import main


def run_demo(out: Path, con: Console) -> tuple[list[Path], int]:
    """Quick ``iiwa14_docking`` run with the CIC, figures and table into ``out/dock/``.

    Args:
        out: The demo's output root.
        con: Where to print the report.

    Returns:
        The files written, and the exit code (0 gate PASS, 1 FAIL or stopped early).
    """
    report = main("iiwa14_docking", "cic", plot=True, quick=True, out=out / "dock")
    print_report(con, report, show_files=False)
    return list(report.files), 0 if report.passed else 1
