"""The diagnose part of ``mjscope demo``: files always, the report on a terminal only."""

import io

from rich.console import Console

from mjscope.diagnose import run_demo


def test_demo_shows_the_report_only_on_a_terminal(tmp_path):
    buf = io.StringIO()
    files, code = run_demo(tmp_path, Console(file=buf, color_system=None))
    assert code == 0 and buf.getvalue() == ""
    assert [p.name for p in files] == ["report.json", "report.txt", "quadruped.csv", "diagnose.png"]
    assert "mjscope diagnose" in (tmp_path / "diagnose" / "report.txt").read_text()
    buf = io.StringIO()
    run_demo(tmp_path, Console(file=buf, force_terminal=True, color_system=None))
    assert "mjscope diagnose" in buf.getvalue()
