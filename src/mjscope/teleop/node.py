"""One arm's teleop chain, one :meth:`TeleopArm.step` per control cycle.

XR controller → reset (primary button: X left, A right) → clutch (grip) → target →
workspace and Cartesian speed limits → Placo QP IK → joint position/speed/acceleration limits
→ adapter → ``joint_states`` (the adapter's feedback) and ``joint_target`` (the command sent).

Safety: no XR data for ``xr_timeout_s`` or a grip released → hold; no feedback for
``feedback_timeout_s``, a controller error or a failed send → a latched safe stop (the arm
brakes to rest within its limits, then nothing more is sent); an IK step that fails or does
not converge → hold the last good command. "Hold" always brakes within ``joint_max_acc``, so
every command — stops included — is finite and within every limit. After an XR timeout, and
after a reset of an arm whose adapter requires it (the real one), the grip must be released
before the arm moves again. A mock reset drops the anchors and, with the grip still held,
re-anchors on the next cycle: teleop goes on from the reset pose without a jump. Engaging from
rest seeds the limiter and the IK with the measured joints (clamped into the URDF limits), so
the first command starts from where the arm is, at rest, within the speed/acceleration limits.

Each cycle records its stage times (:mod:`mjscope.teleop.timing`). Another thread may ask for a
safe stop (:meth:`TeleopArm.request_stop`, the fault policy); the arm acts on it at the start
of its next cycle. :meth:`TeleopArm.brake` is a cycle that ramps the arm to rest (end of run).
"""

from __future__ import annotations

import logging
from time import perf_counter

import numpy as np

from mjscope.bridge.transport.base import Transport
from mjscope.rig import SideCfg
from mjscope.teleop import native_chain, native_step
from mjscope.teleop.adapters.base import AdapterError, ArmAdapter, Feedback
from mjscope.teleop.arm_channel import ArmChannel
from mjscope.teleop.clutch import canonical_floats
from mjscope.teleop.cycle import STATES, Cycle
from mjscope.teleop.ik import ArmIk
from mjscope.teleop.joint_limits import JointStep
from mjscope.teleop.limits import CartesianLimiter, Workspace
from mjscope.teleop.poses import Pose, floats_to_flat
from mjscope.teleop.timing import IK, LIMITS, TARGET, XR
from mjscope.teleop.xr.base import ControllerState
from mjscope.teleop.xr_input import XrInput

logger = logging.getLogger(__name__)

__all__ = ["STATES", "Cycle", "TeleopArm"]

RESET_HINT = "press X (left) / A (right) to reset to the initial pose"
_BUTTON = {"left": "X", "right": "A"}


class TeleopArm(ArmChannel):
    """The teleop chain of one arm (arguments: :class:`~.arm_channel.ArmChannel`'s)."""

    __slots__ = (
        "_native",
        "_plan",
        "_prev_target",
        "_stepper",
        "cartesian",
        "initial_ee",
        "needs_release",
        "refused_why",
        "workspace",
        "xr",
    )

    def __init__(
        self,
        side: str,
        cfg: SideCfg,
        ik: ArmIk,
        adapter: ArmAdapter,
        transport: Transport | None = None,
    ) -> None:
        super().__init__(side, cfg, ik, adapter, transport)
        self.workspace = Workspace.from_side(cfg)
        self.cartesian = CartesianLimiter(
            self.workspace, cfg.max_linear_speed, cfg.max_orientation_speed, self.dt
        )
        self.needs_release = False
        self.initial_ee: Pose | None = None
        self._prev_target: tuple[list[float], list[float]] | None = None  # (p, q)
        self.xr = XrInput(cfg.xr_timeout_s)
        self.refused_why = ""  # the bound that refused the last engagement
        self._native = native_chain.module()  # the compiled target fast path, if built
        ws, lim = self.workspace, self.cartesian
        self._plan = native_chain.target_plan(
            self.clutch.scale, ws._lo, ws._hi, ws.low_radius, ws.low_height, ws.radius,
            (ws._ax, ws._ay), lim.max_step, lim.max_turn,
        )  # fmt: skip
        self._stepper = native_step.stepper(self)  # the compiled engaged cycle, if built

    # -- start-up -------------------------------------------------------------------------

    def start(self, now: float) -> None:
        """Connect the adapter, sync to its first feedback and publish one state frame.

        Raises:
            AdapterError: The arm cannot be reached or sends no feedback.
        """
        self.adapter.connect()
        fb = self.adapter.feedback(now)
        if fb is None:
            raise AdapterError(f"{self.side} arm: connected but sent no joint feedback")
        self._sync(fb.q)
        self.initial_ee = self.ik.ee_pose()
        self._publish(fb, self.joints.q)

    def _sync(self, q: np.ndarray) -> None:
        self.joints.reset(q)
        self.ik.set_q(self.joints.q)

    # -- one cycle ------------------------------------------------------------------------

    def step(self, now: float, ctrl: ControllerState | None, rx: float | None = None) -> Cycle:
        """Run one control cycle.

        Args:
            now: Time [s], the clock the adapter's feedback is stamped on.
            ctrl: This side's controller if a new XR frame arrived this cycle, else ``None``.
            rx: When ``ctrl`` was received [s, same clock] (the ``xr`` stage), if known.

        Returns:
            What the cycle did.
        """
        if self._stepper is not None:  # the plain engaged cycle in C (None: not that cycle)
            c = self._stepper.step(now, ctrl, rx)
            if c is not None:
                return c
        row = self.timing.next()
        t0 = perf_counter()
        fb = self._begin(now)
        if self.stopped:
            return self._stopped_cycle(now, fb)
        if ctrl is not None and rx is not None:
            row[XR] = max(0.0, now - rx)
        ctrl = self._xr(now, ctrl)
        if ctrl is not None and self.xr.primary_pressed(ctrl):
            return self._reset(now, ctrl)
        target: Pose | None = None
        if self._engaged(ctrl, fb):
            assert ctrl is not None
            step, target = self._track(ctrl, fb)
            state = "engaged"
        else:
            step, state = self._hold(fb), self._idle_state()
        self._out(step, now, t0)
        return self._record(now, state, ctrl, target, step.q)

    def brake(self, now: float) -> Cycle:
        """One cycle of the end of a run: ramp to rest within ``joint_max_acc``, no tracking."""
        self.timing.next()
        fb = self._begin(now)
        if self.stopped:
            return self._stopped_cycle(now, fb)
        self.clutch.release()
        self._prev_target = None
        sent = False
        if not self.joints.at_rest:
            step = self.joints.brake()
            sent = self._send(step, now)
            self.ik.set_q(self.joints.q)
        self._publish(fb, self.joints.q if sent else None)
        return self._record(now, "braking", None, None, self.joints.q)

    def _xr(self, now: float, ctrl: ControllerState | None) -> ControllerState | None:
        """The controller state to act on; a new XR timeout releases the clutch and holds."""
        was = self.xr.timed_out
        ctrl = self.xr.update(now, ctrl)
        if self.xr.timed_out and not was:
            self.stats.xr_timeouts += 1
            self.needs_release = True
            self.clutch.release()
            logger.warning(
                "%s arm: no XR data for %.3f s: holding", self.side, self.xr.silent_for(now)
            )
        return ctrl

    def _idle_state(self) -> str:
        if self.xr.timed_out:
            return "xr_timeout"
        if not self.xr.ever:
            return "waiting_xr"
        return "needs_release" if self.needs_release else "idle"

    def _engaged(self, ctrl: ControllerState | None, fb: Feedback | None) -> bool:
        pressed = ctrl is not None and self.clutch.pressed(ctrl.grip)
        if not pressed:
            self.needs_release = self.needs_release and self.xr.timed_out
            self.clutch.release()
            return False
        if self.needs_release:
            return False
        if not self.clutch.anchored and not self.workspace.contains(self.ik.ee_pose().p):
            self._refuse(self.ik.ee_pose().p)
            return False
        return True

    def _refuse(self, p: np.ndarray) -> None:
        """Engaging outside the workspace: say which bound, and how to get back."""
        self.stats.engage_refused += 1
        self.needs_release = True
        self.refused_why = self.workspace.violation(p)
        logger.warning(
            "%s arm: end effector at %s m is outside the workspace (%s): not engaging; %s "
            "(%s for this arm), or widen the workspace in the rig config",
            self.side,
            np.round(p, 3).tolist(),
            self.refused_why,
            RESET_HINT,
            _BUTTON.get(self.side, "the primary button"),
        )

    def _track(self, ctrl: ControllerState, fb: Feedback | None) -> tuple[JointStep, Pose]:
        """One engaged cycle: clutch → Cartesian limits → IK → joint limits, on plain floats."""
        t0 = perf_counter()
        was = self.clutch.anchored
        if not was and fb is not None and self.joints.at_rest:
            self._seed(fb.q)  # engage from rest: start where the arm is
        pose = self.xr.pose  # ctrl's pose (the state in force), as plain floats
        prev = self._prev_target
        self.stats.engaged_cycles += 1
        fast, flat = None, None
        if self._native is not None and was and prev is not None:  # compiled: no limit binds?
            fast = self._native.target(
                self._plan.address, pose, self.clutch.anchors, *prev, self.ik.T_address
            )  # (its matrix is written into the IK's target)
        if fast is not None:
            p, q, raw = fast
            a = np.frombuffer(raw)  # (p, q) as one read-only array (a view of immutable bytes)
        else:
            p, q, flat = self._target(pose, was, prev)
            a = np.array(p + q)  # one array, the target's two parts are views of it
        t1 = perf_counter()
        reason = self.ik.advance(flat)
        t2 = perf_counter()
        if not reason:
            self._prev_target = (p, q)
            step = self.joints.step(self.ik.q_step)
        else:  # the previous target stays the one to limit against
            self.stats.ik_rejects[reason] += 1
            step = self.joints.brake()
        if reason or step.clamps:  # else the model is at the command (to round-off)
            self.stats.clamped(step.clamps)
            self.ik.set_q(step.q, self.joints.floats)
        row = self.timing.row
        row[TARGET], row[IK], row[LIMITS] = t1 - t0, t2 - t1, perf_counter() - t2
        return step, Pose(a[:3], a[3:])

    def _target(
        self, pose: list[float], was: bool, prev: tuple[list[float], list[float]] | None
    ) -> tuple[list[float], list[float], list[float]]:
        """Clutch → Cartesian limits → ``T_target`` flat (the compiled fast path's Python)."""
        p, q = self.clutch.follow(pose[:3], canonical_floats(pose[3:7]), self.ik.ee_pose)
        if not was or prev is None:
            anchor = self.clutch.anchor
            assert anchor is not None
            prev = (anchor.p.tolist(), anchor.q.tolist())
        p, q, clamps = self.cartesian.limit_floats(p, q, prev[0], prev[1])
        if clamps:
            self.stats.clamped(clamps)
        self._prev_target = prev  # what the step is limited against (a reject keeps it)
        return p, q, floats_to_flat(p, q)

    def _seed(self, q_measured: np.ndarray) -> None:
        """The limiter and the IK at the measured joints, clamped into the URDF limits."""
        q = np.clip(q_measured, self.ik.lower, self.ik.upper)
        self.joints.reset(q)
        self.ik.set_q(self.joints.q)

    def _hold(self, fb: Feedback | None) -> JointStep:
        self.clutch.release()
        self._prev_target = None
        step = self.joints.brake()
        if self.joints.at_rest and fb is not None:
            self.ik.set_q(np.clip(fb.q, self.ik.lower, self.ik.upper))  # anchor on the real arm
        else:
            self.ik.set_q(step.q)
        return step

    def _reset(self, now: float, ctrl: ControllerState) -> Cycle:
        """Reset the arm to its initial pose (the adapter decides how) and re-sync."""
        self.clutch.release()
        self._prev_target = None
        try:
            self.adapter.reset(now)
        except AdapterError as e:
            self._stop(f"reset failed: {e}")
            return self._stopped_cycle(now, None)
        fb = self._feedback(now)
        self._sync(fb.q if fb is not None else self.adapter.initial_q)
        self.needs_release = self.adapter.grip_release_after_reset
        self.stats.resets += 1
        logger.info("%s arm reset to its initial pose", self.side)
        self._publish(fb, self.joints.q)
        return self._record(now, "reset", ctrl, None, self.joints.q)

    # -- output ---------------------------------------------------------------------------
