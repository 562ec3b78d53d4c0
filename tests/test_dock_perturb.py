"""Trial conditions: drawn from (seed, trial) only; the plant moves, the controller's view stays."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mjscope.control.controllers import Controller
from mjscope.dock.config import PerturbCfg
from mjscope.dock.perturb import (
    NoisyWrench,
    TrialScene,
    draw,
    parse_perturb,
    trial_cfgs,
    true_dock_fields,
)
from mjscope.dock.run_docking import run_simulation
from mjscope.dock.scene import load_scene
from mjscope.exceptions import ConfigError
from tests.utils import assert_close

FULL = PerturbCfg(
    q0=0.02,
    dock_pos=(0.001, 0.002, 0.0),
    dock_rpy_deg=(1.0, 1.0, 2.0),
    friction=(0.2, 0.5),
    tool_mass=(0.25, 0.4),
    ft_noise=(0.2, 0.01),
)


def test_parse_perturb_overrides_only_the_keys_given() -> None:
    p = parse_perturb("dock_pos=0.001/0.002/0, friction=0.2:0.5, ft_noise=0.3", PerturbCfg(q0=0.1))
    assert p == PerturbCfg(q0=0.1, dock_pos=(0.001, 0.002, 0.0), friction=(0.2, 0.5),
                           ft_noise=(0.3, 0.0))  # fmt: skip
    assert parse_perturb("dock_rpy_deg=1.5", p).dock_rpy_deg == (1.5, 1.5, 1.5)
    assert parse_perturb("friction=off,q0=0", p).friction is None


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("mass=1", "keys q0="),
        ("dock_pos=1/2", "one value or three"),
        ("friction=0.5", "range lo:hi"),
        ("friction=0.5:0.2", "0 < lo <= hi"),
        ("q0=-1", ">= 0"),
        ("q0=abc", "not a number"),
        ("ft_noise=nan", "finite"),
    ],
)
def test_bad_perturb_text_is_a_config_error(text: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        parse_perturb(text, PerturbCfg())


def test_a_trial_depends_on_seed_and_index_only() -> None:
    a, b = draw(FULL, 7, 3, 7), draw(FULL, 7, 3, 7)
    assert a == b
    assert draw(FULL, 7, 4, 7) != a and draw(FULL, 8, 3, 7) != a
    assert max(map(abs, a.dq)) <= 0.02 and abs(a.dock_dpos[1]) <= 0.002 and a.dock_dpos[2] == 0
    assert a.friction is not None and 0.2 <= a.friction <= 0.5
    # Turning one perturbation off leaves every other number of the trial as it was.
    off = draw(dataclasses.replace(FULL, friction=None, q0=0.0), 7, 3, 7)
    assert off.friction is None and off.dq == (0.0,) * 7
    assert (off.dock_dpos, off.dock_drpy_deg, off.tool_mass) == (
        a.dock_dpos, a.dock_drpy_deg, a.tool_mass)  # fmt: skip


def test_the_plant_moves_while_the_controller_model_keeps_the_scene() -> None:
    scene = load_scene("iiwa14_docking")
    mj0 = scene.build_mjmodel()
    d = draw(FULL, 1, 0, mj0.nq)
    belief, plant = trial_cfgs(scene.cfg, scene.initial_q(mj0), d)
    assert belief.dock == scene.cfg.dock and belief.tool == scene.cfg.tool
    assert_close(belief.q0, np.asarray(scene.cfg.q0) + d.dq, 1e-15, what="start")
    mj, pin_model = TrialScene(belief, plant).build_models()
    assert_close(mj.body("dock").pos, np.add(scene.cfg.dock.pos, d.dock_dpos), 1e-12)
    assert mj.body("tool").mass[0] == pytest.approx(d.tool_mass, abs=1e-12)
    assert mj.geom("peg").friction[0] == pytest.approx(d.friction, abs=1e-12)
    total = sum(pin_model.inertias[i].mass for i in range(pin_model.njoints))
    nominal = sum(load_scene("iiwa14_docking").build_models()[1].inertias[i].mass
                  for i in range(pin_model.njoints))  # fmt: skip
    assert total == pytest.approx(nominal, abs=1e-12)  # the controller's model: nominal tool


class _Echo(Controller):
    name = "echo"
    wrench_frame = "body"

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def compute(self, q, v, reference, F_ext):  # type: ignore[no-untyped-def]
        self.seen.append(np.array(F_ext))
        return np.zeros(7)


def test_noisy_wrench_adds_seeded_noise_and_restarts_on_reset() -> None:
    inner = _Echo()
    ctrl = NoisyWrench(inner, (0.5, 0.01), (3, 2, 1))
    assert ctrl.name == "echo" and ctrl.wrench_frame == "body"
    F = np.arange(6.0)
    first = [ctrl.compute(None, None, None, F) for _ in range(2000)]  # type: ignore[arg-type]
    assert all(np.all(t == 0) for t in first)
    noise = np.array(inner.seen) - F
    assert_close(noise.std(axis=0), [0.5] * 3 + [0.01] * 3, rtol=0.06, what="noise std")
    ctrl.reset()
    ctrl.compute(None, None, None, F)  # type: ignore[arg-type]
    assert_close(inner.seen[-1], inner.seen[0], 0.0, what="same stream after reset")


def test_true_dock_fields_reproduce_the_loop_probe_on_the_nominal_dock() -> None:
    scene = load_scene("iiwa14_docking")
    d = run_simulation(scene, "cic", duration=3.2).log.arrays()
    again = true_dock_fields(d, scene.cfg.dock)
    for key in ("insertion_depth", "lateral_error", "axis_angle"):
        assert_close(again[key], d[key], 1e-12, what=key)
    assert d["insertion_depth"].max() > 0.02  # the run did go in: the comparison covers contact
