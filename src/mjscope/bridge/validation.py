"""Whole-frame validation of untrusted ``JointState`` messages.

A frame is either fully valid or rejected whole with one reason; nothing is applied from a
rejected frame. Reasons are stable strings, counted per topic by :class:`RejectCounter`.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from collections.abc import Collection, Sequence
from typing import NamedTuple

import numpy as np

from mjscope.bridge.messages import JointState, Stamp, UndecodableSample
from mjscope.exceptions import MjscopeError

logger = logging.getLogger(__name__)

REJECT_REASONS = (
    "undecodable",  # the transport could not decode the sample (bad CDR, names not UTF-8)
    "bad_type",  # not a JointState, or fields of the wrong kind
    "too_large",  # more entries than max_joints, or a sample over the transport's byte limit
    "wrong_count",  # more names than expected joints
    "duplicate",  # a name appears twice
    "unknown",  # a name not among the expected ones
    "missing",  # require_all and an expected name is absent
    "length_mismatch",  # a non-empty position/velocity/effort array differs in length from name
    "empty_position",  # no positions at all
    "non_numeric",  # a value is not a real number
    "non_finite",  # NaN or Inf
)


class InvalidFrame(MjscopeError):
    """A frame was rejected whole.

    Attributes:
        reason: One of :data:`REJECT_REASONS`.
        detail: Human-readable detail naming the offending value.
    """

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason}: {detail}")


class ValidFrame(NamedTuple):
    """A validated frame.

    Attributes:
        names: Joint names in message order.
        position: ``(n,)`` positions [rad or m].
        velocity: ``(n,)`` velocities, or ``None`` when the message had none.
        effort: ``(n,)`` efforts, or ``None`` when the message had none.
        stamp: Message stamp [s].
    """

    names: tuple[str, ...]
    position: np.ndarray
    velocity: np.ndarray | None
    effort: np.ndarray | None
    stamp: float


def validate_joint_state(
    msg: object,
    expected: Collection[str],
    *,
    require_all: bool = True,
    max_joints: int = 256,
) -> ValidFrame:
    """Check a frame against the expected joint names, whole or not at all.

    Args:
        msg: The received message (untrusted).
        expected: Joint names this consumer accepts (a ``frozenset`` saves building one per
            frame).
        require_all: Every expected name must be present exactly once (mirror); when False a
            subset is allowed (partial commands that merge with a previous goal).
        max_joints: Upper bound on array sizes (bounded work on hostile input).

    Returns:
        The validated frame.

    Raises:
        InvalidFrame: With a reason from :data:`REJECT_REASONS`.
    """
    fast = _fast_accept(msg, expected, require_all, max_joints)
    if fast is not None:
        return fast
    if isinstance(msg, UndecodableSample):
        raise InvalidFrame(msg.reason, msg.detail)
    if not isinstance(msg, JointState):
        raise InvalidFrame("bad_type", f"expected JointState, got {type(msg).__name__}")
    arrays = (msg.name, msg.position, msg.velocity, msg.effort)
    if not all(isinstance(a, list | tuple) for a in arrays):
        raise InvalidFrame("bad_type", "name/position/velocity/effort must be sequences")
    if any(len(a) > max_joints for a in arrays):
        raise InvalidFrame("too_large", f"more than {max_joints} entries")
    names = msg.name
    if not all(isinstance(n, str) for n in names):
        raise InvalidFrame("bad_type", "every name must be a string")
    expected_set = set(expected)
    if len(names) > len(expected_set):
        raise InvalidFrame("wrong_count", f"{len(names)} names, expected {len(expected_set)}")
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise InvalidFrame("duplicate", f"joint {n!r} appears twice")
        seen.add(n)
        if n not in expected_set:
            raise InvalidFrame("unknown", f"joint {n[:64]!r} is not one of this side's joints")
    if require_all and seen != expected_set:
        missing = sorted(expected_set - seen)
        raise InvalidFrame("missing", f"joint(s) {', '.join(missing)} missing")
    if not msg.position:
        raise InvalidFrame("empty_position", "the position array is empty")
    out = [
        _numbers(a, field, len(names))
        for field, a in (
            ("position", msg.position),
            ("velocity", msg.velocity),
            ("effort", msg.effort),
        )
    ]
    stamp = _stamp_seconds(msg)
    return ValidFrame(tuple(names), out[0], out[1], out[2], stamp)  # type: ignore[arg-type]


_STR = {str}
_FLOAT = {float}


def _fast_accept(
    msg: object, expected: Collection[str], require_all: bool, max_joints: int
) -> ValidFrame | None:
    """The common case in ~1/3 of the time: plain lists of ``str``/``float``, all valid.

    Returns the very frame the full checks would return, or ``None`` whenever anything is
    unusual (then the full checks run and name the reason). Accepts a subset of what they do.
    """
    if type(msg) is not JointState:
        return None
    names, stamp = msg.name, msg.stamp
    n = len(names) if type(names) is list else 0
    if n == 0 or n > max_joints or set(map(type, names)) != _STR:
        return None
    unique = set(names)
    expected_set = expected if isinstance(expected, frozenset) else frozenset(expected)
    if len(unique) != n or not unique <= expected_set:
        return None
    if require_all and n != len(expected_set):
        return None
    pos, vel, eff = (_fast_numbers(a, n) for a in (msg.position, msg.velocity, msg.effort))
    if not isinstance(pos, np.ndarray) or vel is False or eff is False:
        return None
    if type(stamp) is not Stamp or type(stamp.sec) is not int or type(stamp.nanosec) is not int:
        return None
    if abs(stamp.sec) > 2**62 or abs(stamp.nanosec) > 2**62:
        return None
    t = float(stamp.sec) + float(stamp.nanosec) * 1e-9
    return ValidFrame(tuple(names), pos, vel, eff, t)  # type: ignore[arg-type]


def _fast_numbers(values: object, n: int) -> np.ndarray | bool | None:
    """``(n,)`` array of finite plain floats, ``None`` if empty, ``False`` if anything else."""
    if type(values) is not list:
        return False
    if not values:
        return None
    if len(values) != n or set(map(type, values)) != _FLOAT:
        return False
    # A finite sum means every value is finite; a huge-but-finite overflow only sends the frame
    # to the full checks, which then accept it.
    if not math.isfinite(sum(values)):
        return False
    return np.array(values, dtype=float)


def _numbers(values: Sequence[object], field: str, n: int) -> np.ndarray | None:
    if len(values) == 0:
        return None
    if len(values) != n:
        raise InvalidFrame("length_mismatch", f"{field} has {len(values)} entries, name has {n}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int | float | np.floating | np.integer):
            raise InvalidFrame("non_numeric", f"{field} holds {str(v)[:32]!r}")
        try:
            finite = math.isfinite(float(v))
        except OverflowError:  # a Python int beyond float range
            finite = False
        if not finite:
            raise InvalidFrame("non_finite", f"{field} holds {str(v)[:32]}")
    return np.asarray(values, dtype=float)


def _stamp_seconds(msg: JointState) -> float:
    try:
        t = float(msg.stamp.sec) + float(msg.stamp.nanosec) * 1e-9
    except OverflowError as e:  # a Python int beyond float range
        raise InvalidFrame("non_finite", "stamp is out of range") from e
    except (AttributeError, TypeError, ValueError) as e:
        raise InvalidFrame("bad_type", "stamp must have numeric sec/nanosec") from e
    if not math.isfinite(t):
        raise InvalidFrame("non_finite", "stamp is not finite")
    return t


class RejectCounter:
    """Counts rejects by reason and logs them, at most once per ``log_interval`` seconds.

    Args:
        topic: Topic name used in log lines.
        log_interval: Minimum time between two log lines [s].
    """

    def __init__(self, topic: str, log_interval: float = 1.0) -> None:
        self.topic = topic
        self.counts: Counter[str] = Counter()
        self._interval = log_interval
        self._last_log = -math.inf
        self._suppressed = 0

    def reject(self, err: InvalidFrame) -> None:
        """Count one rejected frame and log it (rate-limited)."""
        self.counts[err.reason] += 1
        now = time.monotonic()
        if now - self._last_log >= self._interval:
            extra = f" (+{self._suppressed} more since last report)" if self._suppressed else ""
            logger.warning("rejected frame on %s: %s%s", self.topic, err, extra)
            self._last_log, self._suppressed = now, 0
        else:
            self._suppressed += 1

    @property
    def total(self) -> int:
        """Frames rejected so far."""
        return sum(self.counts.values())

    def as_dict(self) -> dict[str, int]:
        """Counts by reason (only reasons seen)."""
        return dict(sorted(self.counts.items()))
