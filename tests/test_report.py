"""The one-page HTML report: self-contained, escaped, and shows its title and figures."""

from __future__ import annotations

from pathlib import Path

import imageio.v3 as iio
import numpy as np

from mjscope.report import Figure, Finding, Report, Section, Table, render_html, write_html
from tests.utils import chromium_screenshot

MAGENTA = (255, 0, 255)


def _figure(tmp_path: Path) -> Figure:
    img = np.zeros((200, 400, 3), np.uint8)
    img[:] = MAGENTA  # a colour nothing else on the page has
    png = tmp_path / "fig.png"
    iio.imwrite(png, img)
    return Figure.from_png(png, "a magenta test figure")


def _report(tmp_path: Path) -> Report:
    findings = (
        Finding(
            "warning",
            "TIMESTEP_VS_DYNAMICS",
            "dt <script>alert(1)</script> too large",
            "halve it",
            "m.xml:3",
        ),
    )
    table = Table.from_records(
        [{"metric": "rms", "value": 0.000123456}, {"metric": "peak", "value": 2}]
    )
    return Report(
        title="mjscope test report",
        verdict="PASS",
        summary="one line",
        sections=(Section("Findings", ("text",), findings, (table,), (_figure(tmp_path),)),),
        command="mjscope diagnose m.xml --html r.html",
    )


def test_page_is_self_contained_and_escaped(tmp_path: Path) -> None:
    html = render_html(_report(tmp_path))
    assert "<script>" not in html and "&lt;script&gt;" in html  # escaped, never run
    assert 'src="data:image/png;base64,' in html and "http" not in html.split("<main>")[1]
    assert "mjscope diagnose m.xml --html r.html" in html and "mujoco" in html  # versions
    assert "0.0001235" in html  # cells formatted to 4 significant digits


def test_write_html_replaces_only_with_a_whole_page(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    out.write_text("earlier")
    write_html(out, _report(tmp_path))
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig.png", "r.html"]


def test_chromium_shows_the_title_and_the_figure(tmp_path: Path) -> None:
    page = write_html(tmp_path / "r.html", _report(tmp_path))
    shot = chromium_screenshot(page, tmp_path / "shot.png")
    assert_shows_title_and_figure(shot)


def assert_shows_title_and_figure(shot: np.ndarray) -> None:
    """The screenshot has dark title text near the top and magenta figure pixels."""
    top = shot[:80].astype(int)
    assert (top.sum(axis=2) < 200).sum() > 500, "no title text at the top of the page"
    magenta = np.all(np.abs(shot.astype(int) - MAGENTA) < 30, axis=2)
    assert magenta.sum() > 200 * 300, "the embedded figure is not shown"


def test_demo_index_links_each_feature_report_and_chromium_shows_them(tmp_path: Path) -> None:
    from mjscope.cli import main

    out = tmp_path / "demo"
    assert main(["demo", "--only", "hand", "--only", "mirror", "--out", str(out)]) == 0
    index = (out / "index.html").read_text()
    assert 'href="hand/report.html"' in index and 'href="mirror/report.html"' in index
    for part in ("hand", "mirror"):
        shot = chromium_screenshot(out / part / "report.html", tmp_path / f"{part}.png")
        top = shot[:80].astype(int)
        assert (top.sum(axis=2) < 200).sum() > 500, f"{part}: no title text"
        dark = shot.astype(int).sum(axis=2) < 150  # the render's dark scene, not the page
        assert dark.sum() > 60_000, f"{part}: no rendered figure on the page"


def test_diagnose_html_shows_the_verdict_findings_and_the_plot(tmp_path: Path) -> None:
    from mjscope.cli import main

    page = tmp_path / "d.html"
    assert main(["diagnose", "quadruped", "--steps", "200", "--html", str(page)]) == 0
    html = page.read_text()
    assert "mjscope diagnose · quadruped" in html and "VISUAL_GEOMS" in html
    assert "mjscope diagnose quadruped --steps 200 --html" in html
    assert not list(tmp_path.glob("mjscope-plots-*"))  # no temporary plot left behind
    shot = chromium_screenshot(page, tmp_path / "d.png", (1200, 1200))
    top = shot[:80].astype(int)
    assert (top.sum(axis=2) < 200).sum() > 500, "no title text"
    coloured = np.ptp(shot.astype(int), axis=2) > 60  # plot lines (blue, orange), not grey text
    assert coloured.sum() > 2000, "the rollout plot is not on the page"
