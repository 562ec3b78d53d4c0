"""Tool-load compensation: Newton–Euler load wrench, its regressor, identification, Pinocchio."""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from mjscope.control.tool_load import ToolLoad, ToolLoadCompensator, identify, regressor
from mjscope.dock.scene import load_scene
from tests.utils import assert_close

LOAD = ToolLoad(
    0.7,
    np.array([0.01, -0.02, 0.06]),
    np.array([[3e-3, 2e-4, -1e-4], [2e-4, 4e-3, 3e-4], [-1e-4, 3e-4, 1e-3]]),
    np.array([0.4, -0.2, 0.1, 0.02, -0.01, 0.03]),
)


def _samples(n: int = 50) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    return tuple(rng.normal(scale=s, size=(n, 3)) for s in (2.0, 20.0, 5.0, 9.81))


def test_regressor_times_parameters_is_the_newton_euler_wrench() -> None:
    """Y(ω, α, a, g) θ = wrench + bias; θ holds the inertia about the sensor (parallel axis)."""
    w, al, a, g = _samples()
    Y = regressor(w, al, a, g)
    assert_close(Y @ LOAD.theta(), LOAD.wrench(w, al, a, g) + LOAD.bias, atol=1e-12)


def test_least_squares_recovers_every_parameter() -> None:
    w, al, a, g = _samples(200)
    ident = identify(regressor(w, al, a, g), LOAD.wrench(w, al, a, g) + LOAD.bias)
    assert abs(ident.mass - LOAD.mass) < 1e-10
    assert_close(ident.com, LOAD.com, atol=1e-10)
    assert_close(ident.bias, LOAD.bias, atol=1e-10)
    assert_close(ident.inertia_origin, _skewed_inertia(), atol=1e-10)
    assert ident.residual_rms < 1e-10


def _skewed_inertia() -> np.ndarray:
    c = LOAD.com
    return LOAD.inertia + LOAD.mass * (c.dot(c) * np.eye(3) - np.outer(c, c))


def test_predict_uses_pinocchio_kinematics_and_matches_the_batch_formula() -> None:
    """The scalar 1 kHz path = the vectorised formula at Pinocchio's frame velocity/acceleration;
    the frame acceleration agrees with a finite difference of the frame velocity."""
    _, pm = load_scene("iiwa14_docking").build_models()
    comp = ToolLoadCompensator(pm, "ft_site", LOAD)
    rng = np.random.default_rng(1)
    q, v, a = (rng.normal(scale=s, size=pm.nv) for s in (0.5, 1.0, 10.0))
    w, al, acc, g = comp.kinematics(q, v, a)
    assert_close(comp.predict(q, v, a), LOAD.wrench(w, al, acc, g) + LOAD.bias, atol=1e-12)
    h = 1e-6  # finite difference of the LOCAL spatial velocity → classical acceleration
    d = pm.createData()

    def twist(x: float) -> tuple[np.ndarray, np.ndarray]:
        qx = pin.integrate(pm, q, v * x)
        pin.forwardKinematics(pm, d, qx, v + a * x)
        pin.updateFramePlacements(pm, d)
        oMf = d.oMf[comp.fid]
        V = pin.getFrameVelocity(pm, d, comp.fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        return oMf.rotation, V.vector

    V1, V0 = twist(h)[1], twist(-h)[1]
    R = twist(0.0)[0]
    dV = (V1 - V0) / (2 * h)  # world-aligned derivative at the moving point
    assert_close(al, R.T @ dV[3:], atol=1e-5)
    assert_close(acc, R.T @ dV[:3], atol=1e-4)
