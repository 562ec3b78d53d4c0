"""``--ctrl hold``: a control that holds the start pose, whatever the actuator type.

Each actuator gets the hold its force law allows (:func:`hold_mode`):

- ``target``: a position-like servo (affine bias ``kp·length``) gets its start length as
  target, so it pushes nothing until the joint moves.
- ``velocity``: a velocity servo (or an integrator, an ``intvelocity``) gets 0: stand still.
- ``motor``: a force or torque motor (fixed gain, no bias) gets, every step, the force that
  cancels gravity and the other bias forces (``qfrc_bias − qfrc_passive``) plus a critically
  damped PD on the start pose, mapped through the actuator moments (least squares over all
  motors, so thrusters on a free body hover) and clamped to ``ctrlrange``.
- ``zero``: anything else (a muscle, a user law): 0.

The PD's natural frequency is ``min(OMEGA_MAX, OMEGA_H / timestep)`` on each DOF's inertia
at ``qpos0`` (``dof_M0``, armature included): fast enough to hold, slow enough for any
integrator (ω·h ≤ 0.2).
"""

from __future__ import annotations

import mujoco
import numpy as np

_DYN = mujoco.mjtDyn
HOLD_MODES = ("target", "velocity", "motor", "zero")
HOLD_LABELS = {
    "target": "position servo at its start target",
    "velocity": "velocity 0",
    "motor": "motor: gravity compensation + PD on the start pose",
    "zero": "0 (no hold law for this actuator)",
}
OMEGA_MAX = 2 * np.pi * 20  # PD natural frequency cap [rad/s]
OMEGA_H = 0.2  # PD natural frequency × timestep [1]


def hold_mode(model: mujoco.MjModel, a: int) -> str:
    """How ``--ctrl hold`` holds actuator ``a``: one of :data:`HOLD_MODES`."""
    dyn, gain = int(model.actuator_dyntype[a]), int(model.actuator_gaintype[a])
    bias = int(model.actuator_biastype[a])
    g, b = float(model.actuator_gainprm[a, 0]), model.actuator_biasprm[a]
    if dyn == _DYN.mjDYN_INTEGRATOR:
        return "velocity"
    if gain != mujoco.mjtGain.mjGAIN_FIXED or g == 0:
        return "zero"
    if bias == mujoco.mjtBias.mjBIAS_AFFINE:
        if b[1] != 0:
            return "target"
        return "velocity" if b[2] != 0 else "zero"
    if bias == mujoco.mjtBias.mjBIAS_NONE and dyn in (
        _DYN.mjDYN_NONE,
        _DYN.mjDYN_FILTER,
        _DYN.mjDYN_FILTEREXACT,
    ):
        return "motor"
    return "zero"


def target_ctrl(model: mujoco.MjModel, data: mujoco.MjData, a: int) -> float:
    """The control that puts servo ``a``'s target at its current length (clamped)."""
    g, b = model.actuator_gainprm[a, 0], model.actuator_biasprm[a]
    u = float(-(b[0] + b[1] * data.actuator_length[a]) / g)
    if model.actuator_ctrllimited[a]:
        lo, hi = model.actuator_ctrlrange[a]
        u = min(max(u, float(lo)), float(hi))
    return u


class MotorHold:
    """Per-step motor controls holding the start pose (module docstring, ``motor``).

    Args:
        model: The model.
        data: The reset data; its ``qpos`` is the pose held.
        motors: Indices of the actuators to drive, (k,).
    """

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData, motors: np.ndarray) -> None:
        self.model, self.data = model, data
        self.motors = np.asarray(motors, np.int64)
        self.q0 = data.qpos.copy()  # (nq,)
        h = float(model.opt.timestep)
        omega = min(OMEGA_MAX, OMEGA_H / h) if h > 0 else OMEGA_MAX
        inertia = np.maximum(model.dof_M0, 1e-9)  # (nv,) [kg | kg·m²]
        self.kp, self.kd = inertia * omega**2, 2.0 * inertia * omega  # (nv,) each
        self.gain = model.actuator_gainprm[self.motors, 0].copy()  # (k,)
        lim = model.actuator_ctrllimited[self.motors].astype(bool)
        rng = model.actuator_ctrlrange[self.motors]
        self.lo = np.where(lim, rng[:, 0], -np.inf)
        self.hi = np.where(lim, rng[:, 1], np.inf)
        self.err = np.zeros(model.nv)
        self.dofs = self._joint_dofs()

    def _joint_dofs(self) -> np.ndarray | None:
        """Each motor's DOF when all drive distinct hinges/slides directly, else ``None``."""
        m = self.model
        trn = m.actuator_trntype[self.motors]
        if not np.all(trn == int(mujoco.mjtTrn.mjTRN_JOINT)):
            return None
        joints = m.actuator_trnid[self.motors, 0]
        simple = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
        if len(set(joints.tolist())) != len(joints) or not all(
            int(m.jnt_type[j]) in simple for j in joints
        ):
            return None
        self.scale = m.actuator_gear[self.motors, 0] * self.gain  # (k,) force per unit ctrl
        return np.asarray(m.jnt_dofadr[joints], np.int64)

    def __call__(self, ctrl: np.ndarray) -> None:
        """Write the motors' controls for the current state into ``ctrl`` (nu,)."""
        m, d = self.model, self.data
        mujoco.mj_differentiatePos(m, self.err, 1.0, d.qpos, self.q0)
        tau = d.qfrc_bias - d.qfrc_passive + self.kp * self.err - self.kd * d.qvel  # (nv,)
        if self.dofs is not None:
            u = tau[self.dofs] / self.scale
        else:
            u = self._solve(tau)
        ctrl[self.motors] = np.clip(u, self.lo, self.hi)

    def _solve(self, tau: np.ndarray) -> np.ndarray:
        """Controls whose generalized force is closest to ``tau`` (least squares)."""
        d = self.data
        rows = np.zeros((len(self.motors), self.model.nv))  # (k, nv)
        for r, a in enumerate(self.motors.tolist()):
            adr, nnz = int(d.moment_rowadr[a]), int(d.moment_rownnz[a])
            rows[r, d.moment_colind[adr : adr + nnz]] = d.actuator_moment[adr : adr + nnz]
        force = np.linalg.lstsq(rows.T, tau, rcond=None)[0]  # (k,) actuator forces
        return np.asarray(force / self.gain)
