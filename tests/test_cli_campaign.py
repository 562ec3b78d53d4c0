"""The campaign and executor options (``mjscope.cli._campaign``) parse into the frozen configs."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from mjscope.cli._campaign import add_campaign_arguments, campaign_cfg, is_campaign
from mjscope.runner import ExecutorCfg, ExecutorError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    p.add_argument("--scene", default="iiwa14_docking")
    p.add_argument("--controller", default="cic")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default="mjscope-out")
    add_campaign_arguments(p)
    return p


def test_campaign_options_become_a_campaign_cfg() -> None:
    argv = "--trials 40 --seed 3 --quick --perturb dock_pos=0.001 --jobs 2 --out runs".split()
    args = _parser().parse_args(["--controller", "cic, se3_lie", *argv])
    assert is_campaign(args)
    cfg = campaign_cfg(args)
    assert cfg.controllers == ("cic", "se3_lie") and (cfg.trials, cfg.seed) == (40, 3)
    assert cfg.perturb == "dock_pos=0.001" and cfg.quick and cfg.out == Path("runs")
    assert cfg.executor == ExecutorCfg(jobs=2) and cfg.trial is None


def test_ray_and_trial_replay() -> None:
    args = _parser().parse_args(["--trial", "7", "--ray", "127.0.0.1:6379"])
    assert is_campaign(args)
    cfg = campaign_cfg(args)
    assert cfg.trial == 7 and cfg.executor.ray == "127.0.0.1:6379" and cfg.executor.jobs is None


def test_a_plain_run_is_not_a_campaign() -> None:
    assert not is_campaign(_parser().parse_args([]))


def test_bad_jobs_is_a_one_line_error() -> None:
    with pytest.raises(ExecutorError, match="--jobs 0"):
        campaign_cfg(_parser().parse_args(["--trials", "2", "--jobs", "0"]))


def test_mjscope_dock_trials_runs_a_campaign(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from mjscope.cli import main

    argv = ["dock", "--trials", "2", "--seed", "4", "--quick", "--jobs", "1",
            "--perturb", "dock_pos=0.0003/0.0003/0", "--out", str(tmp_path)]  # fmt: skip
    assert main(argv) == 0
    folder = tmp_path / "campaign" / "iiwa14_docking"
    assert len((folder / "trials.csv").read_text().splitlines()) == 3
    assert "Wilson 95 %" in capsys.readouterr().out
    assert main(["dock", "--trials", "2", "--jobs", "0", "--out", str(tmp_path)]) == 2
