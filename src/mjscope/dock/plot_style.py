"""Style, fonts and file output shared by the dock figures (single run and side by side).

Figures use SciencePlots' ``science`` + ``ieee`` + ``no-latex`` styles (facts: no LaTeX
install needed). Chinese figures (``lang="zh"``) add one rc override on top: the serif family
becomes an installed CJK font, as SciencePlots' own ``cjk-sc-font`` style does for Noto Serif
CJK SC, but taking whichever of :data:`CJK_FONTS` is installed. Without one, drawing would put
tofu boxes where the characters go, so a missing font is a :class:`FontMissingError` before any
figure (or run) starts.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import scienceplots  # noqa: F401  (registers the styles)

from mjscope.dock.labels import check_lang
from mjscope.exceptions import MjscopeError
from mjscope.paths import atomic_path

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

STYLES: list[str | dict[str, Any]] = ["science", "ieee", "no-latex"]
FORMATS = ("png", "pdf")
#: CJK fonts in order of preference: serif first (the IEEE style is serif), simplified Chinese
#: first; the Pan-CJK TC/JP/KR cuts also hold every simplified character.
CJK_FONTS = (
    "Noto Serif CJK SC",
    "Source Han Serif SC",
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "AR PL UMing CN",
    "SimSun",
    "SimHei",
    "Microsoft YaHei",
    "PingFang SC",
    "Noto Serif CJK TC",
    "Noto Sans CJK TC",
    "Noto Serif CJK JP",
    "Noto Sans CJK JP",
)
INSTALL_HINT = "install one: apt-get install fonts-noto-cjk (or draw the figures with --lang en)"


class FontMissingError(MjscopeError):
    """No CJK font is installed for Chinese figure labels."""


def installed_fonts() -> set[str]:
    """Family names of the fonts matplotlib knows."""
    from matplotlib import font_manager

    return {f.name for f in font_manager.fontManager.ttflist}


def _add_new_system_fonts() -> None:
    """Register system fonts installed after matplotlib cached its font list."""
    from matplotlib import font_manager

    known = {f.fname for f in font_manager.fontManager.ttflist}
    for path in font_manager.findSystemFonts():
        if path not in known:
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):  # unreadable or not a font: skip it
                continue


def find_cjk_font() -> str:
    """The first installed font of :data:`CJK_FONTS`.

    Returns:
        Its family name.

    Raises:
        FontMissingError: None is installed (the message says how to install one).
    """
    for attempt in range(2):
        names = installed_fonts()
        for name in CJK_FONTS:
            if name in names:
                return name
        if attempt == 0:
            _add_new_system_fonts()
    raise FontMissingError(
        f"no CJK font for --lang zh figures (looked for {', '.join(CJK_FONTS[:3])}, ...); "
        + INSTALL_HINT
    )


def styles(lang: str) -> list[str | dict[str, Any]]:
    """The style list for ``matplotlib.style.context`` in figure language ``lang``.

    Raises:
        UnknownNameError: Unknown language.
        FontMissingError: ``zh`` without an installed CJK font.
    """
    if check_lang(lang) == "en":
        return list(STYLES)
    return [*STYLES, {"font.family": "serif", "font.serif": [find_cjk_font()]}]


def save(fig: Figure, folder: Path, stem: str) -> list[Path]:
    """Write ``fig`` as ``folder/stem.png`` and ``.pdf`` (each atomically); returns both paths.

    Raises:
        OutputError: A file cannot be written.
    """
    paths = []
    for ext in FORMATS:
        p = folder / f"{stem}.{ext}"
        with atomic_path(p) as part, warnings.catch_warnings():
            # Matplotlib warns on an intermediate constrained-layout pass of the legends-above
            # figures although the saved layout is the constrained one (compared pixel by pixel).
            warnings.filterwarnings("ignore", "constrained_layout not applied", UserWarning)
            fig.savefig(part, format=ext)
        paths.append(p)
    return paths


def legend(ax: Axes, ncol: int = 2) -> None:
    """Legend in a row above the axes, clear of the data."""
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0, 1.0, 0.1), mode="expand", ncol=ncol)
