"""The ``mjscope diagnose`` verbs: diagnose (or sweep) a model, compare two CSVs.

:func:`run_diagnose` and :func:`run_compare` print to the console they are given and return
the exit code: 0 ok, 1 a check reached ``fail_on`` / the CSVs differ. User errors raise
:class:`~mjscope.exceptions.MjscopeError` (the CLI prints them and exits 2).

Ctrl-C and SIGTERM raise ``KeyboardInterrupt`` (the CLI exits 130) after saying where the
partial CSV is; an earlier output of the same name is never replaced by a partial or failed
one (:mod:`mjscope.diagnose.outputs`).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from mjscope.diagnose.baseline import check_baseline
from mjscope.diagnose.compare import compare, rank_columns, read_csv, read_units
from mjscope.diagnose.config import CompareCfg, DiagnoseCmdCfg
from mjscope.diagnose.diagnosis import diagnose, exit_code
from mjscope.diagnose.episode import collect_mujoco_warnings
from mjscope.diagnose.html_page import diagnose_page
from mjscope.diagnose.outputs import Interrupted, sigterm_as_interrupt
from mjscope.diagnose.plots import plot_overlay, plot_series
from mjscope.diagnose.report import finding_lines, render, write_json
from mjscope.diagnose.sweep import SweepRun, parse_set, run_sweeps, summary_row
from mjscope.diagnose.sweep_plots import plot_sweep_summary
from mjscope.exceptions import ConfigError
from mjscope.models import load
from mjscope.paths import check_writable, ensure_dir
from mjscope.progress import RunProgress
from mjscope.report import write_html


def run_diagnose(cfg: DiagnoseCmdCfg, con: Console) -> int:
    """Diagnose ``cfg.model`` and print the report; a sweep when ``cfg.set`` is given.

    Returns:
        1 when a finding (of any sweep run) reaches ``cfg.fail_on``, else 0.

    Raises:
        MjscopeError: A bad model, setting or output path (before any simulation when it can).
    """
    with sigterm_as_interrupt():
        try:
            return _run_sweep(cfg, con) if cfg.set else _run_single(cfg, con)
        except Interrupted as e:
            for line in e.lines():
                con.print(line, markup=False, highlight=False)
            raise


def _check_outputs(cfg: DiagnoseCmdCfg) -> None:
    """Fail before simulating when an output path cannot be written."""
    for path in (cfg.csv, cfg.json, cfg.contacts, cfg.html):
        if path:
            check_writable(path)
    if cfg.plot:
        ensure_dir(cfg.plot)


def _run_single(cfg: DiagnoseCmdCfg, con: Console) -> int:
    _check_outputs(cfg)
    with collect_mujoco_warnings() as compiler:
        model = load(cfg.model, cfg.load_options)
    rcfg = cfg.rollout_cfg(model)
    if cfg.baseline and rcfg.csv is None:
        rcfg = replace(rcfg, csv=str(ensure_dir(cfg.baseline, "baseline folder") / "last.csv"))
    plot_dir = cfg.plot or (tempfile.mkdtemp(prefix="mjscope-plots-") if cfg.html else None)
    dg = diagnose(
        model,
        cfg.model,
        rcfg,
        plot_dir,
        source=cfg.model,
        load_messages=compiler,
        contact_params=cfg.contact_params,
    )
    temp_plot = dg.report["files"].pop("plot", None) if plot_dir != cfg.plot else None
    if cfg.json:
        write_json(dg.report, cfg.json)
        dg.report["files"]["json"] = cfg.json
    if cfg.quiet:
        for line in finding_lines(dg.report, cfg.per_element):
            con.print(line, markup=False, highlight=False)
    else:
        render(dg.report, con, cfg.per_element)
    code = exit_code(dg.findings, cfg.fail_on)
    if cfg.baseline:
        assert rcfg.csv is not None
        code = max(code, _baseline(cfg, str(rcfg.csv), dg.report, con))
    if cfg.html:
        plot = temp_plot or dg.report["files"].get("plot")
        pngs = [Path(plot)] if plot else []
        con.print(f"wrote {write_html(cfg.html, diagnose_page(dg.report, pngs, code))}")
        if not cfg.plot and plot_dir:
            shutil.rmtree(plot_dir, ignore_errors=True)
    counts = dg.report["check_counts"]
    con.print(f"{'FAIL' if code else 'OK'}: {counts['error']} errors, {counts['warning']} warnings")
    return code


def _baseline(cfg: DiagnoseCmdCfg, csv: str, report: dict[str, Any], con: Console) -> int:
    """Save or check the baseline; 1 when the behaviour changed."""
    assert cfg.baseline is not None
    res = check_baseline(cfg.baseline, csv, report, cfg.tol)
    if res.created:
        con.print(f"baseline: saved in {cfg.baseline} (later runs are checked against it)")
        return 0
    if not res.changed:
        con.print(f"baseline: same behaviour as {cfg.baseline} (tol {cfg.tol:g})")
        return 0
    con.print(f"[bold red]baseline: behaviour changed[/] against {cfg.baseline}")
    if res.rows[0] != res.rows[1]:
        con.print(f"  rows: {res.rows[0]} now vs {res.rows[1]} in the baseline (diverged?)")
    for name, dev in res.deviating[:10]:
        con.print(f"  column {name}: max deviation {dev:.3g} of its baseline range")
    if len(res.deviating) > 10:
        con.print(f"  … and {len(res.deviating) - 10} more columns")
    for c in res.new_checks:
        con.print(f"  new check: {c}")
    for c in res.gone_checks:
        con.print(f"  no longer raised: {c}")
    return 1


def _run_sweep(cfg: DiagnoseCmdCfg, con: Console) -> int:
    """One rollout per ``set`` value: summary table, overlay figure, optional JSON."""
    sweeps = [parse_set(s) for s in cfg.set]
    if cfg.baseline:
        raise ConfigError(
            "--baseline checks one run against its saved curves; drop --set, or drop --baseline"
        )
    _check_outputs(cfg)
    base = cfg.sweep_base()
    runs = run_sweeps(cfg.model, cfg.load_options, sweeps, base, cfg.duration, cfg.executor)
    rows = [summary_row(r) for r in runs]
    table = Table(title=f"sweep of {cfg.model}")
    for c in rows[0]:
        table.add_column(c)
    for r in rows:
        table.add_row(*(f"{v:.4g}" if isinstance(v, float) else str(v) for v in r.values()))
    con.print(table)
    if cfg.plot:
        title = f"{cfg.model}: {'; '.join(cfg.set)}"
        con.print(f"plot: {plot_series(_overlay(runs), cfg.plot, 'sweep.png', title)}")
        for path in plot_sweep_summary(rows, cfg.plot, title):
            con.print(f"plot: {path}")
    if cfg.json:
        sweep = list(cfg.set)
        write_json({"sweep": sweep, "table": rows, "runs": [r.report for r in runs]}, cfg.json)
    return max(exit_code(r.findings, cfg.fail_on) for r in runs)


def _overlay(runs: list[SweepRun]) -> list[tuple[str, list[str], np.ndarray]]:
    """(legend label, column names, preview rows) of each sweep run, for the overlay figure."""
    return [
        (
            f"{r.label.rsplit('.', 1)[-1]}={r.value}",
            [h.split(" [")[0] for h in r.header],
            r.preview,
        )
        for r in runs
    ]


def run_compare(cfg: CompareCfg, con: Console) -> int:
    """Compare two CSVs and print the per-column deviations.

    Returns:
        1 when a column deviates beyond ``cfg.tol`` (or rows/columns differ), else 0.

    Raises:
        MjscopeError: A missing or malformed CSV, a bad tolerance or plot folder.
    """
    if cfg.plot:
        ensure_dir(cfg.plot)  # an unusable folder fails before any output
    with RunProgress(
        "diagnose compare", total=3, unit="stages", show=None if cfg.progress else False
    ) as bar:
        bar.update(0, f"reading {Path(cfg.a).name}")
        ca = read_csv(cfg.a)
        bar.update(1, f"reading {Path(cfg.b).name}")
        cb = read_csv(cfg.b)
        bar.update(2, "comparing")
        res = compare(ca, cb, cfg.tol)
        bar.update(3, "done")
    t = Table(title=f"compare {cfg.a} vs {cfg.b} (tol {cfg.tol:g})")
    for c in ("column", "max |A-B|", "first diverging step"):
        t.add_column(c)
    for c in res["columns"]:
        step = c["first_diverging_step"]
        t.add_row(c["name"], f"{c['max_deviation']:.4g}", "-" if step is None else str(step))
    con.print(t)
    if res["rows_a"] != res["rows_b"]:
        con.print(
            f"row counts differ: {res['rows_a']} vs {res['rows_b']} (compared the first "
            f"{min(res['rows_a'], res['rows_b'])})"
        )
    for side, cols in (("A", res["only_a"]), ("B", res["only_b"])):
        if cols:
            con.print(f"only in {side}: {', '.join(cols)}")
    if cfg.plot:
        labels = (Path(cfg.a).name, Path(cfg.b).name)
        units = read_units(cfg.a)
        ranked = rank_columns(res, ca, cb, units)
        con.print(f"plot: {plot_overlay(ca, cb, labels, cfg.plot, ranked, units, cfg.tol)}")
    con.print("SAME within tolerance" if res["passed"] else "DIFFERENT beyond tolerance")
    return 0 if res["passed"] else 1
