"""Settings of the controller emulator: what it emulates, and the faults it injects."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Faults:
    """Injected faults; change them at any time, they apply from the next message.

    Attributes:
        latency_s: Added delay of every reply and push datagram [s].
        jitter_s: Each reply and datagram is delayed by a further uniform 0 .. ``jitter_s``
            (replies keep their order, as TCP does; datagrams may overtake each other) [s].
        drop: Probability of losing each push datagram (UDP loss), 0 .. 1.
        disconnect_after_s: The controller goes away this long after it started: every
            connection closes, the push stops and new connections are refused [s]
            (``None``: never).
        seed: Seed of the random draws (jitter, drops).
        drop_replies: Answer nothing (motion commands still act).
        silent: Stop answering altogether: no replies, no arrival messages, no push.
        malformed_replies: Replace every reply by a broken line.
        malformed_push: Replace every push datagram by a broken one.
        arm_err: An error code reported in states and pushes (e.g. 0x1002), 0 = none.
    """

    latency_s: float = 0.0
    jitter_s: float = 0.0
    drop: float = 0.0
    disconnect_after_s: float | None = None
    seed: int = 0
    drop_replies: bool = False
    silent: bool = False
    malformed_replies: bool = False
    malformed_push: bool = False
    arm_err: int = 0


@dataclass(frozen=True)
class RmEmulatorCfg:
    """One emulated controller.

    Attributes:
        host: Address to listen on (loopback).
        port: TCP port of the JSON protocol; 0 picks a free one.
        arm: Arm model (``rm75``).
        push_port: Push target port on 127.0.0.1 at power-on; ``None``: push off until a
            client sends ``set_realtime_push``.
        push_cycle: Push period at power-on, in 5 ms units.
        initial_joints_deg: Power-on joint angles [deg] (default all zero; ``mjscope
            rm-emulator`` passes the rig's ``initial_joint_pose_deg``).
        max_clients: Connections served at once; more are closed at once.
    """

    host: str = "127.0.0.1"
    port: int = 8080
    arm: str = "rm75"
    push_port: int | None = None
    push_cycle: int = 1
    initial_joints_deg: tuple[float, ...] | None = None
    max_clients: int = 4
