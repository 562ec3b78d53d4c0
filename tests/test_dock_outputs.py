"""``mjscope dock`` scripting surface: ``--json PATH|-``, ``--html``, ``--quiet``, progress."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mjscope.cli import main as cli_main
from tests.utils import chromium_screenshot, run_in_pty

EXE = shutil.which("mjscope") or "mjscope"
TRACK = ["dock", "--scene", "iiwa14_track_circle", "--quick"]


def _json_stdout(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, Any, str]:
    code = cli_main(argv)
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err  # stdout is the JSON alone


def assert_shows_title_and_a_plot(shot: np.ndarray) -> None:
    """Dark title text near the top, and below it a plot's axes frame: a dark line ≥ 400 px long
    (text and the tables' light grey borders have no such line)."""
    top = shot[:80].astype(int)
    assert (top.sum(axis=2) < 200).sum() > 500, "no title text at the top of the page"
    dark = shot[100:].astype(int).sum(axis=2) < 200
    assert max(_longest_run(row) for row in dark) >= 400, "no figure shown"


def _longest_run(row: np.ndarray) -> int:
    edges = np.flatnonzero(np.diff(np.concatenate(([0], row.astype(np.int8), [0]))))
    return int((edges[1::2] - edges[::2]).max(initial=0))


def _check_run(run: dict[str, Any]) -> None:
    assert run["status"] == "ok" and isinstance(run["passed"], bool)
    assert run["metrics"]["samples"] == run["steps"] == 2500
    checks = run["gate"]["checks"]
    assert checks and {"name", "value", "op", "limit", "unit", "passed"} <= set(checks[0])
    assert run["passed"] == (run["gate"]["passed"] and all(c["passed"] for c in checks))
    assert all(Path(f).is_file() for f in run["files"])


def test_single_run_json_on_stdout_and_html_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    page = tmp_path / "run.html"
    argv = [*TRACK, "--out", str(tmp_path / "o"), "--json", "-", "--html", str(page)]
    code, doc, err = _json_stdout(capsys, argv)
    assert code == (0 if doc["passed"] else 1) and doc["kind"] == "run"
    assert (doc["scene"], doc["controller"]) == ("iiwa14_track_circle", "cic")
    _check_run(doc)
    assert "gate:" in err and f"wrote {page}" in err  # the human report went to stderr
    html = page.read_text()
    assert html.count('src="data:image/png;base64,') >= 3 and "mjscope dock" in html
    assert list((tmp_path / "tmp").iterdir()) == []  # the figures' temporary folder is gone
    assert not (tmp_path / "o" / "figure").exists()  # no --plot: no figures left behind
    assert_shows_title_and_a_plot(chromium_screenshot(page, tmp_path / "shot.png", (1200, 1400)))


def test_comparison_json_and_html_with_the_overlay_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page, summary = tmp_path / "cmp.html", tmp_path / "cmp.json"
    argv = [*TRACK, "--controller", "cic,se3_lie", "--out", str(tmp_path / "o")]
    code = cli_main([*argv, "--json", str(summary), "--html", str(page)])
    doc = json.loads(summary.read_text())
    assert doc["kind"] == "comparison" and list(doc["controllers"]) == ["cic", "se3_lie"]
    for run in doc["controllers"].values():
        _check_run(run)
    assert doc["passed"] == all(r["passed"] for r in doc["controllers"].values())
    assert code == (0 if doc["passed"] else 1)
    html = page.read_text()
    assert html.count('src="data:image/png;base64,') == 3  # the overlay figures
    assert "cic vs se3_lie" in html and "compare position error" in html
    assert f"wrote {summary}" in capsys.readouterr().out
    assert_shows_title_and_a_plot(chromium_screenshot(page, tmp_path / "shot.png", (1200, 1400)))


def test_campaign_json_on_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*TRACK, "--controller", "cic,se3_lie", "--trials", "2", "--jobs", "1"]
    page = tmp_path / "campaign.html"
    argv += ["--out", str(tmp_path), "--json", "-", "--html", str(page)]
    code, doc, _ = _json_stdout(capsys, argv)
    assert doc["kind"] == "campaign" and doc["trials"] == 2 and "min_success_rate" in doc
    assert [c["controller"] for c in doc["controllers"]] == ["cic", "se3_lie"]
    for c in doc["controllers"]:
        assert c["trials"] == 2 and 0 <= c["successes"] <= 2
        assert c["success_rate"] == pytest.approx(c["successes"] / 2)
        assert c["wilson95_low"] <= c["success_rate"] <= c["wilson95_high"]
        assert len(c["failed_trials"]) == 2 - c["successes"]
    assert doc["passed"] == (code == 0)
    html = page.read_text()  # tracking campaigns have no distribution figures (docking only)
    assert "mjscope dock campaign" in html and "Wilson 95 % low" in html and "se3_lie" in html


def test_envelope_json_and_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "env.html"
    argv = ["dock", "--quick", "--envelope", "lateral=0:1e-3:2", "--trials", "1", "--jobs", "1"]
    code, doc, _ = _json_stdout(
        capsys, [*argv, "--out", str(tmp_path), "--json", "-", "--html", str(page)]
    )
    assert code == 0 and doc["kind"] == "envelope"
    assert (doc["swept"], doc["unit"], doc["controllers"]) == ("lateral", "m", ["cic"])
    assert [r["magnitude"] for r in doc["rows"]] == [0.0, 1e-3]
    assert all(r["trials"] == 1 and 0 <= r["successes"] <= 1 for r in doc["rows"])
    assert page.read_text().count('src="data:image/png;base64,') == 1  # the success curves
    assert_shows_title_and_a_plot(chromium_screenshot(page, tmp_path / "shot.png", (1200, 1400)))


def test_unwritable_html_fails_before_the_run(tmp_path: Path, capsys: Any) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code = cli_main([*TRACK, "--out", str(tmp_path / "o"), "--html", str(blocker / "p.html")])
    assert code == 2 and not (tmp_path / "o" / "telemetry").exists()
    assert str(blocker) in capsys.readouterr().err  # one line naming what is in the way


def test_progress_on_a_terminal_none_in_a_pipe_and_quiet_prints_nothing(tmp_path: Path) -> None:
    argv = [EXE, *TRACK, "--out", str(tmp_path)]
    code, text = run_in_pty(argv)
    assert code in (0, 1) and "dock iiwa14_track_circle cic" in text and "steps/s" in text
    assert "t=2.50 s" in text  # the sim time reached at the end
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=240)
    assert "steps/s" not in piped.stdout + piped.stderr and "gate:" in piped.stdout
    quiet = subprocess.run([*argv, "--quiet"], capture_output=True, text=True, timeout=240)
    assert quiet.returncode == piped.returncode and quiet.stdout == ""
    code, text = run_in_pty([*argv, "--quiet"])
    assert "steps/s" not in text and "gate:" not in text


def test_progress_calls_leave_the_run_bit_identical() -> None:
    from mjscope.dock.run_docking import run_simulation

    seen: list[int] = []
    plain = run_simulation("iiwa14_track_circle", "cic", duration=0.3).log.arrays()
    watched = run_simulation("iiwa14_track_circle", "cic", 0.3, progress=seen.append).log.arrays()
    assert seen == list(range(0, 300, 50))  # every 50 control periods, from the start
    for key, values in plain.items():
        np.testing.assert_array_equal(watched[key], values, err_msg=key)


def test_list_as_json_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, err = _json_stdout(capsys, ["dock", "--list", "--json", "-"])
    assert code == 0 and doc["kind"] == "scenes" and "iiwa14_track_circle" in doc["scenes"]
    assert "iiwa14_docking: " in err  # the human list went to stderr
