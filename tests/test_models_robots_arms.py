"""The torque-driven iiwa14 and FR3 builders against their constants modules and the facts."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from mjscope.models import build_spec, names
from mjscope.models.robots import fr3_constants, iiwa14_constants
from tests.utils import assert_close

ROBOTS = {"iiwa14": iiwa14_constants, "fr3": fr3_constants}


@pytest.fixture(scope="module", params=sorted(ROBOTS))
def robot(request: pytest.FixtureRequest) -> tuple[str, object, mujoco.MjModel]:
    name = request.param
    return name, ROBOTS[name], build_spec(name).compile()


def test_registered() -> None:
    assert {"iiwa14", "fr3"} <= set(names())


def test_names_and_sizes_match_constants(robot: tuple) -> None:
    _, C, m = robot
    assert (m.nq, m.nv, m.nu) == (C.NQ, C.NV, C.NU)
    assert tuple(m.joint(i).name for i in range(m.njnt)) == C.JOINT_NAMES
    assert tuple(m.actuator(i).name for i in range(m.nu)) == C.ACTUATOR_NAMES
    assert tuple(m.body(i).name for i in range(1, m.nbody)) == C.BODY_NAMES


def test_motor_actuators_with_torque_limits(robot: tuple) -> None:
    _, C, m = robot
    assert np.all(m.actuator_gaintype == mujoco.mjtGain.mjGAIN_FIXED)
    assert np.all(m.actuator_biastype == mujoco.mjtBias.mjBIAS_NONE)
    assert_close(m.actuator_gainprm[:, 0], np.ones(7))
    assert_close(m.actuator_ctrlrange[:, 1], C.TORQUE_LIMITS)
    assert_close(m.actuator_ctrlrange[:, 0], -np.asarray(C.TORQUE_LIMITS))
    assert np.all(m.actuator_ctrllimited)


def test_options_and_limits_in_radians(robot: tuple) -> None:
    name, C, m = robot
    assert m.opt.timestep == 0.001
    assert_close(m.opt.gravity, np.zeros(3))
    if name == "iiwa14":
        assert_close(m.jnt_range[:, 1], [row[4] for row in C.LINKS])
    else:
        assert_close(m.jnt_range, [row[4] for row in C.LINKS])
    assert_close(m.key("home").qpos, C.HOME)


def test_inertials_match_facts(robot: tuple) -> None:
    _, C, m = robot
    for row in C.LINKS:
        b = m.body(row[0])
        assert_close(b.mass, [row[5]], atol=1e-9, what=f"{row[0]} mass")
        assert_close(b.ipos, row[6], atol=1e-9, what=f"{row[0]} ipos")
        # MuJoCo may reorder principal axes; the sorted moments must agree.
        assert_close(np.sort(b.inertia), np.sort(row[8]), atol=1e-9, what=f"{row[0]} inertia")


def test_joint_dissipation() -> None:
    iiwa = build_spec("iiwa14").compile()
    assert not np.any(iiwa.dof_frictionloss) and not np.any(iiwa.dof_damping)
    assert not np.any(iiwa.dof_armature)
    fr3 = build_spec("fr3").compile()
    assert_close(fr3.dof_frictionloss, fr3_constants.FRICTIONLOSS)
    assert_close(np.ravel(fr3.dof_damping), fr3_constants.DAMPING)
    assert_close(fr3.dof_armature, fr3_constants.ARMATURE)


@pytest.mark.parametrize(
    ("name", "expected"),
    [("iiwa14", (0.66892166, 0.0, 0.28504542)), ("fr3", (0.5544995, 0.0, 0.6245024))],
)
def test_home_attachment_site(name: str, expected: tuple) -> None:
    m = build_spec(name).compile()
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    assert_close(d.site("attachment_site").xpos, expected, atol=1e-6)
