from __future__ import annotations

import mujoco
import numpy as np
import pytest

from mjscope.exceptions import MjscopeError, UnknownNameError
from mjscope.models import JointIndex

XML = """<mujoco><worldbody>
  <body name="f"><freejoint name="free"/><geom size=".1"/>
    <body name="b" pos="0 0 .3"><joint name="ball" type="ball"/><geom size=".05"/>
      <body name="s" pos="0 0 .2"><joint name="slide" type="slide"/><geom size=".05"/>
        <body name="h" pos="0 0 .2"><joint name="hinge"/><geom size=".05"/></body>
      </body></body></body>
</worldbody></mujoco>"""


@pytest.fixture()
def model() -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(XML)


def test_every_joint_type_has_the_right_widths(model: mujoco.MjModel) -> None:
    idx = JointIndex(model)
    assert idx.names == ["free", "ball", "slide", "hinge"]
    widths = [(idx[n].qpos, idx[n].nq, idx[n].dof, idx[n].nv) for n in idx.names]
    assert widths == [(0, 7, 0, 6), (7, 4, 6, 3), (11, 1, 9, 1), (12, 1, 10, 1)]
    assert idx.qpos_slice("ball") == slice(7, 11)
    assert idx.qvel_slice("free") == slice(0, 6)


def test_write_qpos_by_name_moves_the_right_joint(model: mujoco.MjModel) -> None:
    idx = JointIndex(model)
    d = mujoco.MjData(model)
    idx.write_qpos(d.qpos, ["hinge", "slide"], [0.5, -0.1])
    assert d.qpos[12] == 0.5 and d.qpos[11] == -0.1
    mujoco.mj_forward(model, d)
    assert d.xpos[model.body("h").id][2] == pytest.approx(0.3 + 0.2 + 0.2 - 0.1)


def test_unknown_joint_lists_available(model: mujoco.MjModel) -> None:
    with pytest.raises(UnknownNameError, match="hinge"):
        JointIndex(model)["elbow"]


def test_scalar_addresses_reject_free_joints(model: mujoco.MjModel) -> None:
    idx = JointIndex(model)
    np.testing.assert_array_equal(idx.scalar_qpos_addresses(["slide", "hinge"]), [11, 12])
    with pytest.raises(MjscopeError, match="qpos_slice"):
        idx.scalar_qpos_addresses(["free"])


def test_unnamed_joint_cannot_shadow_a_named_one() -> None:
    m = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><body><joint name="joint1" type="slide"/><geom size=".1"/>'
        '<body pos="0 0 .3"><joint type="slide"/><geom size=".1"/></body></body>'
        "</worldbody></mujoco>"
    )
    idx = JointIndex(m)
    assert idx.names == ["joint1", "joint#1"]
    assert (idx["joint1"].qpos, idx["joint#1"].qpos) == (0, 1)
