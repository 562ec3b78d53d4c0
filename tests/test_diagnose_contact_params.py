"""Contact parameters in physical units, checked by drop tests (measured rest depth, bounce)."""

import mujoco
import numpy as np
import pytest

from mjscope.diagnose.contact_params import pair_params, parse_spring, solref_for
from mjscope.diagnose.targets import applier, parse_set
from mjscope.exceptions import ConfigError

BALL = """<mujoco><option timestep="0.001"/><worldbody>
<geom name="floor" type="plane" size="1 1 .1"/>
<body pos="0 0 {z}"><freejoint/><geom name="ball" size=".05" mass="{m}"/></body>
</worldbody></mujoco>"""


def _drop(setting: str, m: float = 1.0, z: float = 0.1, steps: int = 3000):
    spec = mujoco.MjSpec.from_string(BALL.format(m=m, z=z))
    sweep = parse_set(setting)
    applier(sweep, sweep.values[0])(spec)
    model = spec.compile()
    data = mujoco.MjData(model)
    heights = np.empty(steps)
    for i in range(steps):
        mujoco.mj_step(model, data)
        heights[i] = data.qpos[2]
    return model, data, heights


@pytest.mark.parametrize(("stiffness", "m"), [(5000.0, 1.0), (2e4, 3.0)])
def test_set_stiffness_gives_the_measured_rest_depth(stiffness, m):
    model, data, _ = _drop(f"geom:ball.stiffness={stiffness:g}", m=m)
    depth = 0.05 - float(data.qpos[2])  # [m] below the resting radius
    expected = m * 9.81 / stiffness  # a spring K carrying m·g
    assert depth == pytest.approx(expected, rel=0.03), (depth, expected)
    (p,) = pair_params(model, data)  # and the report reads it back in the same units
    assert p["stiffness_n_per_m"] == pytest.approx(stiffness, rel=0.03)
    assert p["effective_mass_kg"] == pytest.approx(m, rel=1e-6)
    assert p["predicted_penetration_m"] == pytest.approx(depth, rel=0.03)
    assert p["load_n"] == pytest.approx(m * 9.81, rel=0.01)


def test_damping_decides_the_bounce():
    # dropped 5 cm onto K = 5000 N/m: critical damping (default) lands without a bounce, a
    # damping of 20 N·s/m leaves it ringing (it lifts off the floor again)
    _, _, settle = _drop("geom:ball.stiffness=5000", z=0.1)
    _, _, ring = _drop("geom:ball.stiffness=5000,damping=20", z=0.1)
    first = int(np.argmax(settle < 0.05))  # first touch
    assert settle[first:].max() < 0.05 + 1e-4  # never leaves the floor again
    hit = int(np.argmax(ring < 0.05))
    assert ring[hit + 50 :].max() > 0.05 + 1e-3  # bounces back up by over 1 mm


def test_solref_for_inverts_the_spring_and_parse_errors():
    tau, ratio = solref_for(5000.0, None, 1.0, 0.95)
    assert ratio == 1.0 and tau == pytest.approx(1 / np.sqrt(0.95 * 5000 * 0.05 / 0.95))
    assert parse_spring("2e4,damping=50") == (2e4, 50.0)
    for bad in ("x", "-5", "5,dampng=2", "5,damping=-1"):
        with pytest.raises(ConfigError, match="stiffness"):
            parse_spring(bad)


def test_cli_contact_params_in_the_report_and_json(tmp_path, capsys):
    import json

    from mjscope.cli import main

    model, js = tmp_path / "ball.xml", tmp_path / "r.json"
    model.write_text(BALL.format(m=2.0, z=0.06))
    main(["diagnose", str(model), "--steps", "1500", "--contact-params", "--json", str(js)])
    assert "contact parameters at the end of the rollout" in capsys.readouterr().out
    (p,) = json.loads(js.read_text())["rollout"]["contact_params"]
    assert (p["geom1"], p["geom2"]) == ("floor", "ball") and p["solref"] == [0.02, 1.0]
    assert p["predicted_penetration_m"] == pytest.approx(p["penetration_m"], rel=0.05)
    assert p["timeconst_over_timestep"] == pytest.approx(20.0)


def test_stiffness_on_a_static_geom_is_a_config_error():
    spec = mujoco.MjSpec.from_string(BALL.format(m=1.0, z=0.1))
    sweep = parse_set("geom:floor.stiffness=1e4")
    with pytest.raises(ConfigError, match="'floor' has no mass of its own"):
        applier(sweep, sweep.values[0])(spec)


def test_set_stiffness_on_an_articulated_robots_feet_reads_back_the_same():
    # the quadruped's feet are links of a leg on a pyramidal cone (μ = 0.8): MuJoCo's row mass
    # is (condim − 1)·impratio/(μ²(1 + μ²)·tran), not the link's 1/tran
    from mjscope.diagnose.rollout import RolloutCfg, run_rollout
    from mjscope.models import build_spec

    spec = build_spec("quadruped")
    sweep = parse_set("geom:*_foot.stiffness=3e5")
    applier(sweep, sweep.values[0])(spec)
    model = spec.compile()
    res = run_rollout(model, RolloutCfg(steps=1500))
    feet = [p for p in pair_params(model, res.final_data) if p["geom2"].endswith("_foot")]
    assert len(feet) == 4
    for p in feet:
        assert p["stiffness_n_per_m"] == pytest.approx(3e5, rel=0.02)
        assert p["penetration_m"] == pytest.approx(p["predicted_penetration_m"], rel=0.05)
