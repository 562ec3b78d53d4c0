"""Figure text of the dock plots in English and Chinese (the seed labels its figures in Chinese).

Every axis label and legend entry of :mod:`mjscope.dock.plotting` and
:mod:`mjscope.dock.plotting_compare` (the IEEE-style figures carry no titles) is looked up here
by key, so a figure in either language has the same layout and the same units. Units stay SI
symbols in both languages; mathtext (``$F_x$``) is left untouched. No matplotlib import: the
table is plain data.
"""

from __future__ import annotations

from mjscope.exceptions import UnknownNameError

LANGS = ("en", "zh")
DEFAULT_LANG = "en"

#: key -> (English, Chinese).
_TEXT: dict[str, tuple[str, str]] = {
    "time": ("time [s]", "时间 [s]"),
    "actual": ("actual", "实际"),
    "reference": ("reference", "参考"),
    "pos_axis": ("{axis} [m]", "{axis} [m]"),
    "pos_error": ("position error [mm]", "位置误差 [mm]"),
    "ori_error": ("orient. error [mrad]", "姿态误差 [mrad]"),
    "force": ("force [N]", "力 [N]"),
    "torque": ("torque [N$\\cdot$m]", "力矩 [N$\\cdot$m]"),
    "contact_fn": ("contact $F_n$", "接触力 $F_n$"),
    "contact_force": ("contact force [N]", "接触力 [N]"),
    "socket_depth": ("socket depth", "插孔深度"),
    "gate": ("gate", "门限"),
    "depth": ("depth [mm]", "插入深度 [mm]"),
    "lateral": ("lateral [mm]", "横向误差 [mm]"),
    "axis_angle": ("axis angle [deg]", "轴线夹角 [deg]"),
    "joint_torque": ("joint torque [N$\\cdot$m]", "关节力矩 [N$\\cdot$m]"),
    "x": ("x [m]", "x [m]"),
    "y": ("y [m]", "y [m]"),
    "track_skip": ("gate starts (track_skip)", "门限起点 (track_skip)"),
    "log_floor": ("smaller values drawn at the floor", "更小的值画在下限"),
}


def check_lang(lang: str) -> str:
    """``lang`` if it is a known figure language.

    Raises:
        UnknownNameError: ``lang`` is not ``en`` or ``zh``.
    """
    if lang not in LANGS:
        raise UnknownNameError("figure language", lang, LANGS, "Pass --lang en or --lang zh")
    return lang


def text(key: str, lang: str = DEFAULT_LANG, **fields: str) -> str:
    """The figure text ``key`` in ``lang``, with ``{field}`` placeholders filled.

    Args:
        key: A key of the label table (e.g. ``"time"``).
        lang: ``en`` or ``zh``.
        **fields: Values of the placeholders (e.g. ``axis="x"``).

    Raises:
        UnknownNameError: Unknown language.
    """
    en, zh = _TEXT[key]
    return (zh if check_lang(lang) == "zh" else en).format(**fields)


def keys() -> tuple[str, ...]:
    """Every key of the label table."""
    return tuple(_TEXT)
