"""The safety and output half of one arm's chain: feedback checks, safe stop, send, publish.

:class:`ArmChannel` owns what every cycle does around the teleop logic of
:class:`~mjscope.teleop.node.TeleopArm`: read and check the adapter's feedback (lost, stale,
a controller error or a non-finite angle latch a safe stop; the first cause is the one
reported), send a command within the joint limits, publish ``joint_states`` and
``joint_target``, time the ``send`` and ``ack`` stages, and record the cycle. Another thread
may ask for a safe stop (:meth:`ArmChannel.request_stop`); the arm acts on it at the start of
its next cycle. A stopped arm brakes to rest within ``joint_max_acc``, then sends nothing.
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np

from mjscope.bridge.transport.base import Transport
from mjscope.rig import SideCfg
from mjscope.teleop.adapters.base import AdapterError, ArmAdapter, Feedback
from mjscope.teleop.clutch import Clutch
from mjscope.teleop.cycle import Cycle
from mjscope.teleop.ik import ArmIk
from mjscope.teleop.joint_limits import JointLimiter, JointStep
from mjscope.teleop.poses import Pose
from mjscope.teleop.publish import ArmPublisher
from mjscope.teleop.stats import ArmStats
from mjscope.teleop.timing import ACK, SEND, StageLog
from mjscope.teleop.xr.base import ControllerState

logger = logging.getLogger("mjscope.teleop.node")  # one logger for the whole arm chain


class ArmChannel:
    """Feedback, safe stop and output of one arm.

    Args:
        side: Side name (``left`` / ``right``).
        cfg: The side's config (limits, clutch, timeouts, topics).
        ik: The arm's IK (model joints in ``cfg.joint_names`` order).
        adapter: The arm (mock or real), not connected yet.
        transport: Where ``joint_states`` / ``joint_target`` go (``None``: nowhere).
    """

    __slots__ = (
        "_ack_after",
        "_sent_at",
        "_stop_request",
        "adapter",
        "cfg",
        "clutch",
        "dt",
        "ik",
        "joints",
        "out",
        "side",
        "stats",
        "stopped",
        "timing",
    )

    def __init__(
        self,
        side: str,
        cfg: SideCfg,
        ik: ArmIk,
        adapter: ArmAdapter,
        transport: Transport | None = None,
    ) -> None:
        self.side, self.cfg, self.ik, self.adapter = side, cfg, ik, adapter
        self.dt = 1.0 / cfg.control_rate_hz
        self.clutch = Clutch(cfg.scale_factor, cfg.grip_threshold)
        self.joints = JointLimiter(
            ik.lower, ik.upper, cfg.joint_speed_limits(), cfg.joint_acc_limits(), self.dt, ik.q
        )
        self.stats = ArmStats()
        self.stopped = ""  # why the arm is in a latched safe stop ("" while it is not)
        self.out = ArmPublisher(transport, cfg)
        self.timing = StageLog()
        self._stop_request = ""  # a safe stop asked for by another thread
        self._sent_at: float | None = None  # when the last command left [s, caller's clock]
        self._ack_after = getattr(adapter, "ack_after", None)

    def _begin(self, now: float) -> Feedback | None:
        """Count the cycle, act on a requested stop, read and check the feedback."""
        if self._stop_request and not self.stopped:
            self._stop(self._stop_request)
        self.stats.cycle(now)
        fb = self._feedback(now)
        if self._sent_at is not None and self._ack_after is not None:
            ack = self._ack_after(self._sent_at)
            if ack is not None:
                self.timing.row[ACK] = ack - self._sent_at
                self._sent_at = None
        self._check_feedback(now, fb)
        return fb

    def _out(self, step: JointStep, now: float, t0: float) -> None:
        """Send the command, publish state and target; time the ``send`` stage."""
        t1 = time.perf_counter()
        sent = self._send(step, now)
        if sent and self._ack_after is not None:  # only an adapter with its own feedback
            self._sent_at = now + (time.perf_counter() - t0)
        self._publish(self._feedback(now), step.q if sent else None)
        self.timing.row[SEND] = time.perf_counter() - t1

    def request_stop(self, why: str) -> None:
        """Ask for a safe stop from another thread; the arm acts on it in its next cycle."""
        self._stop_request = why

    @property
    def stop_pending(self) -> bool:
        """Whether a requested safe stop has not been acted on yet."""
        return bool(self._stop_request) and not self.stopped

    @property
    def at_rest(self) -> bool:
        """Whether the last command did not move the arm."""
        return self.joints.at_rest

    def _feedback(self, now: float) -> Feedback | None:
        """The adapter's feedback; a lost one (the adapter raises) is a safe stop."""
        try:
            return self.adapter.feedback(now)
        except AdapterError as e:
            self._feedback_lost(e)
            return None

    def _feedback_lost(self, e: AdapterError) -> None:
        """The adapter raised on feedback: a safe stop (shared with the compiled cycle)."""
        if not self.stopped:
            self.stats.feedback_timeouts += 1
            self._stop(f"feedback lost: {e}")

    def _check_feedback(self, now: float, fb: Feedback | None) -> None:
        if self.stopped:
            return
        if fb is None or now - fb.stamp > self.cfg.feedback_timeout_s:
            self.stats.feedback_timeouts += 1
            self._stop(f"no joint feedback for over {self.cfg.feedback_timeout_s:g} s")
        elif fb.err:
            self._stop(f"the arm controller reports error {fb.err:#x}")
        elif not math.isfinite(sum(fb.q.tolist())):
            self._stop("the arm's feedback holds a non-finite angle")

    def _stop(self, why: str) -> None:
        if self.stopped:  # the first cause is the one reported
            logger.debug("%s arm: also: %s", self.side, why)
            return
        self.stopped = why
        self.clutch.release()
        logger.error("%s arm: safe stop: %s", self.side, why)

    def _stopped_cycle(self, now: float, fb: Feedback | None) -> Cycle:
        """Brake to rest (still within the limits), then send nothing more."""
        sent = False
        if not self.joints.at_rest:
            sent = self._send(self.joints.brake(), now)
        self._publish(fb, self.joints.q if sent else None)
        return self._record(now, "stopped", None, None, self.joints.q)

    def _send(self, step: JointStep, now: float) -> bool:
        try:
            self.adapter.send(step.q, now)
        except AdapterError as e:
            return self._send_failed(e)
        self.stats.commanded(step.v, step.v0, step.inv_dt)
        return True

    def _send_failed(self, e: AdapterError) -> bool:
        """A command not sent: a safe stop, at rest (shared with the compiled cycle)."""
        self._stop(f"command not sent: {e}")
        self.joints.reset(self.joints.q)  # at rest: nothing more will be sent
        return False

    def _publish(self, fb: Feedback | None, q_cmd: np.ndarray | None) -> None:
        self.out.publish(fb.q if fb is not None else None, q_cmd)

    def _record(
        self,
        now: float,
        state: str,
        ctrl: ControllerState | None,
        target: Pose | None,
        q: np.ndarray,
    ) -> Cycle:
        grip = ctrl.grip if ctrl is not None else float("nan")
        trigger = ctrl.trigger if ctrl is not None else float("nan")
        return Cycle(now, state, grip, trigger, target, q, self.timing.last())

    def close(self) -> None:
        """Close the adapter and the publishers (never moves the arm)."""
        self.adapter.close()
        self.out.close()
