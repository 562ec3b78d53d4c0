"""Every series a dock figure names in its legend is visible: draw order, floors, the skip line."""

from __future__ import annotations

from matplotlib import style as mpl_style

from mjscope.dock.labels import text
from mjscope.dock.plot_style import styles
from mjscope.dock.plotting import FIGURES, LOG_FLOOR
from tests.test_dock_metrics import docking_log, docking_scene, tracking_log, tracking_scene


def _lines(fig, i: int = 0) -> dict[str, object]:
    return {ln.get_label(): ln for ln in fig.axes[i].get_lines()}


def test_actual_is_drawn_over_a_wider_reference() -> None:
    with mpl_style.context(styles("en")):
        for name in ("path_xy", "position_tracking"):
            lines = _lines(FIGURES[name](tracking_log().arrays(), tracking_scene(), "en"))
            act, ref = lines[text("actual")], lines[text("reference")]
            assert act.get_zorder() > ref.get_zorder(), name
            assert ref.get_linewidth() > 2 * act.get_linewidth(), name


def test_force_components_are_drawn_over_the_contact_force() -> None:
    with mpl_style.context(styles("en")):
        lines = _lines(FIGURES["forces"](docking_log().arrays(), docking_scene(), "en"))
    fn = lines[text("contact_fn")]
    assert all(lines[f"$F_{a}$"].get_zorder() > fn.get_zorder() for a in "xyz")
    assert fn.get_linewidth() > 2 * lines["$F_z$"].get_linewidth()


def test_skip_line_is_in_the_legend_and_a_log_floor_is_said() -> None:
    d = dict(tracking_log().arrays())
    d["eef_pos"] = d["eef_pos"].copy()
    d["eef_pos"][len(d["t"]) // 2 :] = d["ref_pos"][len(d["t"]) // 2 :]  # exact: error 0
    with mpl_style.context(styles("en")):
        fig = FIGURES["errors"](d, tracking_scene(), "en")
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert text("track_skip") in labels
    floor = f"{text('log_floor')} {LOG_FLOOR:g}"
    pos, ori = ([t.get_text() for t in ax.texts] for ax in fig.axes)
    assert pos == [floor]  # the position error reaches 0: clipped, and said once
    assert ori == []  # the orientation error stays above the floor: nothing to say
