"""``diagnose compare``'s figure: A and B beside A−B, the first step beyond --tol marked."""

from __future__ import annotations

from pathlib import Path

import imageio.v3 as iio
import numpy as np

from mjscope.diagnose.plots import _at, _first_beyond, plot_overlay


def test_difference_on_a_common_axis_and_the_first_step_beyond_tol() -> None:
    x = np.linspace(0.0, 1.0, 11)
    assert _at(x, x, 2 * x) is not None and np.array_equal(_at(x, x, 2 * x), 2 * x)
    np.testing.assert_allclose(_at(x, x[::2], 2 * x[::2]), 2 * x, atol=1e-12)  # interpolated
    diff = np.where(x > 0.55, 1e-3, 1e-9)
    assert _first_beyond(x, diff, 1e-6) == x[6]
    assert _first_beyond(x, diff, 1.0) is None and _first_beyond(x, diff, None) is None
    assert _first_beyond(x, np.full(11, np.nan), 0.0) is None  # a gap is not a difference


def test_compare_figure_has_a_difference_panel_per_column(tmp_path: Path) -> None:
    t = np.linspace(0.0, 1.0, 200)
    names = ["time", "q", "v"]
    a = np.column_stack([t, np.sin(t), np.cos(t)])
    b = a.copy()
    b[120:, 1] += 0.05  # the runs part at row 120
    png = plot_overlay((names, a), (names, b), ("A", "B"), tmp_path, [("q", 0.1)], tol=1e-3)
    img = iio.imread(png)
    assert img.shape[1] > 1.2 * img.shape[0]  # two panels side by side for one column
    red = (img[..., 0] > 180) & (img[..., 1] < 80) & (img[..., 2] < 80)  # the A−B line
    assert red[:, img.shape[1] // 2 :].sum() > 200 and red[:, : img.shape[1] // 2].sum() == 0
