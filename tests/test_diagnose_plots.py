import numpy as np

from mjscope.diagnose import plots


def test_plot_overlay_indexes_each_file_by_its_own_columns(tmp_path, monkeypatch):
    figs = []
    monkeypatch.setattr(plots._pyplot(), "close", figs.append)  # keep the figure to inspect
    a = (["time", "x", "y"], np.array([[0.0, 1.0, 2.0], [1.0, 3.0, 4.0]]))
    b = (["time", "y"], np.array([[0.0, 20.0], [1.0, 40.0]]))  # y is B's column 1, not 2
    plots.plot_overlay(a, b, ("A", "B"), tmp_path)
    drawn = [line.get_ydata().tolist() for ax in figs[0].axes for line in ax.lines]
    assert drawn == [[2.0, 4.0], [20.0, 40.0]]
