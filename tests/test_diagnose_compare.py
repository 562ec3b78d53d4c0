"""Comparing two diagnose CSVs: first diverging step, NaN and inf semantics."""

import numpy as np

from mjscope.diagnose import RolloutCfg, run_rollout
from mjscope.diagnose.compare import compare, read_csv
from mjscope.models import load


def test_different_seeds_differ_and_compare_finds_step(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    run_rollout(load("quadruped"), RolloutCfg(steps=300, ctrl="noise", seed=1, csv=a))
    run_rollout(load("quadruped"), RolloutCfg(steps=300, ctrl="noise", seed=2, csv=b))
    res = compare(read_csv(a), read_csv(b), 1e-9)
    assert not res["passed"]
    com = next(c for c in res["columns"] if c["name"] == "com_z")
    assert com["first_diverging_step"] is not None and com["max_deviation"] > 0


def test_compare_nan_and_inf_semantics():
    inf, nan = np.inf, np.nan
    a = (["time", "x"], np.array([[0.0, inf], [1.0, nan], [2.0, nan], [3.0, 1.0]]))
    b = (["time", "x"], np.array([[0.0, inf], [1.0, nan], [2.0, 5.0], [3.0, 1.0]]))
    res = compare(a, b, 1e-9)
    x = next(c for c in res["columns"] if c["name"] == "x")
    assert x == {"name": "x", "max_deviation": inf, "first_diverging_step": 2}
    assert compare(a, a, 0.0)["passed"]  # same infinities and NaNs in the same places


def test_rank_columns_by_normalised_deviation():
    import numpy as np

    from mjscope.diagnose.compare import compare, rank_columns

    t = np.linspace(0, 1, 11)
    names = ["time", "z", "force", "flat", "pen_geom1"]
    a = np.column_stack([t, 0.3 + 0 * t, 300 * t, 0 * t, 0 * t])
    b = a.copy()
    b[:, 1] += 0.003  # a constant column: scaled by its magnitude, 0.003 / 0.3 = 0.01
    b[:, 2] += 30.0  # 10 % of the range 300
    b[:, 4] = 5  # a geom id: not a magnitude
    res = compare((names, a), (names, b), 1e-9)
    ranked = rank_columns(res, (names, a), (names, b), {"pen_geom1": "id"})
    assert [n for n, _ in ranked] == ["force", "z", "flat"]
    assert abs(ranked[0][1] - 0.1) < 1e-9 and abs(ranked[1][1] - 0.01) < 1e-9
    assert ranked[2][1] == 0.0
