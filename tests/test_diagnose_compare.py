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
