"""SE(3)-TOPP: a time-optimal trapezoidal profile along the SE(3) geodesic between two poses.

Path: ``T(s) = T0 · exp(s · ξ)``, ``ξ = log(T0⁻¹ T1) = (v [m], ω [rad])``, ``s`` ∈ [0, 1].

Conventions (Pinocchio's ``Motion`` ordering and frames):

- Poses are 4×4 homogeneous transforms ``T_world_ee``.
- Twists are BODY-frame, linear first: ``V = (v [m/s], ω [rad/s])`` with ``V^ = T⁻¹ Ṫ``.
  Along the geodesic ``V = ṡ ξ`` and ``V̇ = s̈ ξ`` (constant direction in the body frame).
- :meth:`SE3ToppTrajectory.get_state` returns the world-frame position part: ``p = T[:3, 3]``,
  ``ṗ = R v``, ``p̈ = R (v̇ + ω × v)``.

Bounds: the linear speed ``|v| ṡ`` and body linear acceleration ``|v| |s̈|`` stay within
``v_max``/``a_max``, the angular ones ``|ω| ṡ``, ``|ω| |s̈|`` within ``w_max``/``alpha_max``; so
``ṡ ≤ min(v_max/|v|, w_max/|ω|)`` and ``|s̈| ≤ min(a_max/|v|, alpha_max/|ω|)``. The acceleration
bound is on the body twist derivative ``V̇``; the world linear acceleration ``p̈`` additionally
contains the term ``R (ω × v)``, which is non-zero on screw motions (rotation and translation
not parallel) and is not bounded by ``a_max``.

The profile is bang-(cruise-)bang: trapezoidal, or triangular when the velocity bound cannot be
reached. ``s̈`` is piecewise constant and jumps at the switch times; at the start and end
instants themselves the hold value (zero) is returned.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from scipy.spatial.transform import Rotation

from mjscope.control.planners.trajectory import State, States, Trajectory
from mjscope.exceptions import ConfigError

Pose = npt.ArrayLike | tuple[npt.ArrayLike, npt.ArrayLike]  # (4, 4) or (pos (3,), R (3, 3))
MotionState = tuple[np.ndarray, np.ndarray, np.ndarray]  # T (4, 4), V (6,), V̇ (6,)
MotionStates = tuple[np.ndarray, np.ndarray, np.ndarray]  # T (n, 4, 4), V (n, 6), V̇ (n, 6)

_ZERO_LENGTH = 1e-12  # geodesic lengths below this [m] / [rad] are a hold
_TAYLOR = 1e-2  # rotation angles below this [rad] use the series of the exp coefficients
_ORTHO_TOL = 1e-6  # max |RᵀR − I| and |det R − 1| accepted for a rotation


def _hat(w: np.ndarray) -> np.ndarray:
    """Skew matrices of vectors; (..., 3) → (..., 3, 3)."""
    z = np.zeros(w.shape[:-1])
    x, y, c = w[..., 0], w[..., 1], w[..., 2]
    return np.stack(
        [np.stack([z, -c, y], -1), np.stack([c, z, -x], -1), np.stack([-y, x, z], -1)], -2
    )


def _exp_coeffs(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``sin θ/θ``, ``(1 − cos θ)/θ²``, ``(θ − sin θ)/θ³`` with Taylor branches near 0; (n,)."""
    t2 = theta * theta
    small = theta < _TAYLOR
    safe = np.where(small, 1.0, theta)
    s2 = safe * safe
    a = np.where(small, 1.0 - t2 / 6.0 + t2 * t2 / 120.0, np.sin(safe) / safe)
    b = np.where(small, 0.5 - t2 / 24.0 + t2 * t2 / 720.0, (1.0 - np.cos(safe)) / s2)
    c = np.where(
        small, 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0, (safe - np.sin(safe)) / (s2 * safe)
    )
    return a, b, c


def _exp_parts(xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotations ``exp(ω^)`` and left Jacobians ``V(ω)`` of twists (n, 6); (n, 3, 3) each."""
    w = xi[:, 3:]
    a, b, c = _exp_coeffs(np.linalg.norm(w, axis=1))
    W = _hat(w)
    W2 = W @ W
    eye = np.eye(3)
    R = eye + a[:, None, None] * W + b[:, None, None] * W2
    V = eye + b[:, None, None] * W + c[:, None, None] * W2
    return R, V


def se3_exp_batch(xi: npt.ArrayLike) -> np.ndarray:
    """SE(3) exponential of twists ``(v [m], ω [rad])``; (n, 6) → (n, 4, 4)."""
    xi = np.atleast_2d(np.asarray(xi, float))
    R, V = _exp_parts(xi)
    T = np.zeros((len(xi), 4, 4))
    T[:, :3, :3] = R
    T[:, :3, 3] = np.einsum("nij,nj->ni", V, xi[:, :3])
    T[:, 3, 3] = 1.0
    return T


def se3_log(T: npt.ArrayLike) -> np.ndarray:
    """SE(3) logarithm ``(v [m], ω [rad])`` of a 4×4 transform (angle in [0, π]); (6,)."""
    T = np.asarray(T, float)
    w = Rotation.from_matrix(T[:3, :3]).as_rotvec()
    xi = np.concatenate([np.zeros(3), w])
    _, V = _exp_parts(xi[None])
    xi[:3] = np.linalg.solve(V[0], T[:3, 3])
    return xi


def _positive(name: str, value: float, unit: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError) as e:
        raise ConfigError(
            f"SE3ToppTrajectory: {name} must be a number {unit}, got {value!r}"
        ) from e
    if not (math.isfinite(x) and x > 0.0):
        raise ConfigError(f"SE3ToppTrajectory: {name} must be finite and > 0 {unit}, got {x!r}")
    return x


def _non_negative(name: str, value: float) -> float:
    x = float(value)
    if not (math.isfinite(x) and x >= 0.0):
        raise ConfigError(f"SE3ToppTrajectory: {name} must be finite and >= 0 [s], got {x!r}")
    return x


def as_pose(pose: Pose, name: str = "pose") -> np.ndarray:
    """Validated 4×4 transform from a (4, 4) array or a ``(pos (3,), R (3, 3))`` pair.

    Raises:
        ConfigError: Wrong shape, non-finite entries, a non-orthonormal or reflecting rotation,
            or a bad last row.
    """
    if isinstance(pose, Sequence) and len(pose) == 2:
        p, R = np.asarray(pose[0], float), np.asarray(pose[1], float)
        if p.shape != (3,) or R.shape != (3, 3):
            raise ConfigError(f"{name}: expected (pos (3,), R (3, 3)), got {p.shape}, {R.shape}")
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = R, p
    else:
        T = np.array(pose, float)
        if T.shape != (4, 4):
            raise ConfigError(f"{name}: expected a (4, 4) transform or (pos, R), got {T.shape}")
    if not np.all(np.isfinite(T)):
        raise ConfigError(f"{name}: entries must be finite, got\n{T}")
    if not np.allclose(T[3], [0.0, 0.0, 0.0, 1.0], atol=0.0):
        raise ConfigError(f"{name}: last row must be [0, 0, 0, 1], got {T[3]}")
    R = T[:3, :3]
    ortho = float(np.max(np.abs(R.T @ R - np.eye(3))))
    det = float(np.linalg.det(R))
    if ortho > _ORTHO_TOL or abs(det - 1.0) > _ORTHO_TOL:
        raise ConfigError(
            f"{name}: rotation must be proper (RᵀR = I, det R = +1 within {_ORTHO_TOL}), "
            f"got max|RᵀR − I| = {ortho:.3g}, det R = {det:.6g}; re-orthonormalise it"
        )
    return T


class SE3ToppTrajectory(Trajectory):
    """Time-optimal motion along the SE(3) geodesic from ``start`` to ``goal``.

    The pose is ``start`` until ``t_start = t0 + hold_before``, moves during ``t_motion``, is
    ``goal`` from ``t_end = t_start + t_motion`` on; ``duration = t_end + hold_after``.
    A zero-length geodesic (``|v|`` and ``|ω|`` below 1e-12) is a hold at ``start``.

    Args:
        start: Start pose ``T_world_ee``; (4, 4) or ``(pos (3,) [m], R (3, 3))``.
        goal: Goal pose, same forms.
        v_max: Linear speed bound [m/s] (> 0).
        a_max: Linear acceleration bound (body frame) [m/s²] (> 0).
        w_max: Angular speed bound [rad/s] (> 0).
        alpha_max: Angular acceleration bound [rad/s²] (> 0).
        t0: Time at which the hold before the motion starts [s].
        hold_before: Rest at ``start`` before moving [s] (≥ 0).
        hold_after: Rest at ``goal`` after arriving, counted in ``duration`` [s] (≥ 0).

    Raises:
        ConfigError: A pose or bound is invalid (the message names it).
    """

    def __init__(
        self,
        start: Pose,
        goal: Pose,
        v_max: float,
        a_max: float,
        w_max: float,
        alpha_max: float,
        *,
        t0: float = 0.0,
        hold_before: float = 0.0,
        hold_after: float = 0.0,
    ) -> None:
        self.T0 = as_pose(start, "start")
        self.T1 = as_pose(goal, "goal")
        self.v_max = _positive("v_max", v_max, "[m/s]")
        self.a_max = _positive("a_max", a_max, "[m/s²]")
        self.w_max = _positive("w_max", w_max, "[rad/s]")
        self.alpha_max = _positive("alpha_max", alpha_max, "[rad/s²]")
        if not math.isfinite(float(t0)):
            raise ConfigError(f"SE3ToppTrajectory: t0 must be finite [s], got {t0!r}")
        self.xi = se3_log(np.linalg.inv(self.T0) @ self.T1)  # (6,) body twist of the geodesic
        self.length_lin = float(np.linalg.norm(self.xi[:3]))  # [m]
        self.length_ang = float(np.linalg.norm(self.xi[3:]))  # [rad]
        self.is_hold = max(self.length_lin, self.length_ang) < _ZERO_LENGTH
        self._plan()
        self.t_start = float(t0) + _non_negative("hold_before", hold_before)
        self.t_end = self.t_start + self.t_motion
        self.duration = self.t_end + _non_negative("hold_after", hold_after)

    def _plan(self) -> None:
        """Path-parameter bounds and the switch times of the bang-cruise-bang profile."""
        ls = [
            (self.length_lin, self.v_max, self.a_max),
            (self.length_ang, self.w_max, self.alpha_max),
        ]
        self.sdot_max = min((vm / L for L, vm, _ in ls if L > 0.0), default=math.inf)  # [1/s]
        self.sddot_max = min((am / L for L, _, am in ls if L > 0.0), default=math.inf)  # [1/s²]
        if self.is_hold:
            self.triangular, self.t_acc, self.t_cruise, self.sdot_peak = True, 0.0, 0.0, 0.0
        elif self.sdot_max**2 >= self.sddot_max:  # velocity bound not reachable (or just)
            self.triangular, self.t_cruise = True, 0.0
            self.t_acc = math.sqrt(1.0 / self.sddot_max)
            self.sdot_peak = self.sddot_max * self.t_acc
        else:
            self.triangular, self.sdot_peak = False, self.sdot_max
            self.t_acc = self.sdot_max / self.sddot_max
            self.t_cruise = 1.0 / self.sdot_max - self.t_acc
        self.t_motion = 2.0 * self.t_acc + self.t_cruise  # [s]

    def profile(self, ts: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Path parameter ``s`` [-], ``ṡ`` [1/s], ``s̈`` [1/s²] at each of ``ts`` [s]; (n,) each."""
        tau = np.atleast_1d(np.asarray(ts, float)) - self.t_start
        if self.is_hold:
            z = np.zeros_like(tau)
            return z, z.copy(), z.copy()
        a, ta, vp, tf = self.sddot_max, self.t_acc, self.sdot_peak, self.t_motion
        tc_end = ta + self.t_cruise
        r = tf - tau
        acc, dec, done, moving = tau < ta, tau >= tc_end, tau >= tf, (tau > 0.0) & (tau < tf)
        s = np.where(
            acc,
            0.5 * a * tau * tau,
            np.where(dec, 1.0 - 0.5 * a * r * r, 0.5 * a * ta * ta + vp * (tau - ta)),
        )
        sd = np.where(acc, a * tau, np.where(dec, a * r, vp))
        sdd = np.where(acc, a, np.where(dec, -a, 0.0))
        s = np.where(done, 1.0, np.where(tau <= 0.0, 0.0, s))
        return s, np.where(moving, sd, 0.0), np.where(moving, sdd, 0.0)

    def get_motion_states(self, ts: npt.ArrayLike) -> MotionStates:
        """Pose, body twist and its derivative at each of ``ts`` [s] (n,).

        Returns:
            ``T_d`` (n, 4, 4) world pose; ``V_d`` (n, 6) body twist (v [m/s], ω [rad/s]);
            ``Vdot_d`` (n, 6) its derivative (v̇ [m/s²], ω̇ [rad/s²]).
        """
        s, sd, sdd = self.profile(ts)
        T = self.T0 @ se3_exp_batch(s[:, None] * self.xi)
        T[s <= 0.0] = self.T0
        if not self.is_hold:
            T[s >= 1.0] = self.T1
        return T, sd[:, None] * self.xi, sdd[:, None] * self.xi

    def get_motion_state(self, t: float) -> MotionState:
        """``T_d`` (4, 4), body ``V_d`` (6,) and ``Vdot_d`` (6,) at ``t`` [s]; linear first."""
        T, V, Vdot = self.get_motion_states([t])
        return T[0], V[0], Vdot[0]

    def get_states(self, ts: npt.ArrayLike) -> States:
        """World position [m], velocity [m/s], acceleration [m/s²] at each ``ts``; (n, 3) each."""
        T, V, Vdot = self.get_motion_states(ts)
        R = T[:, :3, :3]
        vel = np.einsum("nij,nj->ni", R, V[:, :3])
        acc_body = Vdot[:, :3] + np.cross(V[:, 3:], V[:, :3])
        return T[:, :3, 3].copy(), vel, np.einsum("nij,nj->ni", R, acc_body)

    def get_state(self, t: float) -> State:
        """World position [m], velocity [m/s], acceleration [m/s²] at ``t`` [s]; (3,) each."""
        pos, vel, acc = self.get_states([t])
        return pos[0], vel[0], acc[0]
