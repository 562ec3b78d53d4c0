"""The diagnose part of ``mjscope demo``: the bundled quadruped, hold control, 3 s."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from mjscope.diagnose.diagnosis import diagnose, exit_code
from mjscope.diagnose.report import render, write_json
from mjscope.diagnose.rollout import RolloutCfg
from mjscope.models import load
from mjscope.paths import ensure_dir, write_text

DEMO_MODEL = "quadruped"
DEMO_STEPS = 1500  # 3 s at the quadruped's 0.002 s timestep


def run_demo(out: Path, con: Console) -> tuple[list[Path], int]:
    """Diagnose the bundled quadruped into ``out/diagnose/``.

    Writes ``report.json``, ``report.txt`` (the rendered report), ``quadruped.csv`` and
    ``diagnose.png``; the report is also shown on ``con`` when it is a terminal.

    Args:
        out: The demo's output folder.
        con: Where a watching user sees the report.

    Returns:
        The written files and the exit code (1 when a check found an error).
    """
    folder = ensure_dir(Path(out) / "diagnose")
    csv = folder / f"{DEMO_MODEL}.csv"
    cfg = RolloutCfg(steps=DEMO_STEPS, ctrl="hold", csv=csv)
    dg = diagnose(load(DEMO_MODEL), DEMO_MODEL, cfg, folder)
    js = write_json(dg.report, folder / "report.json")
    text = io.StringIO()
    render(dg.report, Console(file=text, width=140, color_system=None))
    txt = write_text(folder / "report.txt", text.getvalue())
    if con.is_terminal:
        render(dg.report, con)
    return [js, txt, csv, Path(dg.report["files"]["plot"])], exit_code(dg.findings)
