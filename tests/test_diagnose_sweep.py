import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjscope.diagnose.sweep import applier, parse_set
from mjscope.exceptions import ConfigError
from mjscope.models import build_spec


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
    from mjscope.diagnose.rollout import RolloutCfg
    from mjscope.diagnose.sweep import run_sweeps
    from mjscope.models import LoadOptions

    sweeps = [parse_set("geom:FR_foot.friction=1;0.5"), parse_set("geom:FL_foot.friction=0.8")]
    base = RolloutCfg(steps=20, csv=tmp_path / "run.csv")
    runs = run_sweeps("quadruped", LoadOptions(), sweeps, base, jobs=1)
    assert [r.value for r in runs] == ["1", "0.5", "0.8"]
    written = sorted(p.name for p in tmp_path.glob("run_*.csv"))
    assert written == ["run_friction0.csv", "run_friction1.csv", "run_friction2.csv"]
    assert all(len((tmp_path / n).read_text().splitlines()) == 21 for n in written)
