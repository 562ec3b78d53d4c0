"""Docking campaigns: the same trials for every controller, identical tables on every backend."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from rich.console import Console

import mjscope.dock.campaign as campaign
from mjscope.dock.campaign import CampaignCmdCfg, TrialItem, plan, run_campaign, run_trial
from mjscope.dock.campaign_results import COLUMNS, csv_line
from mjscope.dock.perturb import draw
from mjscope.dock.scene import load_scene
from mjscope.exceptions import ConfigError, UnknownNameError
from mjscope.runner import ExecutorCfg, ItemResult, LocalRayCluster
from mjscope.signals import EXIT_INTERRUPTED
from tests.utils import import_optional

# ±0.7 mm / ±0.7° of dock error: some trials dock, some do not (both paths are covered).
PERTURB = "dock_pos=0.0007/0.0007/0,dock_rpy_deg=0.7,friction=0.2:0.5,tool_mass=0.25:0.4,ft_noise=0.2/0.005,q0=0.02"  # noqa: E501
CONTROLLERS = ("cic", "se3_lie")
FILES = ("trials.csv", "trials.json", "summary.md", "summary.json")


def _cmd(out: Path, ex: ExecutorCfg, **kw: object) -> CampaignCmdCfg:
    base = dict(controllers=CONTROLLERS, trials=5, seed=11, quick=True, plot=False,
                perturb=PERTURB, out=out, executor=ex)  # fmt: skip
    return CampaignCmdCfg(**{**base, **kw})  # type: ignore[arg-type]


def _folder(out: Path) -> Path:
    return out / "campaign" / "iiwa14_docking"


def _rows(out: Path) -> list[dict[str, str]]:
    lines = (_folder(out) / "trials.csv").read_text().splitlines()
    return [dict(zip(COLUMNS, line.split(","), strict=True)) for line in lines[1:]]


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("jobs1")
    assert run_campaign(_cmd(out, ExecutorCfg(jobs=1, progress=False), plot=True), Console()) == 0
    return out


def test_every_controller_meets_the_same_trials(local_run: Path) -> None:
    rows = _rows(local_run)
    assert [(int(r["trial"]), r["controller"]) for r in rows] == [
        (k, c) for k in range(5) for c in CONTROLLERS]  # fmt: skip
    draws = {r["trial"]: (r["dock_dx"], r["friction"], r["tool_mass"]) for r in rows}
    for r in rows:
        assert (r["dock_dx"], r["friction"], r["tool_mass"]) == draws[r["trial"]]
    d = draw(plan(_cmd(local_run, ExecutorCfg())).campaign.perturb, 11, 3, 7)
    assert float(draws["3"][0]) == pytest.approx(d.dock_dpos[0], rel=1e-9)
    outcomes = {r["success"] for r in rows}
    assert outcomes == {"true", "false"}, "pick perturbations where some trials fail"
    for r in rows:
        assert (r["success"] == "true") == (r["failed_checks"] == "")


def test_summary_states_rate_interval_and_replay_commands(local_run: Path) -> None:
    summary = json.loads((_folder(local_run) / "summary.json").read_text())
    rows = _rows(local_run)
    for s in summary["controllers"]:
        mine = [r for r in rows if r["controller"] == s["controller"]]
        ok = sum(r["success"] == "true" for r in mine)
        assert (s["trials"], s["successes"]) == (5, ok)
        assert s["wilson95_low"] <= ok / 5 <= s["wilson95_high"]
    worst = summary["worst"][0]
    assert worst["replay"] == (
        f"mjscope dock --scene iiwa14_docking --controller {worst['controller']} --seed 11 "
        f"--trial {worst['trial']} --perturb {PERTURB} --quick")  # fmt: skip
    md = (_folder(local_run) / "summary.md").read_text()
    assert "Wilson 95 %" in md and worst["replay"] in md
    assert "wall" not in (_folder(local_run) / "trials.csv").read_text()
    timing = json.loads((_folder(local_run) / "timing.json").read_text())
    assert timing["runs"] == 10 and timing["wall_time_s"] > 0
    for ext in ("png", "pdf"):
        assert (_folder(local_run) / f"distributions.{ext}").stat().st_size > 5000


def test_trial_k_alone_gives_the_row_it_had_in_the_campaign(local_run: Path) -> None:
    p = plan(_cmd(local_run, ExecutorCfg()))
    lines = (_folder(local_run) / "trials.csv").read_text().splitlines()
    for k, c in ((3, "se3_lie"), (0, "cic")):
        row = run_trial(TrialItem(p.scene.cfg, p.campaign, k, c, p.duration))
        assert csv_line(row) == lines[1 + 2 * k + CONTROLLERS.index(c)]
    summary, page = local_run / "trial_3.json", local_run / "trial_3.html"
    cmd = _cmd(local_run, ExecutorCfg(), trial=3, json=str(summary), html=str(page))
    code = run_campaign(cmd, Console(quiet=True))
    replay = (_folder(local_run) / "trial_3.csv").read_text().splitlines()
    assert replay[1:] == lines[7:9]
    doc = json.loads(summary.read_text())  # --json / --html, as every other mode writes them
    assert (doc["kind"], doc["trial"], doc["seed"]) == ("trial", 3, 11)
    assert [r["controller"] for r in doc["rows"]] == list(CONTROLLERS)
    for r, line in zip(doc["rows"], lines[7:9], strict=True):  # the campaign's rows (NaN: null)
        want = dict(zip(COLUMNS, line.split(","), strict=True))
        assert str(r["success"]).lower() == want["success"] and r["trial"] == 3
        depth = float(want["final_insertion_depth"])
        assert r["final_insertion_depth"] == pytest.approx(depth, rel=1e-9)
    assert doc["passed"] == all(r["success"] for r in doc["rows"]) == (code == 0)
    html = page.read_text()
    assert "trial" in html and ("PASS" if code == 0 else "FAIL") in html and "se3_lie" in html


def test_two_local_workers_give_byte_identical_files(local_run: Path, tmp_path: Path) -> None:
    assert run_campaign(_cmd(tmp_path, ExecutorCfg(jobs=2, progress=False)), Console()) == 0
    for name in FILES:
        assert (_folder(tmp_path) / name).read_bytes() == (_folder(local_run) / name).read_bytes()


def test_a_ray_cluster_gives_byte_identical_files(local_run: Path, tmp_path: Path) -> None:
    import_optional("ray", "Ray (the cluster extra) is not installed: pip install '.[cluster]'")
    with LocalRayCluster(num_cpus=2) as head:
        ex = ExecutorCfg(ray=head.address, progress=False)
        assert run_campaign(_cmd(tmp_path, ex), Console()) == 0
        assert head._proc is not None and head._temp is not None
        group, temp = head._proc.pid, Path(head._temp)
    assert not temp.exists()
    with pytest.raises(ProcessLookupError):  # no process of that head is left
        os.killpg(group, 0)
    for name in FILES:
        assert (_folder(tmp_path) / name).read_bytes() == (_folder(local_run) / name).read_bytes()


def _interrupt_after(n: int, fail: int | None = None):  # type: ignore[no-untyped-def]
    real = campaign.run_items

    def fake(*args, **kw) -> Iterator[ItemResult]:  # type: ignore[no-untyped-def]
        for r in real(*args, **kw):
            if r.index == fail:
                r = ItemResult(r.index, None, "RuntimeError: worker lost\nmore", 3)
            yield r
            if r.index + 1 == n:
                raise KeyboardInterrupt

    return fake


def test_ctrl_c_keeps_the_finished_trials(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(campaign, "run_items", _interrupt_after(3))
    code = run_campaign(_cmd(tmp_path, ExecutorCfg(jobs=1, progress=False)), Console())
    assert code == EXIT_INTERRUPTED
    assert len(_rows(tmp_path)) == 3
    assert len(json.loads((_folder(tmp_path) / "trials.json").read_text())) == 3
    summary = json.loads((_folder(tmp_path) / "summary.json").read_text())
    assert summary["interrupted"] and (summary["done"], summary["planned"]) == (3, 10)
    assert not list(_folder(tmp_path).glob(".*part*"))  # no partial file left behind


def test_a_failed_trial_is_a_row_and_exit_1(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(campaign, "run_items", _interrupt_after(99, fail=1))
    code = run_campaign(_cmd(tmp_path, ExecutorCfg(jobs=1, progress=False), trials=1),
                        Console())  # fmt: skip
    assert code == 1
    bad = _rows(tmp_path)[1]
    assert (bad["status"], bad["error"]) == ("error", "RuntimeError: worker lost")


@pytest.mark.parametrize(
    ("kw", "error", "match"),
    [
        ({"trials": 0}, ConfigError, "trials must be >= 1"),
        ({"seed": -1}, ConfigError, "seed must be >= 0"),
        ({"trial": -2}, ConfigError, "--trial -2"),
        ({"controllers": ("cic", "nope")}, UnknownNameError, "unknown controller 'nope'"),
        ({"perturb": "dock_pos=x"}, ConfigError, "not a number"),
    ],
)
def test_bad_options_are_user_errors(tmp_path: Path, kw: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        plan(_cmd(tmp_path, ExecutorCfg(), **kw))


def test_the_scene_file_declares_the_campaign(tmp_path: Path) -> None:
    bundled = plan(CampaignCmdCfg(out=tmp_path)).campaign
    assert bundled.trials == 20 and bundled.perturb.dock_pos == (0.0007, 0.0007, 0.0)
    data = yaml.safe_load(Path(load_scene("iiwa14_docking").path).read_text())
    perturb = {"dock_pos": [0.002, 0.002, 0.0], "friction": [0.2, 0.4]}
    data["campaign"] = {"trials": 3, "seed": 5, "min_success_rate": 0.9, "perturb": perturb}
    scene = tmp_path / "s.yaml"
    scene.write_text(yaml.safe_dump(data))
    p = plan(CampaignCmdCfg(scene=str(scene), controllers=("task_space",), out=tmp_path))
    assert (p.campaign.trials, p.campaign.seed, p.controllers) == (3, 5, ("cic",))
    assert p.campaign.perturb.dock_pos == (0.002, 0.002, 0.0) and p.campaign.perturb.q0 == 0
    over = plan(CampaignCmdCfg(scene=str(scene), trials=2, perturb="friction=off", out=tmp_path))
    assert over.campaign.trials == 2 and over.campaign.perturb.friction is None
    assert over.campaign.perturb.dock_pos == (0.002, 0.002, 0.0)
    assert math.isclose(over.campaign.min_success_rate or 0, 0.9)
    data["campaign"] = {"perturb": {"dock_pos": [0.001, 0.0]}}
    scene.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="dock_pos"):
        plan(CampaignCmdCfg(scene=str(scene), out=tmp_path))


def test_min_success_rate_applies_and_failures_name_their_replay(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The bundled campaign scene asks for 95 %; 3 mm of dock offset lands every peg on the
    rim: exit 1, and each failed trial is listed with the command that replays it."""
    cmd = CampaignCmdCfg(scene="iiwa14_docking_campaign", controllers=("cic",), trials=2,
                         quick=True, plot=False, perturb="dock_pos=0.003/0.003/0,ft_noise=off",
                         out=tmp_path, executor=ExecutorCfg(jobs=1, progress=False))  # fmt: skip
    assert run_campaign(cmd, Console(width=250)) == 1
    out = capsys.readouterr().out
    assert "below min_success_rate 0.95" in out
    assert "cic failed trials 0, 1; replay one with: mjscope dock --scene" in out
    assert "--trial 0" in out
    summary = json.loads((tmp_path / "campaign" / "iiwa14_docking_campaign" /
                          "summary.json").read_text())  # fmt: skip
    assert summary["controllers"][0]["failed_trials"] == [0, 1]
