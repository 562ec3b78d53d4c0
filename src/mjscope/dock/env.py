"""MuJoCo environment of a docking scene: ``step(τ) -> (q, v, eef_pos)`` plus the F/T reading.

It relies on what :class:`mjscope.dock.scene.Scene` builds: sites ``eef`` and ``ft_site``, the
``ft_force``/``ft_torque`` sensors, the ``peg`` geom and the ``dock_*`` geoms.

Returned arrays are copies (MuJoCo's ``qpos``/``qvel`` are views that the next step overwrites).

Timing: ``mj_step`` evaluates positions, contacts and sensors *before* it integrates, so after it
the site poses would still be those of the previous state while ``qpos`` is new (a one-step lag
between a logged pose and its ``q``: 0.16 mm on a 0.16 m/s path). :meth:`step` therefore
recomputes the kinematics (``mj_kinematics``, ~1 µs; the trajectory is unchanged): poses match
``q``. The F/T reading and the contacts stay those of the start of the last step (a one-period
sensor delay), expressed in the current site axes (a rotation of at most ``|ω|·dt`` from the
axes they were measured in).
Optional offscreen recording renders a frame at each ``k/fps`` of simulated time (the first step
at or after it), so a run of ``T`` simulated seconds gives a video of ``T · fps`` frames.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import mujoco
import numpy as np
import numpy.typing as npt

from mjscope.control.wrench import wrench_world_to_body
from mjscope.exceptions import SimulationError

if TYPE_CHECKING:
    from mjscope.sim.render import OffscreenRenderer, VideoRecorder


class MujocoEnv:
    """Torque-driven arm with a peg tool (and optionally a dock).

    Args:
        model: The compiled scene model (sites ``eef``, ``ft_site``; sensors ``ft_force``,
            ``ft_torque``; geom ``peg``; ``dock_*`` geoms when docking).
        q0: Initial joint positions [rad]; (nq,).
        control_period: Control period [s]; a multiple of the model timestep.
    """

    def __init__(self, model: mujoco.MjModel, q0: npt.ArrayLike, control_period: float = 0.001):
        self.model = model
        self.data = mujoco.MjData(model)
        self.n_substeps = max(1, round(control_period / model.opt.timestep))
        self.eef = model.site("eef").id
        self.ft = model.site("ft_site").id
        self._f_adr = model.sensor_adr[model.sensor("ft_force").id]
        self._t_adr = model.sensor_adr[model.sensor("ft_torque").id]
        self.peg = model.geom("peg").id
        names = [model.geom(i).name for i in range(model.ngeom)]
        self.dock_geoms = {i for i, n in enumerate(names) if n.startswith("dock_")}
        # Peg–dock geom pairs, either order: a contact is classified by one set lookup.
        self._peg_dock = {(self.peg, g) for g in self.dock_geoms}
        self._peg_dock |= {(g, self.peg) for g in self.dock_geoms}
        self._force6 = np.zeros(6)
        self._w = np.zeros(6)  # wrench work buffer; (6,)
        self._w_f, self._w_m = self._w[:3], self._w[3:]
        self._r, self._c = np.zeros(3), np.zeros(3)
        self._recorder: VideoRecorder | None = None
        self._renderer: OffscreenRenderer | None = None
        self._t0 = 0.0  # simulated time the recording started [s]
        self._next_frame = math.inf  # simulated time of the next frame [s]
        self.reset(q0)
        self._resolve_views()

    def _resolve_views(self) -> None:
        """Views into MjData's fixed buffers, resolved once (copied when returned)."""
        d = self.data
        self._badqacc = d.warning[mujoco.mjtWarning.mjWARN_BADQACC]
        self._qpos, self._qvel, self._ctrl = d.qpos, d.qvel, d.ctrl
        self._ones = np.ones(self.model.nu)
        self._xmat_ft = d.site_xmat[self.ft]  # (9,) row-major
        self._p_eef, self._R_eef = d.site_xpos[self.eef], d.site_xmat[self.eef].reshape(3, 3)
        self._p_ft, self._R_ft = d.site_xpos[self.ft], d.site_xmat[self.ft].reshape(3, 3)
        self._R_ft_T = self._R_ft.T
        self._f_ft = d.sensordata[self._f_adr : self._f_adr + 3]
        self._m_ft = d.sensordata[self._t_adr : self._t_adr + 3]
        self._ft6 = d.sensordata[self._f_adr : self._f_adr + 6]  # force, torque if adjacent
        self._A = self._rigid_wrench_map()

    def _rigid_wrench_map(self) -> np.ndarray | None:
        """``−[[I, 0], [[r]×, I]]`` (6, 6), r = R_Sᵀ (p_S − p_E) in sensor axes, or ``None``.

        When the F/T site and the EEF site sit on one body, their offset is constant in sensor
        axes, and this maps the raw (force, torque) reading to the external wrench at the EEF in
        sensor axes; rotating both halves by ``R_S`` gives world axes. Needs the torque reading
        right after the force reading (``None`` otherwise: the general path is used).
        """
        m = self.model
        if m.site_bodyid[self.eef] != m.site_bodyid[self.ft] or self._t_adr != self._f_adr + 3:
            return None
        r0, r1, r2 = (self._R_ft_T @ (self._p_ft - self._p_eef)).tolist()
        A = -np.eye(6)
        A[3:, :3] = -np.array([[0.0, -r2, r1], [r2, 0.0, -r0], [-r1, r0, 0.0]])
        return A

    @property
    def time(self) -> float:
        """Simulated time [s]."""
        return float(self.data.time)

    def reset(self, q0: npt.ArrayLike) -> None:
        """Set ``qpos = q0``, ``qvel = 0``, time 0, and forward."""
        mujoco.mj_resetData(self.model, self.data)
        self.data.qpos[:] = np.asarray(q0, float)
        mujoco.mj_forward(self.model, self.data)

    def step(self, tau: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Apply joint torque [N·m] for one control period.

        Returns:
            Copies of q [rad] (nq,), v [rad/s] (nv,), end-effector position [m] (3,).

        Raises:
            SimulationError: Non-finite torque, or MuJoCo flagged a bad state.
        """
        tau = np.asarray(tau, float)
        if not math.isfinite(self._ones.dot(tau)):  # the sum: NaN/inf propagate
            raise SimulationError(f"non-finite torque {tau} at t = {self.time:.3f} s")
        q, v = self.advance(tau)
        return q, v, self._p_eef.copy()

    def advance(self, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`step` for a torque the caller has already checked finite (the loop does).

        Args:
            tau: Joint torque [N·m]; (nu,), finite.

        Returns:
            Copies of q [rad] (nq,) and v [rad/s] (nv,).

        Raises:
            SimulationError: MuJoCo flagged a bad state.
        """
        self._ctrl[:] = tau
        mujoco.mj_step(self.model, self.data, self.n_substeps)
        mujoco.mj_kinematics(self.model, self.data)  # poses at the new qpos (see module doc)
        if self._badqacc.number:
            raise SimulationError(f"MuJoCo reported a bad acceleration at t = {self.time:.3f} s")
        if self._recorder is not None and self.data.time >= self._next_frame:
            self._record_frame()
        return self._qpos.copy(), self._qvel.copy()

    def eef_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """End-effector position [m] (3,) and orientation (3, 3), copies."""
        return self._p_eef.copy(), self._R_eef.copy()

    def ft_reading(self) -> tuple[np.ndarray, np.ndarray]:
        """Raw F/T sensor: force [N] and torque [N·m] in ``ft_site`` axes, about its origin.

        MuJoCo's force sensor reports what the flange exerts on the tool (the tool's subtree).
        """
        return self._f_ft.copy(), self._m_ft.copy()

    def ft_site_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """Sensor site position [m] (3,) and orientation (3, 3)."""
        return self._p_ft.copy(), self._R_ft.copy()

    def ft6(self) -> np.ndarray:
        """Raw F/T reading (force [N], torque [N·m]) in ``ft_site`` axes, a copy; (6,)."""
        if self._t_adr == self._f_adr + 3:
            return self._ft6.copy()  # one copy of the adjacent force, torque readings
        return np.concatenate([self._f_ft, self._m_ft])

    def eef_wrench(
        self,
        p_eef: np.ndarray | None = None,
        reading: np.ndarray | None = None,
        R_sensor: np.ndarray | None = None,
    ) -> np.ndarray:
        """External wrench on the tool at the end-effector origin, world axes; (6,).

        MuJoCo's force/torque sensor reports what the flange exerts on the tool; the external
        wrench balances it (quasi-statically), hence the sign. The moment keeps the
        ``(p_S − p_E) × f`` term of moving the reference point from the sensor to the tip.

        Args:
            p_eef: Reference point [m] (3,); default: the EEF site (its rigid offset from the
                sensor is then precomputed when both sites are on one body).
            reading: A sensor-axes reading (force, torque about the sensor) to map instead of
                the raw one, e.g. the tool-load-compensated one; (6,).
            R_sensor: The sensor axes the reading was taken in (3, 3); default: the current
                ones (see the module docstring: the reading is one period old).
        """
        raw = self._ft6 if reading is None else reading
        if p_eef is None and self._A is not None:  # (then force and torque are adjacent)
            Rt = self._R_ft_T if R_sensor is None else R_sensor.T
            return self._A.dot(raw).reshape(2, 3).dot(Rt).ravel()
        p = self._p_eef if p_eef is None else np.ascontiguousarray(p_eef, float)
        f, m, r, c = self._w_f, self._w_m, self._r, self._c  # views of self._w; 3-vectors
        f_s = self._f_ft if reading is None else np.ascontiguousarray(reading[:3], float)
        m_s = self._m_ft if reading is None else np.ascontiguousarray(reading[3:], float)
        xmat = self._xmat_ft if R_sensor is None else np.ascontiguousarray(R_sensor).ravel()
        mujoco.mju_mulMatVec3(f, xmat, f_s)  # force, world axes
        mujoco.mju_mulMatVec3(m, xmat, m_s)  # moment about p_S, world axes
        mujoco.mju_sub3(r, self._p_ft, p)
        mujoco.mju_cross(c, r, f)  # (p_S − p_E) × f
        mujoco.mju_addTo3(m, c)
        return np.negative(self._w)

    def eef_wrench_body(self) -> np.ndarray:
        """External wrench on the tool at the end-effector origin, end-effector axes; (6,).

        :meth:`eef_wrench` (which keeps the ``(p_S − p_E) × f`` term) rotated by ``R_Eᵀ``: the
        wrench that pairs with the LOCAL (body) Jacobian of the end-effector frame.
        """
        return wrench_world_to_body(self.eef_wrench(), self._R_eef)

    def contact_force(self) -> float:
        """Total normal contact force between the peg and the dock [N]."""
        d = self.data
        if d.ncon == 0:
            return 0.0
        total = 0.0
        for i, pair in enumerate(d.contact.geom.tolist()):  # (ncon, 2) geom ids
            if tuple(pair) in self._peg_dock:
                mujoco.mj_contactForce(self.model, d, i, self._force6)
                total += float(self._force6[0])
        return total

    def start_recording(
        self, path: str | Path, fps: float = 30.0, width: int = 640, height: int = 480
    ) -> None:
        """Stream frames at ``fps`` of simulated time from the ``side`` camera to ``path``.

        The first frame is the current state; then one frame per ``1/fps`` of simulated time
        from now, stamped with it (a step longer than a frame repeats the frame before).

        Args:
            path: ``.mp4`` or ``.gif`` file; an earlier file is replaced only by
                :meth:`save_recording`.
            fps: Frames per second of simulated time.
            width: Frame width [px].
            height: Frame height [px].

        Raises:
            OutputError: Bad suffix or unwritable path (checked before anything runs).
        """
        from mjscope.sim.render import OffscreenRenderer, VideoRecorder

        recorder = VideoRecorder(path, fps)
        cam = "side" if self.model.ncam else None
        try:
            self._renderer = OffscreenRenderer(self.model, width, height, cam)
        except BaseException:
            recorder.close(keep=False)
            raise
        self._recorder, self._t0 = recorder, self.time
        self._next_frame = self.time
        self._record_frame()

    def _record_frame(self) -> None:
        """Render the current state into the recording, stamped with its simulated time."""
        assert self._recorder is not None and self._renderer is not None
        t = self.time - self._t0
        self._recorder.add(self._renderer.render(self.data), t)
        fps = self._recorder.fps
        self._next_frame = self._t0 + (self._recorder.slot(t) + 1 - 1e-6) / fps  # (see slot)

    @property
    def recorded_frames(self) -> int:
        """Frames in the current recording so far (0 when not recording)."""
        return self._recorder.frames if self._recorder is not None else 0

    def save_recording(self) -> Path:
        """Finish the recording started by :meth:`start_recording` and return its path.

        Raises:
            SimulationError: No recording was started.
        """
        if self._recorder is None or self._renderer is None:
            raise SimulationError("nothing recorded: call start_recording(path) first")
        rec, self._recorder = self._recorder, None
        self._next_frame = math.inf
        self._renderer.close()
        self._renderer = None
        return rec.close(end=self.time - self._t0)
