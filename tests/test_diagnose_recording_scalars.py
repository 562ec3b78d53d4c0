"""Views of mjData's scalars: they follow the simulation, and without them nothing changes."""

import itertools

import mujoco
import numpy as np
import pytest

from mjscope.diagnose import RolloutCfg, run_rollout
from mjscope.diagnose.recording import recorder
from mjscope.diagnose.recording.scalars import scalar_views
from mjscope.models import load

NAMES = ("time", "ncon", "nefc", "nisland", "ne")


def test_views_follow_the_scalars_and_calibration_leaves_data_unchanged():
    m = load("quadruped")
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    before = [getattr(d, n) for n in NAMES]
    views = scalar_views(d, NAMES)
    assert views is not None
    assert [getattr(d, n) for n in NAMES] == before
    assert views["time"].dtype == np.float64 and views["ncon"].dtype == np.int32
    seen = set()
    for _ in range(400):  # it lands: contacts and constraint rows come and go
        mujoco.mj_step(m, d)
        for n in NAMES:
            assert views[n][0] == getattr(d, n), n
        seen.add(d.ncon)
    assert len(seen) > 1 and d.time > 0.7


def test_no_views_gives_the_same_csv_and_summary(tmp_path, monkeypatch):
    cfg = RolloutCfg(steps=2500, ctrl="noise", csv=tmp_path / "a.csv")
    a = run_rollout(load("quadruped"), cfg)
    monkeypatch.setattr(recorder, "scalar_views", lambda data, names: None)
    b = run_rollout(load("quadruped"), RolloutCfg(steps=2500, ctrl="noise", csv=tmp_path / "b.csv"))
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    for key in ("condim_counts", "worst_pairs", "contact_pairs", "steps_at_cap"):
        assert a.probes[key] == b.probes[key], key


@pytest.mark.parametrize("parts", [2, 3])
def test_more_gather_groups_keep_the_fast_loop_and_the_bytes(tmp_path, monkeypatch, parts):
    """MuJoCo's allocations far apart (several gather groups): the same CSV, still no readers.

    The first group is split in ``parts``, so the plan has more groups than this process's
    memory layout gives (one, two or three, depending on where MuJoCo's blocks land).
    """
    cfg = {"steps": 2500, "ctrl": "noise"}
    run_rollout(load("quadruped"), RolloutCfg(csv=tmp_path / "a.csv", **cfg))
    plans = []
    real = recorder.Recorder._fast_plan

    def split(self, takes, tap):  # the first group's words as two groups, as far-apart memory
        take, idx, rows = takes[0]
        cuts = [idx.size * j // parts for j in range(parts + 1)]
        pieces = [(take, idx[a:b], [r[a:b] for r in rows]) for a, b in itertools.pairwise(cuts)]
        plan = real(self, [*pieces, *takes[1:]], tap)
        plans.append(plan is not None and len(plan.more) == len(takes) + parts - 2)
        return plan

    monkeypatch.setattr(recorder.Recorder, "_fast_plan", split)
    run_rollout(load("quadruped"), RolloutCfg(csv=tmp_path / "b.csv", **cfg))
    assert plans == [True]
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
