"""Publication figures from telemetry arrays: which figures, PNG + PDF, the IEEE size, zh/en."""

from __future__ import annotations

import re
import struct
import warnings
from pathlib import Path
from typing import Any

import pytest
from matplotlib import style as mpl_style
from matplotlib.figure import Figure

from mjscope.dock import labels, plot_style
from mjscope.dock.plot_style import STYLES, FontMissingError, find_cjk_font
from mjscope.dock.plotting import FIGURES, figure_names, plot_results
from mjscope.dock.scene import Scene
from mjscope.dock.telemetry import Log
from mjscope.exceptions import UnknownNameError
from tests.test_dock_metrics import docking_log, docking_scene, tracking_log, tracking_scene
from tests.utils import skip_optional

DOCK_FIGURES = ["position_tracking", "errors", "forces", "insertion_depth", "joint_torques"]


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def short(log: Log, step: int = 10) -> dict:
    """Every step-th sample, to keep the figures cheap."""
    return {k: v[::step] for k, v in log.arrays().items()}


def test_docking_figures_png_and_pdf(tmp_path: Path) -> None:
    scene = docking_scene()
    paths = plot_results(short(docking_log()), scene, tmp_path)
    folder = tmp_path / "figure" / "t_dock"
    expected = {folder / f"{n}.{e}" for n in DOCK_FIGURES for e in ("png", "pdf")}
    assert set(paths) == expected and figure_names(scene) == DOCK_FIGURES
    for p in paths:
        assert p.stat().st_size > 2000, p
        if p.suffix == ".pdf":
            assert p.read_bytes()[:5] == b"%PDF-"
    w, h = png_size(folder / "errors.png")
    assert 0.95 * 3.3 * 600 < w < 1.05 * 3.3 * 600, "ieee style: 3.3 in at 600 dpi (tight bbox)"
    assert h > w / 2


def test_tracking_figures_have_path_and_no_insertion(tmp_path: Path) -> None:
    log = tracking_log()
    paths = plot_results(log.arrays(), tracking_scene(), tmp_path)  # plotting takes arrays
    names = {p.stem for p in paths}
    assert "path_xy" in names and "insertion_depth" not in names
    assert all(p.parent == tmp_path / "figure" / "t_track" for p in paths)
    assert len(paths) == 2 * len(names) == 10


def test_empty_log_writes_no_figures(tmp_path: Path) -> None:
    assert plot_results(Log().arrays(), docking_scene(), tmp_path) == []


# --- figure language ---------------------------------------------------------------------------

CJK = re.compile(r"[\u4e00-\u9fff]")


def cjk_font_or_skip() -> str:
    """The installed CJK font; skips without one (fails under CI, which installs it)."""
    try:
        return find_cjk_font()
    except FontMissingError as e:
        skip_optional(str(e))
        raise


def figure_texts(fig: Figure) -> list[str]:
    """Axis labels and legend entries of every axes of ``fig``."""
    out = []
    for ax in fig.axes:
        out += [ax.get_xlabel(), ax.get_ylabel()]
        leg = ax.get_legend()
        out += [t.get_text() for t in leg.get_texts()] if leg is not None else []
    return [t for t in out if t]


@pytest.mark.parametrize("scene", [docking_scene(), tracking_scene()], ids=["dock", "track"])
def test_zh_labels_are_chinese_and_en_labels_are_not(scene: Scene) -> None:
    cjk_font_or_skip()
    d = short(docking_log() if scene.mode == "docking" else tracking_log(), step=50)
    for name in figure_names(scene):
        zh = figure_texts(FIGURES[name](d, scene, "zh"))
        en = figure_texts(FIGURES[name](d, scene, "en"))
        assert len(zh) == len(en) and zh != en, name
        assert not any(CJK.search(t) for t in en), (name, en)
        assert any(CJK.search(t) for t in zh), (name, zh)
        if name != "path_xy":
            assert "时间 [s]" in zh, name


def test_every_label_has_a_chinese_text() -> None:
    same = {"pos_axis", "x", "y"}  # axis names and units only
    for key in labels.keys():
        zh, en = labels.text(key, "zh", axis="x"), labels.text(key, "en", axis="x")
        assert bool(CJK.search(zh)) == (key not in same) and not CJK.search(en), key


def test_the_cjk_font_has_every_glyph_of_the_labels() -> None:
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    name = cjk_font_or_skip()
    path = font_manager.findfont(
        font_manager.FontProperties(family=name), fallback_to_default=False
    )
    font = FT2Font(path)
    chars = {c for k in labels.keys() for c in labels.text(k, "zh", axis="x") if CJK.match(c)}
    missing = [c for c in sorted(chars) if font.get_char_index(ord(c)) == 0]
    assert len(chars) > 30 and missing == [], missing


def test_zh_figures_emit_no_missing_glyph_warning_and_keep_the_ieee_size(tmp_path: Path) -> None:
    cjk_font_or_skip()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # "Glyph ... missing from font(s)" included
        paths = plot_results(short(docking_log(), step=50), docking_scene(), tmp_path, lang="zh")
    assert {p.stem for p in paths} == set(DOCK_FIGURES) and len(paths) == 10
    w, h = png_size(tmp_path / "figure" / "t_dock" / "errors.png")
    assert 0.95 * 3.3 * 600 < w < 1.05 * 3.3 * 600 and h > w / 2, "ieee style with the CJK font"


def test_a_font_without_cjk_glyphs_does_warn(tmp_path: Path) -> None:
    """The check above can fail: Chinese text in a Latin-only font warns about the glyphs."""
    fig = Figure()
    fig.subplots().set_xlabel(labels.text("time", "zh"))
    with mpl_style.context([*STYLES, {"font.family": "DejaVu Serif"}]):
        with pytest.warns(UserWarning, match=r"Glyph \d+ .* missing from font"):
            fig.savefig(tmp_path / "tofu.png")


def test_missing_cjk_font_is_a_one_line_error(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(plot_style, "CJK_FONTS", ("No Such CJK Font",))
    with pytest.raises(FontMissingError) as e:
        plot_results(short(docking_log()), docking_scene(), tmp_path, lang="zh")
    msg = str(e.value)
    assert "\n" not in msg and "apt-get install fonts-noto-cjk" in msg and "--lang en" in msg
    assert not list(tmp_path.rglob("*.*")), "nothing written"
    assert plot_style.styles("en") == STYLES, "English figures need no CJK font"


def test_fonts_installed_after_matplotlibs_cache_are_found(monkeypatch: Any) -> None:
    from matplotlib import font_manager

    name = cjk_font_or_skip()
    fm = font_manager.fontManager
    monkeypatch.setattr(fm, "ttflist", [f for f in fm.ttflist if "CJK" not in f.name])
    assert name not in plot_style.installed_fonts()
    assert plot_style.find_cjk_font() == name  # rescanned the system fonts


def test_unknown_language_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match=r"unknown figure language 'fr'.*--lang en"):
        plot_results(short(docking_log()), docking_scene(), tmp_path, lang="fr")
