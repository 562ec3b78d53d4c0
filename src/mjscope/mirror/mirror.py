"""The kinematic mirror: live ``JointState`` frames → ``qpos`` by joint name → ``mj_forward``.

Every frame is validated whole (:func:`validate_joint_state`, all of a side's joints required);
a rejected frame changes nothing and is counted by reason. Only the newest valid frame per side
reaches ``qpos`` (coalescing), then ``mj_forward`` runs once; ``mj_step`` is never called, so
MuJoCo invents no motion. Until every side has sent one valid frame the mirror is not ``ready``
and says which side it waits for; a side that goes quiet keeps its last pose and is reported
stale; more than one publisher on a state topic is warned about, naming the topic and count.

Publisher counts are what the transport says at every update (and at report time while the run
is on), never a value cached over an interval. A sample the transport could not decode arrives
as an :class:`~mjscope.bridge.messages.UndecodableSample` and is counted like any rejected
frame (reason ``undecodable`` or ``too_large``).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any

import mujoco

from mjscope.bridge.messages import JointState
from mjscope.bridge.transport.base import Transport
from mjscope.bridge.validation import InvalidFrame, validate_joint_state
from mjscope.mirror.config import RenderCfg, RigCfg
from mjscope.mirror.sides import MirrorSide, SideStatus, check_disjoint
from mjscope.models.indexing import JointIndex

logger = logging.getLogger(__name__)

SUBSCRIBER_DEPTH = 1000  # unread frames kept per topic between two updates


class Mirror:
    """Mirrors the configured sides of a rig onto a MuJoCo model by joint name.

    Args:
        model: Compiled model holding every side's (mapped) joints.
        data: Its data; ``qpos`` is written here, then ``mj_forward``.
        rig: Sides to mirror.
        render: Staleness and reporting intervals.
        transport: Subscribes to each side's state topic; ``None`` → feed frames with
            :meth:`ingest`.
        clock: Monotonic clock [s] (injectable for tests).

    Raises:
        UnknownNameError: A side's joint is not in the model (the message says how to map it).
        ConfigError: Two sides map onto the same model joint.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        rig: RigCfg,
        render: RenderCfg | None = None,
        transport: Transport | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.model, self.data = model, data
        self.cfg = render or RenderCfg()
        self._clock = clock
        index = JointIndex(model)
        self.sides = {name: MirrorSide(name, s, index) for name, s in rig.sides.items()}
        check_disjoint(self.sides)
        if transport is not None:
            for s in self.sides.values():
                s.sub = transport.subscriber(s.cfg.state_topic, JointState, SUBSCRIBER_DEPTH)
        self.started = clock()
        self._last_wait_report = self.started
        self._last_pub_check = -math.inf
        self._pub_warned: dict[str, tuple[int, float]] = {}
        self.forward_calls = 0
        self.stopped_at: float | None = None

    @property
    def ready(self) -> bool:
        """Whether every side has delivered at least one valid frame."""
        return all(s.stats.valid > 0 for s in self.sides.values())

    def missing_sides(self) -> list[str]:
        """Sides that have not delivered a valid frame yet."""
        return [n for n, s in self.sides.items() if s.stats.valid == 0]

    def ingest(self, side: str, msg: Any, now: float | None = None) -> bool:
        """Validate one received frame of ``side``; keep it as that side's newest if valid.

        Args:
            side: Side name.
            msg: The received message (untrusted).
            now: Receive time on the mirror's clock [s].

        Returns:
            Whether the frame was valid.
        """
        s = self.sides[side]
        st = s.stats
        now = self._clock() if now is None else now
        st.receive(now)
        try:
            frame = validate_joint_state(msg, s.expected, require_all=True)
        except InvalidFrame as e:
            st.rejects.reject(e)
            return False
        st.valid += 1
        st.last_stamp = frame.stamp
        st.last_valid_at = now
        s.pending = frame
        return True

    def apply(self, side: str, msg: Any, now: float | None = None) -> bool:
        """Validate one frame and, if valid, write it to ``qpos`` and forward at once.

        The single-frame path (tests, benchmarks); :meth:`update` coalesces instead.

        Returns:
            Whether the frame was valid (and applied).
        """
        if not self.ingest(side, msg, now):
            return False
        self._apply_pending()
        mujoco.mj_forward(self.model, self.data)
        self.forward_calls += 1
        return True

    def update(self, now: float | None = None) -> bool:
        """Take every queued frame, apply the newest valid one per side, forward once.

        Args:
            now: Current time on the mirror's clock [s] (default: the clock).

        Returns:
            Whether ``qpos`` changed (``mj_forward`` ran).
        """
        now = self._clock() if now is None else now
        for name, s in self.sides.items():
            if s.sub is not None:
                for msg in s.sub.take():
                    self.ingest(name, msg, now)
            s.stats.sample(now)
        self.refresh_publishers()
        changed = self._apply_pending()
        if changed:
            mujoco.mj_forward(self.model, self.data)
            self.forward_calls += 1
        self._watch(now)
        return changed

    def _apply_pending(self) -> bool:
        changed = False
        qpos = self.data.qpos
        for s in self.sides.values():
            if s.pending is not None:
                qpos[s.addresses(s.pending.names)] = s.pending.position
                s.pending = None
                changed = True
        return changed

    def _watch(self, now: float) -> None:
        """Waiting reports, staleness, publisher counts (each at its own interval)."""
        if not self.ready and now - self._last_wait_report >= self.cfg.wait_report_interval_s:
            self._last_wait_report = now
            self._report_waiting()
        for s in self.sides.values():
            self._watch_stale(s, now)
        if now - self._last_pub_check >= self.cfg.publisher_check_interval_s:
            self._last_pub_check = now
            self._warn_publishers(now)

    def _report_waiting(self) -> None:
        for name in self.missing_sides():
            st = self.sides[name].stats
            why = (
                f"{st.rejects.total} frame(s) rejected {st.rejects.as_dict()}"
                if st.received
                else f"no frame yet, {st.publishers} publisher(s)"
            )
            logger.warning("waiting for side %r on %s: %s", name, st.topic, why)

    def _watch_stale(self, s: MirrorSide, now: float) -> None:
        if s.stats.valid == 0:
            return
        stale = s.stats.age(now) > self.cfg.stale_after_s
        if stale and not s.stale:
            logger.warning(
                "side %r (%s): no valid frame for %.2f s; holding its last pose",
                s.name,
                s.stats.topic,
                s.stats.age(now),
            )
        elif s.stale and not stale:
            logger.info("side %r (%s): frames again", s.name, s.stats.topic)
        s.stale = stale

    def refresh_publishers(self) -> None:
        """Ask the transport how many publishers each state topic has now (a cheap query)."""
        for s in self.sides.values():
            if s.sub is not None:
                st = s.stats
                st.publishers = s.sub.publisher_count()
                st.max_publishers = max(st.max_publishers, st.publishers)

    def check_publishers(self, now: float | None = None) -> None:
        """Refresh publisher counts; warn when a state topic has more than one publisher."""
        self.refresh_publishers()
        self._warn_publishers(self._clock() if now is None else now)

    def _warn_publishers(self, now: float) -> None:
        for s in self.sides.values():
            if s.sub is None:
                continue
            st = s.stats
            n = st.publishers
            last_n, last_t = self._pub_warned.get(st.topic, (1, -math.inf))
            if n > 1 and (n != last_n or now - last_t >= 10.0):
                logger.warning(
                    "%d publishers on %s: states from several sources (two launches?) would "
                    "mix; stop all but one",
                    n,
                    st.topic,
                )
                self._pub_warned[st.topic] = (n, now)
            elif n <= 1:
                self._pub_warned.pop(st.topic, None)

    def status(self, now: float | None = None) -> list[SideStatus]:
        """Per side: rate, counts, age, staleness, publishers."""
        now = self._clock() if now is None else now
        wall = time.time()
        return [
            SideStatus(
                n,
                s.stats.topic,
                s.stats.rate_hz(),
                s.stats.valid,
                s.stats.rejects.total,
                s.stats.age(now),
                s.stale,
                s.stats.publishers,
                math.inf if s.stats.last_stamp is None else wall - s.stats.last_stamp,
                s.stats.rejects.as_dict(),
            )
            for n, s in self.sides.items()
        ]

    def joint_positions(self) -> dict[str, float]:
        """Mirrored positions [rad] by model joint name (what ``qpos`` holds now)."""
        out: dict[str, float] = {}
        for s in self.sides.values():
            for msg_name, model_name in s.model_names.items():
                out[model_name] = float(self.data.qpos[s.addr[msg_name]])
        return out

    def report(self, now: float | None = None, wall_now: float | None = None) -> dict[str, Any]:
        """The run report: per topic counts, rates and ages; final joint positions by name.

        ``publisher_count`` is what the transport says now while the run is on, else what it
        said at the run's last update (the transport may be closed by the time a report of a
        finished run is written).

        Args:
            now: End of the run on the mirror's clock [s] (default: ``stopped_at`` or now).
            wall_now: Wall-clock time [s], to age header stamps.
        """
        if self.stopped_at is None:
            self.refresh_publishers()
        if now is None:
            now = self.stopped_at if self.stopped_at is not None else self._clock()
        wall = time.time() if wall_now is None else wall_now
        return {
            "duration_s": round(now - self.started, 3),
            "ready": self.ready,
            "waiting_for": self.missing_sides(),
            "topics": {
                s.stats.topic: {"side": n, **s.stats.as_dict(now, wall)}
                for n, s in self.sides.items()
            },
            "stale_sides": [n for n, s in self.sides.items() if s.stale],
            "joint_positions_rad": self.joint_positions() if self.ready else {},
        }
