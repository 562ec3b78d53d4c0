"""The real arm: a RealMan controller over its JSON protocol (TCP commands, UDP push feedback).

Joint targets go out as ``movej_canfd`` pass-through at the caller's control rate, in 0.001°
integers; feedback is the newest ``realtime_arm_joint_state`` datagram of the UDP push the
adapter points at itself (or, when configured, ``get_current_arm_state`` polls). The adapter
speaks the protocol itself in pure Python (``facts/realman_protocol.md``); the vendor SDK is
used only by the tests, to prove the emulator it is tested against is believable.

Safety: connecting never moves the arm (unless ``move_to_initial_pose_on_connect``), lost
feedback is an :class:`AdapterError` (never a fallback), nothing is sent while feedback is
stale, and :meth:`close` sends nothing at all.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from mjscope.teleop.adapters.base import AdapterError, ArmAdapter, Feedback
from mjscope.teleop.realman.config import DEFAULT_ADDRESS, RealManCfg, parse_address
from mjscope.teleop.realman.feedback import FeedbackSource, PushReceiver, start_feedback
from mjscope.teleop.realman.limits import SetCommand, joint_limit_commands, tool_limit_commands
from mjscope.teleop.realman.link import CommandLink, Waiter
from mjscope.teleop.realman.messages import (
    ARRIVAL_STATE,
    JointReport,
    command,
    confirmed,
    movej,
    movej_canfd,
    parse_arm_state,
)
from mjscope.teleop.realman.protocol import rad_to_wire

log = logging.getLogger(__name__)

CONNECT_FIX = (
    "check the address, the cable and that the controller is on "
    "(no arm? start one: mjscope rm-emulator --port PORT)"
)
FIRST_FEEDBACK_S = 1.0  # how long connect() waits for the first push or poll [s]


class RealManAdapter(ArmAdapter):
    """One RealMan arm (RM75) behind its controller.

    Args:
        side: ``left`` or ``right``.
        joint_names: The arm's joint names, in the controller's joint order.
        initial_q: ``(n,)`` the initial pose [rad] (reset target).
        address: The controller's ``HOST:PORT``.
        cfg: Timeouts, feedback mode, reset speed (default :class:`RealManCfg`).
        clock: The caller's monotonic clock [s]; feedback stamps use it.

    Attributes:
        sent: ``movej_canfd`` commands sent.
        bad_replies: Bad TCP reply lines by reason (``not_json``, ``oversized``, ``bad_field`` …).
        bad_feedback: Refused push datagrams (or polls) by reason (``foreign_source``,
            ``wrong_state``, ``bad_field``, ``not_json`` …).
        unsolicited: Valid messages nobody waited for, by key (e.g. ``joint_state``).
    """

    kind = "real"
    grip_release_after_reset = True

    def __init__(
        self,
        side: str,
        joint_names: tuple[str, ...],
        initial_q: npt.ArrayLike,
        address: str = DEFAULT_ADDRESS,
        cfg: RealManCfg | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(side, joint_names, initial_q)
        self.cfg = cfg or RealManCfg()
        self.host, self.port = parse_address(address)
        self.where = f"{side} arm at {self.host}:{self.port}"
        self.clock = clock
        self.sent = 0
        self.bad_replies: Counter[str] = Counter()
        self.bad_feedback: Counter[str] = Counter()
        self.unsolicited: Counter[str] = Counter()
        self._received = 0  # feedback received on earlier connections
        self._link: CommandLink | None = None
        self._fb: FeedbackSource | None = None

    # -- connection ------------------------------------------------------------------------

    def connect(self) -> None:
        """Connect, check the arm answers with ``n`` joints and no error, start feedback.

        Raises:
            AdapterError: Cannot connect, no answer within the timeout, a wrong arm, an arm in
                error, or no feedback.
        """
        self.close()
        link = CommandLink(self.where, self.bad_replies, self.unsolicited)
        link.open(self.host, self.port, self.cfg.connect_timeout_s, CONNECT_FIX)
        self._link = link
        try:
            self._check_arm(self._arm_state())
            self._fb = start_feedback(
                link, self.cfg, len(self.joint_names), self.clock, self.bad_feedback
            )
            self._wait_feedback(after=-np.inf, within_s=FIRST_FEEDBACK_S)
        except AdapterError:
            self.close()
            raise
        log.info("%s: connected, %s feedback", self.where, self.cfg.feedback)
        if self.cfg.move_to_initial_pose_on_connect:
            try:
                self.reset(self.clock())
            except AdapterError:
                self.close()
                raise

    def close(self) -> None:
        """Stop feedback and close the connection; sends nothing, never moves the arm."""
        if self._fb is not None:
            self._fb.close()
            self._received += self._fb.received
        if self._link is not None:
            self._link.close()
        self._fb = self._link = None

    # -- the adapter contract ---------------------------------------------------------------

    def feedback(self, now: float) -> Feedback | None:
        """The newest joint feedback (stamped on ``clock`` when it arrived).

        Raises:
            AdapterError: Not connected, the connection ended, or the newest feedback is older
                than ``feedback_timeout_s`` (a safe stop).
        """
        return self._fresh(now)

    def send(self, q: npt.ArrayLike, now: float) -> None:
        """Send one joint target [rad] as ``movej_canfd`` (0.001° integers).

        Raises:
            AdapterError: A target of the wrong size or not finite, stale feedback (nothing is
                sent blind), or a failed send.
        """
        target = np.asarray(q, dtype=float)
        if target.shape != (len(self.joint_names),) or not np.all(np.isfinite(target)):
            raise AdapterError(
                f"{self.where}: refused target {target.tolist()}: need "
                f"{len(self.joint_names)} finite angles [rad]"
            )
        self._fresh(now)
        self._need_link().send(movej_canfd(rad_to_wire(target), self.cfg.follow))
        self.sent += 1

    def reset(self, now: float) -> None:
        """Move to ``initial_q`` through the controller (``movej``) and re-sync feedback.

        Raises:
            AdapterError: Refused, no arrival within ``reset_timeout_s``, or the feedback
                afterwards is not at the initial pose.
        """
        self._fresh(now)
        link = self._need_link()
        target = rad_to_wire(self.initial_q)
        arrival = link.expect(ARRIVAL_STATE)
        try:
            reply = self._request(movej(target, self.cfg.reset_speed_percent), "movej")
            if not confirmed(reply, "receive_state"):
                err = self._arm_state().err
                raise AdapterError(
                    f"{self.where}: the controller refused movej to the initial pose "
                    f"{np.round(np.degrees(self.initial_q), 3).tolist()} deg (error "
                    f"0x{err:04X}; 0x1002 = beyond a joint limit); fix initial_joint_pose_deg"
                )
            done = self._await_arrival(link, arrival)
        finally:
            link.forget(arrival)
        if done.get("trajectory_state") is not True:
            raise AdapterError(f"{self.where}: the reset move ended without arriving: {done}")
        self._wait_feedback(after=self.clock(), within_s=FIRST_FEEDBACK_S)
        self._check_at_initial_pose()

    def _await_arrival(self, link: CommandLink, arrival: Waiter) -> dict[str, Any]:
        """The arrival message of a reset; lost feedback meanwhile ends the wait at once.

        Raises:
            AdapterError: The feedback went stale (within ``feedback_timeout_s``), the
                connection closed, or no arrival within ``reset_timeout_s``.
        """
        deadline = time.monotonic() + self.cfg.reset_timeout_s
        slice_s = min(0.02, self.cfg.feedback_timeout_s / 4)
        while not arrival.event.wait(slice_s) and time.monotonic() < deadline:
            self._fresh(self.clock())  # raises on lost feedback or a closed connection
        if not arrival.event.is_set():
            raise AdapterError(
                f"{self.where}: no arrival at the initial pose within "
                f"{self.cfg.reset_timeout_s:g} s; the controller stopped answering"
            )
        return link.wait(arrival, 0.0, "arrival at the initial pose")

    def configure_limits(
        self,
        *,
        joint_max_speed_rad_s: float | Sequence[float] | None = None,
        joint_max_acc_rad_s2: float | Sequence[float] | None = None,
        line_speed_m_s: float | None = None,
        line_acc_m_s2: float | None = None,
        angular_speed_rad_s: float | None = None,
        angular_acc_rad_s2: float | None = None,
    ) -> None:
        """Set the controller's own limits (only those given); the only way this package does.

        Args:
            joint_max_speed_rad_s: Per joint (or one for all) [rad/s].
            joint_max_acc_rad_s2: Per joint (or one for all) [rad/s²]; ≥ 1.5 × speed.
            line_speed_m_s: Tool-tip linear speed [m/s].
            line_acc_m_s2: Tool-tip linear acceleration [m/s²]; ≥ 3 × speed.
            angular_speed_rad_s: Tool-tip angular speed [rad/s].
            angular_acc_rad_s2: Tool-tip angular acceleration [rad/s²]; ≥ 3 × speed.

        Raises:
            ConfigError: A value breaks the controller's rules (nothing is sent then).
            AdapterError: The controller refused or did not answer.
        """
        n = len(self.joint_names)
        todo = joint_limit_commands(n, joint_max_speed_rad_s, joint_max_acc_rad_s2)
        todo += tool_limit_commands(
            {
                "line_speed_m_s": line_speed_m_s,
                "line_acc_m_s2": line_acc_m_s2,
                "angular_speed_rad_s": angular_speed_rad_s,
                "angular_acc_rad_s2": angular_acc_rad_s2,
            }
        )
        for cmd in todo:
            self._set(cmd)

    def ack_after(self, t: float) -> float | None:
        """When the arm's first report after ``t`` arrived [s] (the ``ack`` stage of a cycle)."""
        return self._fb.first_after(t) if self._fb is not None else None

    @property
    def push_address(self) -> tuple[str, int] | None:
        """The local UDP address receiving the push (``None`` when polling or closed)."""
        return self._fb.address if isinstance(self._fb, PushReceiver) else None

    def stats(self) -> dict[str, Any]:
        """Counters for a report: commands sent, feedback received, bad input by reason."""
        fb = self._fb
        return {
            "sent": self.sent,
            "feedback_received": self._received + (fb.received if fb else 0),
            "bad_replies": dict(self.bad_replies),
            "bad_feedback": dict(self.bad_feedback),
            "unsolicited": dict(self.unsolicited),
        }

    # -- helpers ----------------------------------------------------------------------------

    def _need_link(self) -> CommandLink:
        if self._link is None:
            raise AdapterError(f"{self.where}: not connected; call connect() first")
        return self._link

    def _request(self, msg: dict[str, Any], key: str) -> dict[str, Any]:
        return self._need_link().request(msg, key, self.cfg.reply_timeout_s)

    def _arm_state(self) -> JointReport:
        reply = self._request(command("get_current_arm_state"), "current_arm_state")
        report = parse_arm_state(reply, len(self.joint_names))
        if report is None:
            self.bad_replies["bad_field"] += 1
            raise AdapterError(
                f"{self.where}: get_current_arm_state gave no {len(self.joint_names)}-joint "
                f"state ({str(reply)[:120]}); is this arm a {len(self.joint_names)}-DoF RM75?"
            )
        return report

    def _check_arm(self, report: JointReport) -> None:
        if report.err:
            raise AdapterError(
                f"{self.where}: the controller reports error 0x{report.err:04X}; clear it "
                "(teach pendant, or clear_system_err) before teleoperating"
            )

    def _wait_feedback(self, after: float, within_s: float) -> None:
        """Wait for feedback stamped later than ``after``."""
        assert self._fb is not None
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            fb = self._fb.newest()
            if fb is not None and fb.stamp > after:
                return
            time.sleep(0.001)
        how = "realtime push" if self.cfg.feedback == "push" else "arm state poll"
        raise AdapterError(
            f"{self.where}: no {how} arrived within {within_s:g} s; check that a firewall "
            "lets UDP from the controller in, or set feedback: poll"
        )

    def _fresh(self, now: float) -> Feedback:
        link = self._need_link()
        if link.closed_why:
            raise AdapterError(f"{self.where}: {link.closed_why}; safe stop, reconnect")
        assert self._fb is not None
        fb = self._fb.newest()
        age = now - fb.stamp if fb is not None else np.inf
        if fb is None or age > self.cfg.feedback_timeout_s:
            raise AdapterError(
                f"{self.where}: feedback lost (newest {age:.3f} s old, limit "
                f"{self.cfg.feedback_timeout_s:g} s); safe stop, check the network and the "
                "controller"
            )
        return fb

    def _check_at_initial_pose(self) -> None:
        fb = self._fresh(self.clock())
        off = np.degrees(np.abs(fb.q - self.initial_q))
        if np.max(off) > self.cfg.reset_tolerance_deg:
            raise AdapterError(
                f"{self.where}: after the reset the arm is {np.max(off):.3f} deg from the "
                f"initial pose (tolerance {self.cfg.reset_tolerance_deg:g} deg)"
            )

    def _set(self, cmd: SetCommand) -> None:
        reply = self._request(cmd.msg, cmd.msg["command"])
        if not confirmed(reply, cmd.field):
            raise AdapterError(f"{self.where}: the controller refused {cmd.msg}")
