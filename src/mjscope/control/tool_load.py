"""Tool-load compensation of a wrist F/T reading (textbook Newton–Euler).

A wrist sensor measures the wrench that holds everything beyond it (tool, peg) plus any contact
wrench. For a rigid load of mass ``m``, centre of mass ``c`` and inertia ``I_c`` about ``c``
(sensor axes), with the sensor frame's angular velocity ``ω``, angular acceleration ``α`` and
linear acceleration ``a_s`` (sensor axes, classical), gravity ``g`` in sensor axes:

    a_c = a_s + α × c + ω × (ω × c)
    f_load = m (a_c − g),   τ_load = I_c α + ω × (I_c ω) + c × f_load      (about the sensor)

The reading is ``s = load − contact + bias`` (the flange holds the load against the contact);
the compensated reading ``s − load − bias`` is what the contact alone produces.
:class:`ToolLoadCompensator` takes ``ω, α, a_s`` from Pinocchio
(``forwardKinematics(q, v, a)``, ``getFrameVelocity``, ``getFrameClassicalAcceleration``, LOCAL).

Identification (:func:`regressor`, :func:`identify`): the reading is linear in
``θ = (m, m c, I_O, bias)`` — ``I_O`` the inertia about the sensor origin (6 entries
``xx, xy, xz, yy, yz, zz``) and the 6 bias values: 16 parameters, one least-squares solve over
a free-space excitation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pinocchio as pin

from mjscope.control.wrench import cross3

LOCAL = pin.ReferenceFrame.LOCAL
PARAMS = ("mass", "mcx", "mcy", "mcz", "Ixx", "Ixy", "Ixz", "Iyy", "Iyz", "Izz",
          "bias_fx", "bias_fy", "bias_fz", "bias_tx", "bias_ty", "bias_tz")  # fmt: skip


def skew(w: np.ndarray) -> np.ndarray:
    """``[w]×`` of a batch of 3-vectors ``(..., 3)``; (..., 3, 3)."""
    w = np.asarray(w, float)
    z = np.zeros(w.shape[:-1])
    x, y, t = w[..., 0], w[..., 1], w[..., 2]
    return np.stack(
        [np.stack([z, -t, y], -1), np.stack([t, z, -x], -1), np.stack([-y, x, z], -1)], -2
    )


@dataclass(frozen=True)
class ToolLoad:
    """A rigid load beyond the sensor, in sensor axes.

    Attributes:
        mass: Mass [kg].
        com: Centre of mass in sensor axes [m]; (3,).
        inertia: Inertia about the centre of mass, sensor axes [kg·m²]; (3, 3).
        bias: Sensor offset (force [N], torque [N·m]); (6,).
    """

    mass: float
    com: np.ndarray
    inertia: np.ndarray
    bias: np.ndarray

    @classmethod
    def box(
        cls,
        mass: float,
        com: npt.ArrayLike,
        principal: npt.ArrayLike,
        bias: npt.ArrayLike | None = None,
    ) -> ToolLoad:
        """A load with principal inertia ``principal`` [kg·m²] (3,) along the sensor axes."""
        b = np.zeros(6) if bias is None else np.asarray(bias, float)
        return cls(float(mass), np.asarray(com, float), np.diag(np.asarray(principal, float)), b)

    def wrench(
        self, omega: npt.ArrayLike, alpha: npt.ArrayLike, acc: npt.ArrayLike, gravity: npt.ArrayLike
    ) -> np.ndarray:
        """What the flange exerts on the load (force, torque about the sensor), sensor axes.

        Args:
            omega: Angular velocity [rad/s]; (..., 3).
            alpha: Angular acceleration [rad/s²]; (..., 3).
            acc: Classical linear acceleration of the sensor origin [m/s²]; (..., 3).
            gravity: Gravity in sensor axes [m/s²]; (..., 3).

        Returns:
            (..., 6): force [N], torque [N·m]; without the bias.
        """
        w, al = np.asarray(omega, float), np.asarray(alpha, float)
        c = self.com
        a_c = np.asarray(acc, float) + np.cross(al, c) + np.cross(w, np.cross(w, c))
        f = self.mass * (a_c - np.asarray(gravity, float))
        Iw = w @ self.inertia.T
        tau = al @ self.inertia.T + np.cross(w, Iw) + np.cross(c, f)
        return np.concatenate([f, tau], axis=-1)

    def theta(self) -> np.ndarray:
        """The 16 parameters of :data:`PARAMS` (inertia about the sensor origin); (16,)."""
        c, m = self.com, self.mass
        I_O = self.inertia + m * (c.dot(c) * np.eye(3) - np.outer(c, c))
        six = I_O[[0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2]]
        return np.r_[m, m * c, six, self.bias]


def regressor(
    omega: npt.ArrayLike, alpha: npt.ArrayLike, acc: npt.ArrayLike, gravity: npt.ArrayLike
) -> np.ndarray:
    """``Y`` with reading = ``Y θ`` (θ as :data:`PARAMS`); (..., 6, 16).

    Args:
        omega: Angular velocity [rad/s]; (..., 3).
        alpha: Angular acceleration [rad/s²]; (..., 3).
        acc: Classical linear acceleration of the sensor origin [m/s²]; (..., 3).
        gravity: Gravity in sensor axes [m/s²]; (..., 3).
    """
    w, al = np.asarray(omega, float), np.asarray(alpha, float)
    ag = np.asarray(acc, float) - np.asarray(gravity, float)
    shape = w.shape[:-1]
    Y = np.zeros((*shape, 6, 16))
    W = skew(w)
    Y[..., :3, 0] = ag
    Y[..., :3, 1:4] = skew(al) + W @ W
    Y[..., :3, 10:13] = np.eye(3)
    Y[..., 3:, 1:4] = -skew(ag)  # (m c) × ag
    Y[..., 3:, 4:10] = _inertia_map(al) + W @ _inertia_map(w)  # I_O α + ω × (I_O ω)
    Y[..., 3:, 13:16] = np.eye(3)
    return Y


def _inertia_map(w: np.ndarray) -> np.ndarray:
    """``L(w)`` with ``I w = L(w) (Ixx, Ixy, Ixz, Iyy, Iyz, Izz)``; (..., 3, 6)."""
    x, y, z = w[..., 0], w[..., 1], w[..., 2]
    o = np.zeros(w.shape[:-1])
    return np.stack(
        [
            np.stack([x, y, z, o, o, o], -1),
            np.stack([o, x, o, y, z, o], -1),
            np.stack([o, o, x, o, y, z], -1),
        ],
        -2,
    )


@dataclass(frozen=True)
class Identified:
    """A least-squares load identification.

    Attributes:
        mass: Mass [kg].
        com: Centre of mass, sensor axes [m]; (3,).
        inertia_origin: Inertia about the sensor origin, sensor axes [kg·m²]; (3, 3).
        bias: Sensor offset (force [N], torque [N·m]); (6,).
        residual_rms: RMS of the fit's force residual [N].
        samples: Readings used.
        condition: Condition number of the (column-scaled) regressor [-].
    """

    mass: float
    com: np.ndarray
    inertia_origin: np.ndarray
    bias: np.ndarray
    residual_rms: float
    samples: int
    condition: float


def identify(Y: np.ndarray, readings: np.ndarray) -> Identified:
    """Least-squares ``θ`` from regressors ``Y`` (n, 6, 16) and readings (n, 6).

    Columns are scaled to unit norm before the solve (the inertia columns are small).
    """
    A = np.asarray(Y, float).reshape(-1, 16)
    b = np.asarray(readings, float).reshape(-1)
    scale = np.linalg.norm(A, axis=0)
    scale[scale == 0] = 1.0
    sol, *_ = np.linalg.lstsq(A / scale, b, rcond=None)
    theta = sol / scale
    res = (A @ theta - b).reshape(-1, 6)[:, :3]
    m = float(theta[0])
    I6 = theta[4:10]
    I_O = np.array([[I6[0], I6[1], I6[2]], [I6[1], I6[3], I6[4]], [I6[2], I6[4], I6[5]]])
    return Identified(
        mass=m,
        com=theta[1:4] / m if m else np.full(3, np.nan),
        inertia_origin=I_O,
        bias=theta[10:16].copy(),
        residual_rms=float(np.sqrt(np.mean(res**2))),
        samples=len(b) // 6,
        condition=float(np.linalg.cond(A / scale)),
    )


class ToolLoadCompensator:
    """Predicted load wrench at a sensor frame from the joint state (Pinocchio).

    Args:
        model: Pinocchio model holding the sensor frame.
        frame: Sensor frame name (``ft_site``).
        load: The load beyond the sensor.
    """

    def __init__(self, model: Any, frame: str, load: ToolLoad) -> None:
        self.model = model
        self.data = model.createData()
        self.fid = model.getFrameId(frame)
        self.load = load
        self._g = np.asarray(model.gravity.linear, float).copy()
        self.sensor_rotation = np.eye(3)  # at the last :meth:`kinematics` state; (3, 3)

    def kinematics(
        self, q: npt.ArrayLike, v: npt.ArrayLike, a: npt.ArrayLike
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``ω``, ``α``, classical ``a_s`` and gravity at the sensor, sensor axes; (3,) each."""
        m, d = self.model, self.data
        pin.forwardKinematics(
            m, d, np.asarray(q, float), np.asarray(v, float), np.asarray(a, float)
        )
        oMf = pin.updateFramePlacement(m, d, self.fid)
        self.sensor_rotation = oMf.rotation  # world axes of the sensor at q; (3, 3)
        V = pin.getFrameVelocity(m, d, self.fid, LOCAL)
        A = pin.getFrameClassicalAcceleration(m, d, self.fid, LOCAL)
        return V.angular, A.angular, A.linear, oMf.rotation.T.dot(self._g)

    def predict(self, q: npt.ArrayLike, v: npt.ArrayLike, a: npt.ArrayLike) -> np.ndarray:
        """The load's wrench plus the bias, sensor axes (what a contact-free reading is); (6,).

        The same formula as :meth:`ToolLoad.wrench`, on scalars (``np.cross`` costs ~20 µs
        per call; this whole prediction costs a few µs at 1 kHz).

        Args:
            q: Joint positions [rad]; (nq,).
            v: Joint velocities [rad/s]; (nv,).
            a: Joint accelerations [rad/s²]; (nv,).
        """
        w, al, acc, g = self.kinematics(q, v, a)
        L = self.load
        c = L.com
        a_c = acc - g + cross3(al, c) + cross3(w, cross3(w, c))
        f = L.mass * a_c
        tau = L.inertia.dot(al) + cross3(w, L.inertia.dot(w)) + cross3(c, f)
        out = np.concatenate([f, tau])
        out += L.bias
        return out
