"""The dock part of ``mjscope demo``: quick docking run, report printed, files returned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from mjscope.dock import demo, run_docking


def test_run_demo_writes_into_out_dock_and_passes(tmp_path: Path, monkeypatch: Any) -> None:
    calls: list[dict[str, Any]] = []

    def no_plots(*args: Any, **kw: Any) -> run_docking.DockingReport:
        calls.append(kw)
        return run_docking.main(*args, **{**kw, "plot": False})  # figures: test_dock_plotting

    monkeypatch.setattr(demo, "main", no_plots)
    con = Console(record=True, width=160, color_system=None)
    files, code = demo.run_demo(tmp_path, con)
    assert code == 0 and calls == [{"plot": True, "quick": True, "out": tmp_path / "dock"}]
    assert files and all(f.is_file() and tmp_path / "dock" in f.parents for f in files)
    text = con.export_text()
    assert "gate: PASS" in text and "wrote" not in text
