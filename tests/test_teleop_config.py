"""The teleop keys of the rig YAML: packaged defaults, and bad values as one-line errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from mjscope.config import package_data_path
from mjscope.exceptions import ConfigError
from mjscope.rig import load_rig_cfg, parse_address

RIG_YAML = package_data_path("config", "dual_arm_rm75.yaml")


def test_the_packaged_sides_carry_every_teleop_key() -> None:
    raw = yaml.safe_load(RIG_YAML.read_text())
    rig = load_rig_cfg()
    assert rig.xr_port == raw["xr_port"] == 9000
    for side, s in rig.sides.items():
        keys = set(raw["sides"][side])
        assert {
            "workspace_min",
            "cyl_radius_limit",
            "low_cyl_radius_limit",
            "joint_max_acc",
        } <= keys
        assert s.move_to_initial_pose_on_connect is False  # connecting never moves an arm
        assert s.control_rate_hz == 90.0 and s.scale_factor > 0
        assert s.joint_speed_limits().shape == s.joint_acc_limits().shape == (7,)
    assert parse_address(rig.sides["left"].realman_address) == ("192.168.1.18", 8080)


def _with(tmp_path: Path, side: str, **changes: object) -> Path:
    data = yaml.safe_load(RIG_YAML.read_text())
    data["sides"][side].update(changes)
    p = tmp_path / "rig.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"workspace_min": [1.0, 0.0, 0.0]}, r"workspace_min \[1\.0, 0\.0, 0\.0\] must be below"),
        ({"max_linear_speed": 0}, r"left\.max_linear_speed = 0\.0 must be a positive"),
        ({"cyl_radius_limit": -0.1}, r"cyl_radius_limit = -0\.1 must be ≥ 0"),
        ({"joint_max_speed": [1.0, 1.0]}, "2 values for 7 joints"),
        ({"joint_max_acc": [1, 1, 1, 1, 1, 1, -1]}, "every limit must be > 0"),
        ({"grip_threshold": 1.0}, "grip_threshold = 1.0 must lie between 0 and 1"),
        ({"realman_address": "192.168.1.18"}, "must be HOST:PORT"),
        ({"xr_timeout_s": "soon"}, "expected a number"),
    ],
)
def test_bad_teleop_values_are_one_line_errors(tmp_path: Path, changes: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        load_rig_cfg(_with(tmp_path, "left", **changes))


def test_empty_joint_limits_take_the_code_defaults(tmp_path: Path) -> None:
    rig = load_rig_cfg(_with(tmp_path, "right", joint_max_speed=[], joint_max_acc=[]))
    s = rig.sides["right"]
    assert np.array_equal(s.joint_speed_limits(), np.full(7, 1.5))
    assert np.array_equal(s.joint_acc_limits(), np.full(7, 8.0))
