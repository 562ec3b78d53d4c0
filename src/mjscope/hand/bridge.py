"""``HandBridge``: commands → goal → slew → hard-write (with projection) or PD → state.

One control step (:meth:`HandBridge.step`): take queued commands (each validated whole), slew the
applied targets toward the goal (rad/s, then mimic re-completed), write them — hard-write: all
joints incl. mimic into ``qpos``, penetration projection, ``mj_forward``, never ``mj_step``; PD:
actuator targets on the active joints, mimic by equality, ``mj_step`` at the physics rate — then
recover from a non-finite state and publish the state at its own rate (50 Hz).

A command sample the transport could not decode arrives as an
:class:`~mjscope.bridge.messages.UndecodableSample` and is counted in ``rejects`` under its
reason (``undecodable`` or ``too_large``), like every other rejected frame.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import mujoco
import numpy as np
import numpy.typing as npt

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.base import Publisher, Subscriber, Transport
from mjscope.bridge.validation import InvalidFrame, RejectCounter
from mjscope.exceptions import MjscopeError, UnknownNameError
from mjscope.hand._targets import TargetMap
from mjscope.hand.commands import CommandParser
from mjscope.hand.mapping import open_hand_command, urdf_positions_to_sdk_range
from mjscope.hand.model import HandModel
from mjscope.hand.projection import PenetrationProjector, ProjectionResult

logger = logging.getLogger(__name__)

TOPIC_CMD = "/g20/cb_left_hand_control_cmd"
TOPIC_CMD_LEGACY = "/cb_left_hand_control_cmd"
TOPIC_NOMINAL = "/g20/left/plan_nominal"
TOPIC_STATE = "/sim/mujoco/g20/left/joint_state"
TOPIC_SDK_STATE = "/g20/cb_left_hand_state"
TOPIC_SDK_STATE_LEGACY = "/cb_left_hand_state"
SUBSCRIBER_DEPTH = 1000  # unread commands kept between two steps (1 s at 1 kHz)
RANGE_TOLERANCE_RAD = 0.1  # beyond a joint's range by more: rejected, not clamped [rad]


@dataclass(frozen=True)
class HandBridgeCfg:
    """Bridge settings (the CLI flags).

    Attributes:
        pd_drive: PD drive (actuator targets + ``mj_step``) instead of hard-write.
        self_collision: Hard-write: penetration projection on; PD: hand-hand contacts on.
        slew_rad_s: Largest joint speed toward the goal [rad/s]; 0 = instant.
        penetration_tol: Allowed penetration after projection [m].
        plan_nominal: Listen for nominal radians instead of legacy 0..255 commands.
        legacy_sdk: Use the real driver's topic names (``/cb_left_hand_*``).
        publish_sdk_state: Also publish the state as 20 raw slot values.
        control_dt: Control step [s].
        state_rate_hz: State publishing rate [Hz].
    """

    pd_drive: bool = False
    self_collision: bool = True
    slew_rad_s: float = 5.0
    penetration_tol: float = 1e-3
    plan_nominal: bool = False
    legacy_sdk: bool = False
    publish_sdk_state: bool = False
    control_dt: float = 0.01
    state_rate_hz: float = 50.0


class HandBridge:
    """Drives a hand model from commands (see the module docstring).

    Args:
        hand: Prepared hand model (built with ``pd=cfg.pd_drive``).
        cfg: Settings.
        transport: Bus for commands and state; ``None`` for direct API use only.
    """

    def __init__(
        self, hand: HandModel, cfg: HandBridgeCfg | None = None, transport: Transport | None = None
    ) -> None:
        self.hand, self.cfg, self.profile = hand, cfg or HandBridgeCfg(), hand.profile
        self.model, self.data = hand.model, mujoco.MjData(hand.model)
        self.parser = CommandParser(self.profile)
        self.projector = PenetrationProjector(hand, self.cfg.penetration_tol)
        self.last_projection: ProjectionResult | None = None
        self.time = 0.0
        self.recoveries = 0
        self._substeps = max(1, round(self.cfg.control_dt / self.model.opt.timestep))
        self._next_pub = self.cfg.control_dt  # first state after the first step
        self._map = TargetMap(hand)
        self._open = self._map.clamp(self._map.from_sdk(open_hand_command(self.profile)))
        self._goal = self._open.copy()  # (n_joints,) [rad], TargetMap order
        self._applied = self._open.copy()  # (n_joints,) [rad]
        self._track = self._open[: self._map.n_active].copy()  # (n_active,) [rad]
        self._reset_pose()
        self._setup_io(transport)

    # ---- targets --------------------------------------------------------------------------
    @property
    def goal(self) -> dict[str, float]:
        """The goal [rad] by profile joint name (active and mimic)."""
        return self._map.to_dict(self._goal)

    @property
    def applied(self) -> dict[str, float]:
        """The targets last written (slewed, projected) [rad] by profile joint name."""
        return self._map.to_dict(self._applied)

    @property
    def track_nominal(self) -> dict[str, float]:
        """The active joints' nominal targets [rad] (``tracking_error`` compares with them)."""
        return self._map.to_dict(self._track, active_only=True)

    # ---- commands -------------------------------------------------------------------------
    def command_sdk(self, values: npt.ArrayLike) -> None:
        """Set the goal from 20 raw slot values (clamped to 0..255).

        Raises:
            MjscopeError: A value is not finite.
        """
        q = self._map.from_sdk(values)
        if not np.isfinite(q).all():
            bad = np.flatnonzero(~np.isfinite(q))
            j = self._map.names[int(bad[0])]
            raise MjscopeError(f"target {q[bad[0]]} for {j!r} is not finite; send 0..255 values")
        self._set_goal(self._map.clamp(q))

    def set_nominal_targets(self, positions: Mapping[str, float]) -> None:
        """Set the goal from joint targets [rad]; missing active joints keep their goal.

        Args:
            positions: Profile joint name → target [rad] (mimic values given are kept).

        Raises:
            UnknownNameError: A name is not a joint of the profile.
            MjscopeError: A target is not finite.
            InvalidFrame: A target lies beyond its joint's range by more than
                :data:`RANGE_TOLERANCE_RAD` (``out_of_range``: a unit or sign mistake, not a
                target to clamp), on the bus and for ``--command`` alike.
        """
        for j, v in positions.items():
            if j not in self.hand.qadr:
                raise UnknownNameError("hand joint", j, self.profile.all_joints)
            if not math.isfinite(v):
                raise MjscopeError(f"target {v} for {j!r} is not finite; send a number [rad]")
            lo, hi = self.hand.limits.get(j, (-math.inf, math.inf))
            if not lo - RANGE_TOLERANCE_RAD <= v <= hi + RANGE_TOLERANCE_RAD:
                raise InvalidFrame(
                    "out_of_range",
                    f"target {v:g} rad for {j!r} is outside its range [{lo:.4g}, {hi:.4g}] rad",
                )
        self._set_goal(self._map.clamp(self._map.merge(self._goal, positions)))

    def _set_goal(self, q: np.ndarray) -> None:
        self._goal = q
        self._track = q[: self._map.n_active].copy()

    def handle_legacy(self, msg: object) -> bool:
        """Apply a legacy command message; a bad frame is counted and changes nothing."""
        return self._handle(lambda: self.command_sdk(self.parser.legacy(msg)))

    def handle_nominal(self, msg: object) -> bool:
        """Apply a nominal (radian) message; a bad frame is counted and changes nothing."""
        return self._handle(lambda: self.set_nominal_targets(self.parser.nominal(msg)))

    def _handle(self, apply: Callable[[], None]) -> bool:
        try:
            apply()
        except InvalidFrame as e:
            self.rejects.reject(e)
            return False
        self.commands_applied += 1
        return True

    # ---- the control step -----------------------------------------------------------------
    def step(self) -> None:
        """One control step: commands, slew, write, recover, publish."""
        if self._sub is not None:
            handle = self.handle_nominal if self.cfg.plan_nominal else self.handle_legacy
            for msg in self._sub.take():
                handle(msg)
        self.apply_targets()
        self.recover_if_invalid()
        self.time += self.cfg.control_dt
        if self.time + 1e-9 >= self._next_pub:
            self.publish_state()
            self._next_pub += 1.0 / self.cfg.state_rate_hz

    def apply_targets(self) -> None:
        """Slew toward the goal and write the result (hard-write or PD)."""
        self._slew()
        if self.cfg.pd_drive:
            self.data.ctrl[self._map.actuator] = self._applied[self._map.actuated]
            for _ in range(self._substeps):
                mujoco.mj_step(self.model, self.data)
        else:
            self._hard_write()

    def _slew(self) -> None:
        """Active joints move at most ``slew · dt`` toward the goal; mimic re-completed."""
        max_step = self.cfg.slew_rad_s * self.cfg.control_dt
        if max_step <= 0:  # instant: the goal exactly
            self._applied = self._goal.copy()
        else:
            self._applied = self._map.clamp(self._map.slew(self._applied, self._goal, max_step))

    def _hard_write(self) -> None:
        adr = self._map.qadr
        q_from = self.data.qpos.copy()
        q_to = q_from.copy()
        q_to[adr] = self._applied
        if self.cfg.self_collision:
            self.last_projection = self.projector.project(q_from, q_to)
            q_to = self.last_projection.qpos
            self._applied = q_to[adr]
        self.data.qpos[:] = q_to
        self.data.qvel[:] = 0.0
        mujoco.mj_forward(self.model, self.data)

    def recover_if_invalid(self) -> bool:
        """Reset goal and pose to open when the state is non-finite or MuJoCo reset it.

        Returns:
            True when a recovery happened (logged and counted in ``recoveries``).
        """
        bad = mujoco.mjtWarning.mjWARN_BADQACC
        if np.isfinite(self.data.qpos).all() and np.isfinite(self.data.qvel).all():
            if self.data.warning[bad].number == 0:
                return False
        logger.warning("hand state invalid (non-finite or diverged): reset to open")
        self.recoveries += 1
        self._set_goal(self._open.copy())
        self._applied = self._open.copy()
        self._reset_pose()
        return True

    def _reset_pose(self) -> None:
        mujoco.mj_resetData(self.model, self.data)
        self.data.qpos[self._map.qadr] = self._applied
        self.data.ctrl[self._map.actuator] = self._applied[self._map.actuated]
        mujoco.mj_forward(self.model, self.data)

    # ---- state ----------------------------------------------------------------------------
    def positions(self) -> dict[str, float]:
        """Current joint positions [rad] by profile name."""
        return self._map.to_dict(self.data.qpos[self._map.qadr])

    def tracking_error(self) -> tuple[float, float]:
        """(max, mean) |q_sim − q_nominal| over the active joints [rad]."""
        n = self._map.n_active
        err = np.abs(self.data.qpos[self._map.qadr[:n]] - self._track)
        return (float(err.max()), float(err.mean())) if n else (0.0, 0.0)

    def state(self) -> JointState:
        """The joint state (model names, positions [rad], velocities [rad/s])."""
        names = list(self.hand.qadr)
        return JointState(
            stamp=Stamp.from_seconds(self.time),
            name=[self.profile.model_name(j) for j in names],
            position=[float(self.data.qpos[self.hand.qadr[j]]) for j in names],
            velocity=[float(self.data.qvel[self.hand.dofadr[j]]) for j in names],
        )

    def sdk_state(self) -> JointState:
        """The state as 20 raw slot values (inverse mapping; reserved slots 0)."""
        raw = urdf_positions_to_sdk_range(self.positions(), self.profile)
        names = {s.index: s.joint for s in self.profile.slots}
        return JointState(
            stamp=Stamp.from_seconds(self.time),
            name=[names.get(i, f"reserved_{i}") for i in range(len(raw))],
            position=[float(v) for v in raw],
        )

    def publish_state(self) -> None:
        """Publish the state (and the SDK state when enabled)."""
        if self._state_pub is not None:
            self._state_pub.publish(self.state())
        if self._sdk_pub is not None:
            self._sdk_pub.publish(self.sdk_state())

    def _setup_io(self, transport: Transport | None) -> None:
        legacy = self.cfg.legacy_sdk
        topic = (
            TOPIC_NOMINAL if self.cfg.plan_nominal else (TOPIC_CMD_LEGACY if legacy else TOPIC_CMD)
        )
        self.command_topic = topic
        self.rejects = RejectCounter(topic)  # undecodable samples included (by reason)
        self.commands_applied = 0  # command frames that set the goal
        self._sub: Subscriber | None = None
        self._state_pub: Publisher | None = None
        self._sdk_pub: Publisher | None = None
        if transport is None:
            return
        self._sub = transport.subscriber(topic, JointState, SUBSCRIBER_DEPTH)
        self._state_pub = transport.publisher(TOPIC_STATE, JointState)
        if self.cfg.publish_sdk_state:
            sdk_topic = TOPIC_SDK_STATE_LEGACY if legacy else TOPIC_SDK_STATE
            self._sdk_pub = transport.publisher(sdk_topic, JointState)

    def close(self) -> None:
        """Close the bridge's endpoints."""
        for e in (self._sub, self._state_pub, self._sdk_pub):
            if e is not None:
                e.close()
