"""The command configurations: frozen, validated, and producing the rollout settings."""

import dataclasses

import pytest

from mjscope.diagnose import CompareCfg, DiagnoseCmdCfg
from mjscope.exceptions import ConfigError
from mjscope.models import load


def test_configs_are_frozen():
    cfg = DiagnoseCmdCfg(model="fourbar")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.steps = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        CompareCfg("a.csv", "b.csv").tol = 0.0  # type: ignore[misc]


def test_fail_on_must_be_a_known_level():
    with pytest.raises(ConfigError, match=r"--fail-on 'warn'.*error, warning, never"):
        DiagnoseCmdCfg(model="fourbar", fail_on="warn")


def test_rollout_cfg_from_steps_or_duration():
    m = load("quadruped")
    cfg = DiagnoseCmdCfg(model="quadruped", ctrl="noise", seed=4, csv="x.csv", inverse=True)
    r = cfg.rollout_cfg(m)
    assert (r.steps, r.ctrl, r.seed, r.csv, r.inverse) == (2000, "noise", 4, "x.csv", True)
    # 0.5 s / the quadruped's 0.002 s timestep = 250 steps; duration wins over steps.
    assert dataclasses.replace(cfg, steps=7, duration=0.5).rollout_cfg(m).steps == 250
    assert dataclasses.replace(cfg, steps=7).sweep_base().steps == 7
    with pytest.raises(ConfigError, match="--steps 0"):
        dataclasses.replace(cfg, steps=0).sweep_base()
