"""Scene YAML → Scene; MuJoCo and Pinocchio built from the same assembled MJCF agree."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pinocchio as pin
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjscope.control.friction import FrictionModel
from mjscope.dock.scene import load_scene, scene_names
from mjscope.exceptions import ConfigError, MjscopeError, UnknownNameError
from mjscope.models.robots import fr3_constants
from tests.utils import assert_close

BUNDLED = [
    "fr3_docking",
    "fr3_docking_observer",
    "iiwa14_docking",
    "iiwa14_docking_campaign",
    "iiwa14_docking_compliant",
    "iiwa14_docking_preload",
    "iiwa14_docking_tilted",
    "iiwa14_docking_topp",
    "iiwa14_limits",
    "iiwa14_track_circle",
    "iiwa14_track_figure8",
    "iiwa14_track_rocking",
]


def test_bundled_scene_names() -> None:
    assert scene_names() == BUNDLED


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_scene_loads_and_builds(name: str) -> None:
    sc = load_scene(name)
    assert sc.name == name
    assert sc.mode == ("docking" if "docking" in name else "tracking")
    assert (sc.cfg.dock is None) == (sc.mode == "tracking")
    m = sc.build_mjmodel()
    assert m.opt.timestep == 0.001
    assert_close(m.opt.gravity, np.zeros(3))
    for site in ("eef", "ft_site", "attachment_site"):
        m.site(site)
    assert sc.cfg.gate.time_budget is not None and sc.cfg.gate.time_budget <= sc.cfg.duration
    if sc.cfg.dock is not None:
        assert sc.cfg.gate.max_lateral == sc.cfg.dock.clearance
        assert sum(m.geom(i).name.startswith("dock_") for i in range(m.ngeom)) == 5


def _write(tmp_path: Path, data: dict) -> Path:
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def test_unknown_key_lists_valid_keys(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown key\(s\) 'robt'.*valid keys: .*robot"):
        load_scene(_write(tmp_path, {"robt": "iiwa14"}))
    with pytest.raises(ConfigError, match=r"controller\.impedance: unknown key\(s\) 'kp'"):
        load_scene(_write(tmp_path, {"controller": {"impedance": {"kp": 1}}}))
    with pytest.raises(ConfigError, match=r"gate: unknown key\(s\) 'peak'.*max_peak_force"):
        load_scene(_write(tmp_path, {"gate": {"peak": 1}}))


def test_bad_values(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"planner\.kind 'spiral' unknown; valid: quintic"):
        load_scene(_write(tmp_path, {"planner": {"kind": "spiral"}, "dock": {}}))
    with pytest.raises(ConfigError, match="robot 'ur5' unknown"):
        load_scene(_write(tmp_path, {"robot": "ur5"}))
    with pytest.raises(ConfigError, match="needs a dock"):
        load_scene(_write(tmp_path, {"planner": {"kind": "two_segment"}}))
    with pytest.raises(ConfigError, match=r"hqp\.force_source 'camera' unknown"):
        load_scene(_write(tmp_path, {"controller": {"hqp": {"force_source": "camera"}}}))
    hqp_bad = [
        ({"stiffness_min": 500.0, "stiffness_max": 400.0}, "stiffness_min 500.0 > stiffness_max"),
        ({"force_dead": 5.0, "force_sat": 5.0}, "force_dead < force_sat"),
        ({"velocity_limit": [0.0]}, r"velocity_limit must be > 0.*got \[0.0\]"),
        ({"torque_rate_limit": -1.0}, "torque_rate_limit must be > 0"),
        ({"preload_force": -2.0}, "preload_force and k_sing must be >= 0"),
        ({"t_soften": 0.0}, r"hqp\.t_soften must be > 0"),
    ]
    for hqp, message in hqp_bad:
        with pytest.raises(ConfigError, match=message):
            load_scene(_write(tmp_path, {"dock": {}, "controller": {"hqp": hqp}}))
    with pytest.raises(ConfigError, match=r"force_band must be > 0 and needs gate\.contact_force"):
        load_scene(_write(tmp_path, {"dock": {}, "gate": {"force_band": 1.0}}))
    with pytest.raises(ConfigError, match="control_period must be a multiple"):
        load_scene(_write(tmp_path, {"control_period": 0.0015, "planner": {"kind": "circle"}}))
    with pytest.raises(ConfigError, match="expected a number"):
        load_scene(_write(tmp_path, {"duration": "long", "planner": {"kind": "circle"}}))


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"duration": float("nan")}, r"s\.yaml\.duration is nan; give a finite number"),
        ({"controller": {"impedance": {"kp_pos": [float("nan"), 1, 1]}}}, r"kp_pos\[0\] is nan"),
        ({"gate": {"max_peak_force": float("inf")}}, r"gate\.max_peak_force is inf"),
        ({"duration": -1.0}, r"duration must be > 0, got -1\.0"),
        ({"tool": {"mass": -0.3}}, r"tool\.mass must be > 0, got -0\.3"),
        ({"controller": {"impedance": {"kp_pos": [-1, 1, 1]}}}, r"kp_pos must be >= 0"),
        ({"controller": {"friction_comp": {"torque_eps": 0}}}, r"torque_eps must be > 0"),
        ({"dock": {"depth": 0}, "planner": {"kind": "two_segment"}}, r"dock\.depth must be > 0"),
        ({"dock": {"clearance": -0.001}}, r"dock\.clearance must be >= 0"),
        ({"planner": {"kind": "quintic", "approach_time": 0}}, r"approach_time must be > 0"),
        ({"planner": {"kind": "circle", "hold": -1}}, r"planner\.hold must be >= 0"),
        ({"controller": {"se3_impedance": {"kp_rot": [1, -1, 1]}}}, r"se3_impedance\.kp_rot must"),
        (
            {"planner": {"kind": "circle", "orientation": {"period": 0}}},
            r"planner\.orientation needs period > 0",
        ),
    ],
)
def test_non_finite_and_out_of_range_numbers_rejected(
    tmp_path: Path, data: dict, match: str
) -> None:
    data = {"planner": {"kind": "circle"}, **data}
    with pytest.raises(ConfigError, match=match):
        load_scene(_write(tmp_path, data))


def test_unknown_scene_name_and_missing_file() -> None:
    with pytest.raises(UnknownNameError, match="unknown scene 'nope'; known: fr3_docking"):
        load_scene("nope")
    with pytest.raises(ConfigError, match="not found"):
        load_scene("missing/scene.yaml")


def test_later_controller_sections_validated(tmp_path: Path) -> None:
    sc = load_scene(
        _write(
            tmp_path,
            {
                "planner": {"kind": "circle"},
                "controller": {
                    "se3_impedance": {"kp_pos": [100, 100, 100], "log_map": True},
                    "hqp": {"force_source": "observer", "preload_force": 5},
                },
            },
        )
    )
    assert sc.cfg.controller.se3_impedance.log_map is True
    assert sc.cfg.controller.hqp.preload_force == 5.0


@pytest.fixture(scope="module", params=["iiwa14_docking", "fr3_docking"])
def models(request: pytest.FixtureRequest) -> tuple:
    sc = load_scene(request.param)
    mj, pm = sc.build_models()
    return sc, mj, pm


def _mj_terms(m: mujoco.MjModel, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:] = q, v
    mujoco.mj_forward(m, d)
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    return M, d.qfrc_bias.copy()


def test_mass_matrix_and_bias_agree(models: tuple) -> None:
    _, mj, pm = models
    pd = pm.createData()
    rng = np.random.default_rng(0)
    lo, hi = mj.jnt_range[:, 0], mj.jnt_range[:, 1]
    for _ in range(25):
        q = rng.uniform(lo, hi)
        v = rng.uniform(-2.0, 2.0, mj.nv)
        M_mj, h_mj = _mj_terms(mj, q, v)
        M = pin.crba(pm, pd, q)
        M = np.triu(M) + np.triu(M, 1).T
        assert np.linalg.norm(M - M_mj) / np.linalg.norm(M_mj) < 1e-10
        assert_close(pin.nonLinearEffects(pm, pd, q, v), h_mj, atol=1e-9, rtol=1e-9)


def test_gravity_turned_on_agrees(tmp_path: Path) -> None:
    data = yaml.safe_load(Path(load_scene("iiwa14_docking").path).read_text())
    data["gravity"] = [0.0, 0.0, -9.81]
    sc = load_scene(_write(tmp_path, data))
    mj, pm = sc.build_models()
    q = sc.initial_q(mj)
    _, h_mj = _mj_terms(mj, q, np.zeros(7))
    assert np.abs(h_mj).max() > 1.0
    assert_close(pin.computeGeneralizedGravity(pm, pm.createData(), q), h_mj, atol=1e-9)


def test_tool_inertia_included(models: tuple) -> None:
    sc, mj, pm = models
    tool = mj.body("tool")
    assert_close(tool.mass, [sc.cfg.tool.mass])
    robot_mass = sum(mj.body_mass[: mj.body("tool").id])
    pin_mass = sum(pm.inertias[i].mass for i in range(pm.njoints))
    assert_close(pin_mass, robot_mass + sc.cfg.tool.mass, atol=1e-12)
    # Without the tool the mass matrices would differ: the tool is in both models.
    assert sc.cfg.tool.mass > 0


def test_dissipation_read_from_assembled_model() -> None:
    mj = load_scene("fr3_docking").build_mjmodel()
    fm = FrictionModel.from_mjmodel(mj)
    assert_close(fm.frictionloss, fr3_constants.FRICTIONLOSS)
    assert_close(fm.damping, fr3_constants.DAMPING)
    v = np.full(7, 1.0)
    assert_close(fm.feedforward(v, np.zeros(7)), np.tanh(100.0) * fm.frictionloss + fm.damping)
    iiwa = FrictionModel.from_mjmodel(load_scene("iiwa14_docking").build_mjmodel())
    assert not iiwa.active


def test_initial_q_and_frames(models: tuple) -> None:
    sc, mj, pm = models
    q = sc.initial_q(mj)
    d = mujoco.MjData(mj)
    d.qpos[:] = q
    mujoco.mj_forward(mj, d)
    pd = pm.createData()
    pin.framesForwardKinematics(pm, pd, q)
    for site in ("eef", "ft_site"):
        oMf = pd.oMf[pm.getFrameId(site)]
        assert_close(oMf.translation, d.site(site).xpos, atol=1e-12)
        assert_close(oMf.rotation, d.site(site).xmat.reshape(3, 3), atol=1e-12)


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-10, 10) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_keys = st.sampled_from(["robot", "tool", "dock", "gate", "planner", "q0", "gravity", "duration",
                         "controller", "contact", "control_period", "bogus"])  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.dictionaries(_keys, _values, max_size=3))
def test_fuzzed_scene_files_fail_cleanly(tmp_path: Path, data: dict) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_text(yaml.safe_dump(data))
    try:
        load_scene(path)
    except MjscopeError:
        pass
