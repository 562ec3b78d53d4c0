"""URDF export of compiled MuJoCo models: FK identical in Placo, Pinocchio and MuJoCo."""

from __future__ import annotations

import mujoco
import numpy as np
import pinocchio as pin
import placo
import pytest
from scipy.spatial.transform import Rotation

from mjscope.exceptions import ModelLoadError
from mjscope.models import load
from mjscope.models.urdf_export import bundled_urdf_text, export_urdf, quat_to_rpy
from mjscope.teleop.urdf import bundled_urdf_path
from tests.utils import assert_close


def test_the_shipped_dual_rm75_urdf_is_the_current_export() -> None:
    # Regenerate: python -m mjscope.models.urdf_export dual_rm75 > src/mjscope/data/urdf/...
    assert bundled_urdf_path().read_text() == bundled_urdf_text("dual_rm75")


def test_rpy_matches_scipy_including_gimbal_lock() -> None:
    for r in [*Rotation.random(30, random_state=0), Rotation.from_euler("y", 90, degrees=True)]:
        x, y, z, w = r.as_quat()
        rpy = quat_to_rpy([w, x, y, z])
        back = Rotation.from_euler("xyz", rpy)  # extrinsic x, y, z = URDF Rz·Ry·Rx
        assert (back.inv() * r).magnitude() < 1e-9


def _mujoco_sites(model: mujoco.MjModel, q: np.ndarray) -> dict[str, np.ndarray]:
    data = mujoco.MjData(model)
    data.qpos[:] = q
    mujoco.mj_forward(model, data)
    out = {}
    for s in range(model.nsite):
        T = np.eye(4)
        T[:3, :3] = data.site_xmat[s].reshape(3, 3)
        T[:3, 3] = data.site_xpos[s]
        out[model.site(s).name] = T
    return out


@pytest.mark.parametrize("name", ["dual_rm75", "rm75"])
def test_placo_and_pinocchio_fk_match_mujoco_at_random_configurations(name: str) -> None:
    model = load(name)
    text = export_urdf(model)
    robot = placo.RobotWrapper("", placo.Flags.ignore_collisions, text)
    pmodel = pin.buildModelFromXML(text)
    pdata = pmodel.createData()
    joints = [model.joint(j).name for j in range(model.njnt)]
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(25):
        q = rng.uniform(model.jnt_range[:, 0], model.jnt_range[:, 1])
        for n, v in zip(joints, q, strict=True):
            robot.set_joint(n, float(v))
        robot.update_kinematics()
        qp = np.zeros(pmodel.nq)
        for n, v in zip(joints, q, strict=True):
            qp[pmodel.joints[pmodel.getJointId(n)].idx_q] = v
        pin.framesForwardKinematics(pmodel, pdata, qp)
        for site, T in _mujoco_sites(model, q).items():
            T_placo = robot.get_T_world_frame(site)
            T_pin = pdata.oMf[pmodel.getFrameId(site)].homogeneous
            assert_close(T_placo, T, 1e-9, what=f"{site} placo")
            assert_close(T_pin, T, 1e-9, what=f"{site} pinocchio")
            worst = max(worst, float(np.abs(T_placo[:3, 3] - T[:3, 3]).max()))
    assert worst < 1e-6


def test_velocity_limits_and_joint_limits_are_exported() -> None:
    text = bundled_urdf_text("dual_rm75")
    robot = placo.RobotWrapper("", placo.Flags.ignore_collisions, text)
    assert_close(robot.get_joint_limits("left_joint2"), [-2.268, 2.268], 1e-12)
    r = pin.buildModelFromXML(text)
    assert_close(r.velocityLimit[r.joints[r.getJointId("right_joint3")].idx_v], 3.92, 1e-12)


def test_unsupported_joints_are_refused() -> None:
    spec = mujoco.MjSpec()
    b = spec.worldbody.add_body()
    b.add_freejoint()
    b.add_geom(size=[0.1, 0, 0])
    with pytest.raises(ModelLoadError, match="one hinge or slide joint"):
        export_urdf(spec.compile())
