"""The command entry points, called with a configuration and a console (no CLI in between)."""

import io

from rich.console import Console

from mjscope.diagnose import CompareCfg, DiagnoseCmdCfg, run_compare, run_diagnose
from mjscope.runner import ExecutorCfg


def _console() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=160, color_system=None), buf


def test_run_diagnose_prints_on_the_given_console(tmp_path):
    con, buf = _console()
    csv = str(tmp_path / "f.csv")
    assert run_diagnose(DiagnoseCmdCfg(model="fourbar", steps=20, csv=csv, quiet=True), con) == 0
    assert buf.getvalue().splitlines()[-1] == "OK: 0 errors, 0 warnings"
    con, buf = _console()
    assert run_compare(CompareCfg(csv, csv), con) == 0
    assert "SAME within tolerance" in buf.getvalue()


def test_run_diagnose_sweeps_when_set_is_given():
    con, buf = _console()
    cfg = DiagnoseCmdCfg(model="fourbar", steps=20, set=("option.timestep=0.001,0.002",),
                         executor=ExecutorCfg(jobs=1))  # fmt: skip
    assert run_diagnose(cfg, con) == 0
    out = buf.getvalue()
    assert "sweep of fourbar" in out and "0.001" in out and "0.002" in out
