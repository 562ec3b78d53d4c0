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
        # The load as Python floats (3-vector arithmetic on floats beats numpy at this size).
        self._m, self._c = float(load.mass), tuple(load.com.tolist())
        self._I = tuple(tuple(r) for r in np.asarray(load.inertia, float).tolist())
        self._bias = tuple(np.asarray(load.bias, float).tolist())
        self._has_g = bool(np.any(self._g))
        self._zero3 = np.zeros(3)

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
        g = oMf.rotation.T.dot(self._g) if self._has_g else self._zero3
        return V.angular, A.angular, A.linear, g

    def predict(
        self,
        q: npt.ArrayLike,
        v: npt.ArrayLike,
        a: npt.ArrayLike,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """The load's wrench plus the bias, sensor axes (what a contact-free reading is); (6,).

        The same formula as :meth:`ToolLoad.wrench`, on Python floats (``np.cross`` costs
        ~20 µs per call; this arithmetic costs ~1 µs, Pinocchio's kinematics ~3 µs).

        Args:
            q: Joint positions [rad]; (nq,), a float array.
            v: Joint velocities [rad/s]; (nv,), a float array.
            a: Joint accelerations [rad/s²]; (nv,), a float array.
            out: Receives the wrench (and is returned); default: a new array.
        """
        m, d, fid = self.model, self.data, self.fid  # (kinematics(), inlined: fewer calls)
        pin.forwardKinematics(m, d, q, v, a)
        R = self.sensor_rotation = pin.updateFramePlacement(m, d, fid).rotation
        _, _, _, w0, w1, w2 = pin.getFrameVelocity(m, d, fid, LOCAL).vector.tolist()
        acc = pin.getFrameClassicalAcceleration(m, d, fid, LOCAL).vector
        if self._has_g:
            s0, s1, s2 = (acc[:3] - R.T.dot(self._g)).tolist()
            a0, a1, a2 = acc[3:].tolist()
        else:
            s0, s1, s2, a0, a1, a2 = acc.tolist()
        c0, c1, c2 = self._c
        m = self._m
        u0, u1, u2 = w1 * c2 - w2 * c1, w2 * c0 - w0 * c2, w0 * c1 - w1 * c0  # ω × c
        f0 = m * (s0 + a1 * c2 - a2 * c1 + w1 * u2 - w2 * u1)  # m (a + α × c + ω × (ω × c))
        f1 = m * (s1 + a2 * c0 - a0 * c2 + w2 * u0 - w0 * u2)
        f2 = m * (s2 + a0 * c1 - a1 * c0 + w0 * u1 - w1 * u0)
        (I00, I01, I02), (I10, I11, I12), (I20, I21, I22) = self._I
        h0, h1, h2 = I00 * w0 + I01 * w1 + I02 * w2, I10 * w0 + I11 * w1 + I12 * w2, \
            I20 * w0 + I21 * w1 + I22 * w2  # I ω  # fmt: skip
        b = self._bias
        if out is None:
            out = np.empty(6)
        out[0], out[1], out[2] = f0 + b[0], f1 + b[1], f2 + b[2]
        out[3] = I00 * a0 + I01 * a1 + I02 * a2 + w1 * h2 - w2 * h1 + c1 * f2 - c2 * f1 + b[3]
        out[4] = I10 * a0 + I11 * a1 + I12 * a2 + w2 * h0 - w0 * h2 + c2 * f0 - c0 * f2 + b[4]
        out[5] = I20 * a0 + I21 * a1 + I22 * a2 + w0 * h1 - w1 * h0 + c0 * f1 - c1 * f0 + b[5]
        return out
