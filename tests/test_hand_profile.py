from pathlib import Path

import pytest
import yaml

import mjscope.hand
from mjscope.exceptions import ConfigError
from mjscope.hand.profile import bundled_profiles, load_profile

PROFILES = Path(mjscope.hand.__file__).parent / "profiles"


def test_bundled_profiles_load():
    assert {"g20_left", "l20v9_left"} <= set(bundled_profiles())
    p = load_profile()
    assert len(p.slots) == 16 and p.reserved == (11, 12, 13, 14)
    assert {s.index: s.divisor for s in p.slots if s.divisor != 1.0} == {
        15: 1.02,
        16: 0.89,
        17: 0.89,
        18: 0.89,
        19: 0.89,
    }
    assert (
        p.gains_for("thumb_mcp").stiffness == 10.0 and p.gains_for("thumb_cmc_yaw").damping == 3.0
    )
    g = p.gains_for("index_pip")
    assert (g.stiffness, g.damping, g.max_effort) == (15.0, 2.5, 8.0)
    assert load_profile("l20v9_left").mimic[0].ratio == pytest.approx(1.1619)


def _write(tmp_path: Path, change) -> Path:
    data = yaml.safe_load((PROFILES / "g20_left.yaml").read_text())
    change(data)
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: d["slots"].pop(), "neither defined nor reserved"),
        (lambda d: d["slots"][0].update(index=11), "repeated or reserved"),
        (lambda d: d["slots"][0].update(min=1.0, max=0.0), "min < max"),
        (lambda d: d["slots"][0].update(direction=0), "must be -1 or 1"),
        (lambda d: d["slots"][11].update(divisor=1.5), "must equal the mimic ratio"),
        (lambda d: d["mimic"][0].update(driver="nope"), "which no slot drives"),
        (lambda d: d.update(open_command=[1, 2]), "open_command must be 20 values"),
        (lambda d: d.update(fist_command=[300] * 20), "fist_command must be 20 values"),
        (
            lambda d: d["gains"]["joints"].update(
                bogus={"stiffness": 1, "damping": 1, "max_effort": 1}
            ),
            "gains for 'bogus'",
        ),
        (lambda d: d.update(colour="red"), "unknown key"),
        (
            lambda d: d["gains"]["default"].update(stiffness=float("nan")),
            "must all be finite and > 0",
        ),
    ],
)
def test_invalid_profiles_are_clear_errors(tmp_path, change, match):
    with pytest.raises(ConfigError, match=match):
        load_profile(_write(tmp_path, change))


def test_unknown_profile_name():
    with pytest.raises(ConfigError, match="bundled: g20_left"):
        load_profile("nope")
