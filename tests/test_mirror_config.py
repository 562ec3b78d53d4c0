"""Rig and render configuration: packaged YAML, unknown keys, inconsistent sides."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mjscope.config import package_data_path
from mjscope.exceptions import ConfigError
from mjscope.mirror.config import load_render_cfg, load_rig_cfg

REPO_RIG = package_data_path("config", "dual_arm_rm75.yaml")


def test_packaged_configs_match_the_seed() -> None:
    rig = load_rig_cfg()
    assert set(rig.sides) == {"left", "right"}
    for side, s in rig.sides.items():
        assert s.state_topic == f"/xr_rm/{side}_rm75/joint_states"
        assert s.target_topic == f"/xr_rm/{side}_rm75/joint_target"
        assert s.control_rate_hz == 90.0
        assert len(s.initial_joint_pose_deg) == 7
        assert s.model_joint_names() == tuple(f"{side}_joint{i}" for i in range(1, 8))
    assert load_render_cfg().render_rate_hz == 60.0
    from mjscope.config import package_data_path, read_yaml

    assert read_yaml(package_data_path("config", "dual_arm_mujoco.yaml")) == {
        "render_rate_hz": 60.0
    }


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "rig.yaml"
    p.write_text(text)
    return p


SIDE = """
sides:
  left:
    joint_names: [a, b]
    state_topic: /x/joint_states
    {extra}
"""


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        ("colour: red", r"unknown key\(s\) 'colour'; valid keys: command_topic"),
        ("initial_joint_pose_deg: [1, 2, 3]", "3 angles for 2 joints"),
        ("control_rate_hz: 0", "control_rate_hz = 0.0 must be > 0"),
        ("joint_map: {c: d}", r"renames \['c'\]"),
        ("control_rate_hz: fast", "expected a number"),
    ],
)
def test_bad_rig_configs_are_one_line_errors(tmp_path: Path, extra: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        load_rig_cfg(_write(tmp_path, SIDE.format(extra=extra)))


def test_duplicate_joint_names_and_topics_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unique"):
        load_rig_cfg(_write(tmp_path, SIDE.replace("[a, b]", "[a, a]").format(extra="")))
    twice = (
        SIDE.format(extra="") + "  right:\n    joint_names: [c]\n    state_topic: /x/joint_states\n"
    )
    with pytest.raises(ConfigError, match="also side 'left'"):
        load_rig_cfg(_write(tmp_path, twice))


def test_render_config_rejects_unknown_keys_and_bad_rates(tmp_path: Path) -> None:
    p = tmp_path / "m.yaml"
    p.write_text("render_rate_hz: 60\nfps: 30\n")
    with pytest.raises(ConfigError, match="unknown key"):
        load_render_cfg(p)
    p.write_text("render_rate_hz: -5\n")
    with pytest.raises(ConfigError, match="positive"):
        load_render_cfg(p)
    p.write_text("publisher_check_interval_s: .nan\n")
    with pytest.raises(ConfigError, match="publisher_check_interval_s = nan must be a positive"):
        load_render_cfg(p)
    with pytest.raises(ConfigError, match="not found"):
        load_render_cfg(tmp_path / "nope.yaml")


def test_the_seeds_own_files_load_as_they_are(tmp_path: Path) -> None:
    # seed 001: dual_arm_mujoco.yaml in ROS-parameter form, verbatim.
    render = tmp_path / "dual_arm_mujoco.yaml"
    render.write_text("dual_arm_simulator:\n  ros__parameters:\n    render_rate_hz: 60.0\n")
    assert load_render_cfg(render).render_rate_hz == 60.0
    render.write_text("dual_arm_simulator:\n  ros__parameters:\n    render_rate_hz: 30.0\n")
    assert load_render_cfg(render).render_rate_hz == 30.0  # read, not defaulted
    # The rig file with the seed's initial_joint_pose key [deg], in ROS-parameter form too.
    text = REPO_RIG.read_text().replace("initial_joint_pose_deg", "initial_joint_pose")
    rig = tmp_path / "dual_arm_rm75.yaml"
    rig.write_text(text)
    seed = load_rig_cfg(rig)
    assert seed == load_rig_cfg()
    assert seed.sides["left"].initial_pose_rad()[1] == pytest.approx(math.radians(-30.0))
    nested = "teleop:\n  ros__parameters:\n" + "".join(f"    {ln}\n" for ln in text.splitlines())
    rig.write_text(nested)
    assert load_rig_cfg(rig) == seed


def test_seed_keys_that_disagree_or_several_nodes_are_errors(tmp_path: Path) -> None:
    both = REPO_RIG.read_text().replace(
        "initial_joint_pose_deg: [0.0, -30.0",
        "initial_joint_pose: [1, 2, 3, 4, 5, 6, 7]\n    initial_joint_pose_deg: [0.0, -30.0",
    )
    p = tmp_path / "rig.yaml"
    p.write_text(both)
    with pytest.raises(ConfigError, match=r"both initial_joint_pose and initial_joint_pose_deg"):
        load_rig_cfg(p)
    p.write_text("a:\n  ros__parameters: {render_rate_hz: 1}\nb:\n  ros__parameters: {}\n")
    with pytest.raises(ConfigError, match=r"several nodes \(a, b\); give one node"):
        load_render_cfg(p)
