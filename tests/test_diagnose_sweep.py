import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjscope.diagnose.rollout import RolloutCfg
from mjscope.diagnose.sweep import SweepRun, applier, parse_set, run_sweeps, summary_row
from mjscope.exceptions import ConfigError, SimulationError
from mjscope.models import LoadOptions, build_spec
from mjscope.runner import ExecutorCfg, ExecutorError

# Two sweeps, five runs: a timestep sweep (each run its own step count) and a contact sweep.
SWEEPS = ("option.timestep=0.002,0.004,0.008", "geom:*_foot.solref=0.004 1;0.02 1")
# timings: the only fields allowed to differ
WALL = ("us_per_step", "wall_us_per_step", "wall_per_step_s", "cpu_per_step_s")


def test_parse_option_and_geom_sweeps():
    s = parse_set("option.timestep=0.002,0.005,0.01")
    assert (s.target, s.attr, s.values) == ("option", "timestep", ["0.002", "0.005", "0.01"])
    g = parse_set("geom:*_foot.solref=0.001 1;0.02 1;0.1 1")
    assert (g.target, g.attr, g.values) == ("geom:*_foot", "solref", ["0.001 1", "0.02 1", "0.1 1"])


def test_applier_sets_values_on_matching_geoms_only():
    spec = build_spec("quadruped")
    applier(parse_set("geom:FR_foot.condim=6"), "6")(spec)
    applier(parse_set("option.integrator=euler"), "euler")(spec)
    condims = {g.name: g.condim for g in spec.geoms if g.name.endswith("_foot")}
    assert condims == {"FR_foot": 6, "FL_foot": 3, "RR_foot": 3, "RL_foot": 3}
    assert spec.option.integrator == 0  # mjINT_EULER


@pytest.mark.parametrize(
    "text",
    [
        "timestep=1",
        "option.nope=1",
        "option.__class__=1",
        "geom:.solref=1",
        "body:x.nope=1",
        "joint:x.damping=1",
        "option.timestep=",
    ],
)
def test_bad_sweeps_are_config_errors(text):
    with pytest.raises(ConfigError):
        parse_set(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_parse_set_fuzz_only_config_errors(text):
    try:
        sw = parse_set(text)
    except ConfigError:
        return
    spec = build_spec("fourbar")
    for v in sw.values:
        try:
            applier(sw, v)(spec)
        except ConfigError:
            pass


def test_two_sweeps_of_one_attribute_write_distinct_csvs(tmp_path):
    sweeps = [parse_set("geom:FR_foot.friction=1;0.5"), parse_set("geom:FL_foot.friction=0.8")]
    base = RolloutCfg(steps=20, csv=tmp_path / "run.csv")
    runs = run_sweeps("quadruped", LoadOptions(), sweeps, base, executor=ExecutorCfg(jobs=1))
    assert [r.value for r in runs] == ["1", "0.5", "0.8"]
    written = sorted(p.name for p in tmp_path.glob("run_*.csv"))
    assert written == ["run_friction0.csv", "run_friction1.csv", "run_friction2.csv"]
    assert all(len((tmp_path / n).read_text().splitlines()) == 21 for n in written)


def _sweep(folder: Path, executor: ExecutorCfg) -> tuple[list[Any], dict[str, bytes]]:
    """The sweep's table rows and reports without wall time, and the per-run CSV bytes."""
    folder.mkdir()
    base = RolloutCfg(steps=150, ctrl="noise", seed=3, csv=folder / "run.csv")
    runs = run_sweeps("quadruped", LoadOptions(), [parse_set(t) for t in SWEEPS], base, None,
                      replace(executor, progress=False))  # fmt: skip
    return [_comparable(r, folder) for r in runs], {
        p.name: p.read_bytes() for p in sorted(folder.glob("*.csv"))
    }


def _comparable(run: SweepRun, folder: Path) -> Any:
    row = {k: v for k, v in summary_row(run).items() if k not in WALL}
    text = json.dumps(run.report, sort_keys=True, default=str).replace(str(folder), "<dir>")
    report = json.loads(text)
    del report["rollout"]["wall_per_step_s"], report["rollout"]["cpu_per_step_s"]
    return row, report, run.findings, run.header, run.preview.tobytes()


def test_a_sweep_is_identical_on_one_and_two_local_workers(tmp_path):
    one, csv_one = _sweep(tmp_path / "jobs1", ExecutorCfg(jobs=1))
    two, csv_two = _sweep(tmp_path / "jobs2", ExecutorCfg(jobs=2))
    assert len(one) == 5 and one == two
    names = [f"run_timestep{k}.csv" for k in range(3)] + ["run_solref3.csv", "run_solref4.csv"]
    assert sorted(csv_one) == sorted(names)
    assert csv_one == csv_two
    # the check has teeth: every value changed the rollout, so a mix-up of runs would show
    assert len({b for b in csv_one.values()}) == 5
    assert len({r[0]["final_com_z_m"] for r in one}) == 5


def test_a_sweep_on_a_real_ray_head_matches_the_local_pool_byte_for_byte(tmp_path, ray_head):
    local, csv_local = _sweep(tmp_path / "pool", ExecutorCfg(jobs=2))
    remote, csv_remote = _sweep(tmp_path / "ray", ExecutorCfg(ray=ray_head.address))
    assert remote == local
    assert csv_remote == csv_local and len(csv_local) == 5
    assert not list(Path.cwd().glob("run_*.csv"))  # written where asked, not in a worker's cwd


def test_ray_without_the_cluster_extra_is_one_line_naming_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    base = RolloutCfg(steps=10)
    for where in ("auto", "local", "127.0.0.1:6379"):
        with pytest.raises(ExecutorError, match=r"--ray needs Ray.*mjscope\[cluster\]"):
            run_sweeps("fourbar", LoadOptions(), [parse_set("option.timestep=0.001")], base,
                       executor=ExecutorCfg(ray=where))  # fmt: skip


def test_a_failed_run_is_one_error_naming_its_value(monkeypatch):
    from mjscope.diagnose import sweep

    real = sweep._run_one

    def flaky(model_ref, options, sw, value, *rest):
        if value == "0.004":
            raise FloatingPointError("boom")
        return real(model_ref, options, sw, value, *rest)

    monkeypatch.setattr(sweep, "_run_one", flaky)
    with pytest.raises(SimulationError, match=r"timestep=0\.004 failed: FloatingPointError: boom"):
        ex = ExecutorCfg(jobs=1, retries=0, progress=False)
        sweeps = [parse_set("option.timestep=0.002,0.004")]
        run_sweeps("fourbar", LoadOptions(), sweeps, RolloutCfg(steps=10), executor=ex)
