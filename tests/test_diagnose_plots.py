import numpy as np

from mjscope.diagnose import plots


def test_plot_overlay_indexes_each_file_by_its_own_columns(tmp_path, monkeypatch):
    figs = []
    monkeypatch.setattr(plots._pyplot(), "close", figs.append)  # keep the figure to inspect
    a = (["time", "x", "y"], np.array([[0.0, 1.0, 2.0], [1.0, 3.0, 4.0]]))
    b = (["time", "y"], np.array([[0.0, 20.0], [1.0, 40.0]]))  # y is B's column 1, not 2
    plots.plot_overlay(a, b, ("A", "B"), tmp_path)
    drawn = [line.get_ydata().tolist() for ax in figs[0].axes[0::2] for line in ax.lines]  # A, B
    assert drawn == [[2.0, 4.0], [20.0, 40.0]]


ROWS_NAMES = ["time", "com_z", "ncon", "pen_max", "qfrc_constraint_norm", "solver_niter"]


def test_huge_and_non_finite_values_are_gaps_not_a_crash(tmp_path):
    """Near ±1e308 matplotlib's tick locator fails (``arange: cannot compute length``)."""
    rows = np.array(
        [
            [0.0, 1e308, 0, 0, np.inf, 0],
            [0.002, -1e308, 1, np.nan, 1e300, 1],
            [0.004, 0.3, 1, 0.0, 2.0, 3],
        ]
    )
    png = plots.plot_series([("diverged", ROWS_NAMES, rows)], tmp_path, "d.png", "diverged")
    assert png.stat().st_size > 10_000
    assert plots.plottable(rows[:, 1]).tolist()[2] == 0.3
    assert np.isnan(plots.plottable(rows[:, 1])[:2]).all()
    out = plots.plot_overlay((ROWS_NAMES, rows), (ROWS_NAMES, rows[::-1]), ("a", "b"), tmp_path)
    assert out.name == "compare.png" and out.stat().st_size > 10_000


def test_matplotlib_warnings_go_to_the_log_not_the_terminal(tmp_path, monkeypatch, caplog):
    import warnings

    from matplotlib.figure import Figure

    real = Figure.tight_layout

    def noisy(self, *args, **kwargs):
        warnings.warn("Tight layout not applied.", UserWarning, stacklevel=2)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "tight_layout", noisy)
    rows = np.array([[0.0, 0.3, 0, 0.0, 1.0, 2], [0.002, 0.3, 1, 0.0, 1.0, 2]])
    caplog.set_level("DEBUG", logger="mjscope.diagnose.outputs")
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        plots.plot_series([("run", ROWS_NAMES, rows)], tmp_path, "r.png", "run")
        warnings.warn("the user's own warning", UserWarning, stacklevel=1)
    assert [str(w.message) for w in shown] == ["the user's own warning"]
    assert "Tight layout not applied." in caplog.text
