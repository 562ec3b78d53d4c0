"""Settings of the RealMan adapter (defaults in code; teleop passes the address in)."""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass, fields

from mjscope.exceptions import ConfigError

DEFAULT_ADDRESS = "192.168.1.18:8080"  # the controller's factory address
FEEDBACK_MODES = ("push", "poll")


@dataclass(frozen=True)
class RealManCfg:
    """How the adapter talks to one controller.

    Attributes:
        connect_timeout_s: TCP connect timeout [s].
        reply_timeout_s: How long a query waits for its reply [s] (the vendor SDK: 0.5).
        feedback: ``push`` (UDP realtime push, the default) or ``poll``
            (``get_current_arm_state`` over TCP; a fallback, slower).
        push_ip: Local address to receive the push on and to name as its target; ``""`` uses
            this end of the TCP connection (the interface that reaches the controller).
        push_port: Local UDP port for the push; 0 picks a free one.
        push_cycle: Push period in units of 5 ms (1 = 5 ms), also the poll period.
        feedback_timeout_s: Feedback older than this is lost feedback: a safe stop [s].
        follow: ``movej_canfd`` high follow (needs a send period ≤ 10 ms); default low.
        reset_speed_percent: ``movej`` speed of a reset, % of the joints' limits (1–100).
        reset_timeout_s: How long a reset waits for the arrival message [s].
        reset_tolerance_deg: Feedback after a reset must be this close to the pose [deg].
        move_to_initial_pose_on_connect: Reset once after connecting. Off: connecting never
            moves an arm.
    """

    connect_timeout_s: float = 2.0
    reply_timeout_s: float = 1.0
    feedback: str = "push"
    push_ip: str = ""
    push_port: int = 0
    push_cycle: int = 1
    feedback_timeout_s: float = 0.25
    follow: bool = False
    reset_speed_percent: int = 20
    reset_timeout_s: float = 30.0
    reset_tolerance_deg: float = 0.5
    move_to_initial_pose_on_connect: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            number = isinstance(v, (int, float)) and not isinstance(v, bool)
            if f.name.endswith(("_s", "_deg")) and not (number and math.isfinite(v) and v > 0):
                raise ConfigError(f"realman.{f.name} = {v} must be a positive number")
        if self.feedback not in FEEDBACK_MODES:
            raise ConfigError(f"realman.feedback = {self.feedback!r}; valid: {FEEDBACK_MODES}")
        if not 1 <= self.reset_speed_percent <= 100:
            raise ConfigError(f"realman.reset_speed_percent = {self.reset_speed_percent}: 1-100")
        if not 1 <= self.push_cycle <= 200:
            raise ConfigError(f"realman.push_cycle = {self.push_cycle}: 1-200 (× 5 ms)")
        if not 0 <= self.push_port <= 65535:
            raise ConfigError(f"realman.push_port = {self.push_port}: 0-65535 (0 = any free)")
        if self.push_ip:
            _check_ip(self.push_ip, "realman.push_ip")

    @property
    def cycle_s(self) -> float:
        """The push (or poll) period [s]."""
        return self.push_cycle * 0.005


def parse_address(text: str) -> tuple[str, int]:
    """``"HOST:PORT"`` → ``(host, port)``.

    Raises:
        ConfigError: Not of that form, or the port is not 1–65535.
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(
            f"arm address {text!r} must be HOST:PORT with a port 1-65535, "
            f"e.g. {DEFAULT_ADDRESS} (the controller's default) or 127.0.0.1:8080 (an emulator)"
        )
    return host.strip("[]"), int(port)


def _check_ip(text: str, what: str) -> None:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        raise ConfigError(f"{what} = {text!r} must be an IPv4 address, e.g. 127.0.0.1") from None
