"""Cyclone DDS transport: ROS 2 wire types and QoS, and the mirror across two processes.

Cross-process tests use a separate publisher process that declares the ROS 2 types itself
(independent of mjscope's declarations), on a per-run domain id away from 0. All traffic stays
on the loopback interface: mjscope's transports run with ``localhost_only``, the plain
Cyclone DDS publisher with a loopback ``CYCLONEDDS_URI``.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import mujoco
import numpy as np
import pytest

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport import make_transport
from mjscope.bridge.transport.dds import DdsTransport
from mjscope.bridge.transport.ros2_types import JointState_, String_, Time_, from_wire, to_wire
from mjscope.exceptions import MjscopeError
from mjscope.mirror.config import RenderCfg, load_rig_cfg
from mjscope.mirror.mirror import Mirror
from mjscope.models import JointIndex, load
from tests.utils import assert_close

DOMAIN = 101 + os.getpid() % 120  # one domain per test run; never the default 0
DISCOVERY_S = 20.0  # generous: the machine is shared
LOOPBACK_URI = (  # for the plain Cyclone DDS publisher process
    '<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1" '
    'multicast="true"/></Interfaces></General></Domain></CycloneDDS>'
)

PUBLISHER = r"""
import sys, time
from dataclasses import dataclass
from cyclonedds.core import Policy, Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.annotations import final
from cyclonedds.idl.types import float64, int32, sequence, uint32
from cyclonedds.pub import DataWriter
from cyclonedds.topic import Topic

@final
@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32
    nanosec: uint32

@final
@dataclass
class Header(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time
    frame_id: str

@final
@dataclass
class JointState(IdlStruct, typename="sensor_msgs::msg::dds_::JointState_"):
    header: Header
    name: sequence[str]
    position: sequence[float64]
    velocity: sequence[float64]
    effort: sequence[float64]

domain, base, mode = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
rel = Policy.Reliability.Reliable(0) if mode == "reliable" else Policy.Reliability.BestEffort
depth = 10 if mode == "reliable" else 5
qos = Qos(rel, Policy.Durability.Volatile, Policy.History.KeepLast(depth))
dp = DomainParticipant(domain)
writers = {}
for side in ("left", "right"):
    topic = Topic(dp, f"rt/xr_rm/{side}_rm75/joint_states", JointState)
    writers[side] = DataWriter(dp, topic, qos=qos)
print("ready", flush=True)
k = 0
while True:
    for side, w in writers.items():
        sign = 1.0 if side == "left" else -1.0
        names = [f"{side}_joint{i}" for i in range(7, 0, -1)]  # reversed order on purpose
        pos = [sign * (base + 0.001 * k + 0.01 * i) for i in range(7, 0, -1)]
        t = time.time()
        w.write(JointState(Header(Time(int(t), int((t % 1) * 1e9)), ""), names, pos, [], []))
    k += 1
    time.sleep(1 / 90)
"""


def test_ros2_type_names_and_plain_cdr_header() -> None:
    assert JointState_.__idl_typename__ == "sensor_msgs::msg::dds_::JointState_"
    assert Time_.__idl_typename__ == "builtin_interfaces::msg::dds_::Time_"
    assert String_.__idl_typename__ == "std_msgs::msg::dds_::String_"
    msg = JointState(Stamp(3, 5), "base", ["a", "b"], [1.0, 2.0], [], [0.5, 0.25])
    raw = to_wire(msg).serialize()
    assert raw[:4] == b"\x00\x01\x00\x00"  # CDR_LE, plain CDR (XCDR1)
    # After the header: sec=3, nanosec=5 (little endian), then frame_id "base\0" with length 5.
    assert raw[4:12] == (3).to_bytes(4, "little") + (5).to_bytes(4, "little")
    assert raw[12:16] == (5).to_bytes(4, "little") and raw[16:21] == b"base\x00"
    back = from_wire(JointState_.deserialize(raw))
    assert back == msg


def test_conversion_errors_are_mjscope_errors() -> None:
    with pytest.raises(MjscopeError, match="JointState or str"):
        to_wire(42)
    with pytest.raises(MjscopeError, match="cannot publish"):
        to_wire(JointState(name=["a"], position=["x"]))


@pytest.mark.parametrize("bad", [-1, 233, "7", True])
def test_bad_domain_id_names_the_valid_range(bad: object) -> None:
    with pytest.raises(MjscopeError, match=r"0\.\.232"):
        DdsTransport(domain_id=bad)  # type: ignore[arg-type]


def wait_for(cond: Callable[[], bool], timeout: float = DISCOVERY_S) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return False


def test_in_process_joint_states_and_string_commands() -> None:
    with make_transport("dds", domain_id=DOMAIN, localhost_only=True) as t:
        sub = t.subscriber("/test/cmd", str)
        js_sub = t.subscriber("/test/js", JointState)
        pub, js_pub = t.publisher("/test/cmd", str), t.publisher("/test/js", JointState)
        assert wait_for(lambda: sub.publisher_count() == 1 and js_sub.publisher_count() == 1)
        assert pub.subscriber_count() == 1  # type: ignore[attr-defined]
        pub.publish("reset")
        msg = JointState(Stamp(1, 2), "", ["j1", "j2"], [0.1, -0.2], [0.0, 0.0], [])
        js_pub.publish(msg)
        got: list = []
        assert wait_for(lambda: bool(got.extend(sub.take()) or got))
        assert got == ["reset"]
        assert t.wait_any(5.0)
        assert wait_for(lambda: bool(got.extend(js_sub.take()) or len(got) > 1))
        assert got[1] == msg
        js_pub.close()
        assert wait_for(lambda: js_sub.publisher_count() == 0)


@pytest.fixture()
def publishers() -> Iterator[Callable[..., subprocess.Popen]]:
    procs: list[subprocess.Popen] = []

    def start(base: float, mode: str = "reliable") -> subprocess.Popen:
        p = subprocess.Popen(
            [sys.executable, "-c", PUBLISHER, str(DOMAIN), str(base), mode],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "CYCLONEDDS_URI": LOOPBACK_URI},
        )
        procs.append(p)
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        return p

    yield start
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait(timeout=10)


def test_mirror_across_processes_holds_pose_and_warns_on_second_publisher(
    publishers: Callable[..., subprocess.Popen], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mjscope.mirror.mirror")
    model = load("dual_rm75")
    data = mujoco.MjData(model)
    idx = JointIndex(model)
    left = [f"left_joint{i}" for i in range(1, 8)]
    right = [f"right_joint{i}" for i in range(1, 8)]
    render = RenderCfg(stale_after_s=0.3, publisher_check_interval_s=0.05)
    with DdsTransport(domain_id=DOMAIN, localhost_only=True) as bus:
        mirror = Mirror(model, data, load_rig_cfg(), render, bus)

        def after_update(cond: Callable[[], bool]) -> Callable[[], bool]:
            return lambda: (mirror.update(), cond())[1]

        first = publishers(1.0, "reliable")
        assert wait_for(after_update(lambda: mirror.ready)), "no frames from the publisher"
        ql = data.qpos[idx.scalar_qpos_addresses(left)]
        qr = data.qpos[idx.scalar_qpos_addresses(right)]
        # Names arrive in reversed order; each joint gets its own value, arms never cross.
        assert_close(np.diff(ql), [0.01] * 6, atol=1e-9)
        assert_close(qr, -ql, atol=0.05)
        assert np.all(ql >= 1.0) and np.all(qr <= -1.0)

        second = publishers(5.0, "best_effort")  # a sensor_data (best-effort) ROS 2 publisher
        warned = lambda: any("2 publishers on" in r.getMessage() for r in caplog.records)  # noqa: E731
        assert wait_for(after_update(warned)), "no multi-publisher warning"
        assert wait_for(after_update(lambda: bool(data.qpos.max() >= 5.0)))  # best-effort in

        for p in (first, second):
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=10)
        time.sleep(0.3)
        mirror.update()  # drain what was in flight
        held = data.qpos.copy()
        t_end = time.monotonic() + 1.0
        while time.monotonic() < t_end:
            mirror.update()
            time.sleep(0.02)
        assert_close(data.qpos, held, atol=0.0, what="pose after the publishers died")
        assert all(s.stale for s in mirror.status())
        rep = mirror.report()
        assert all(t["max_publisher_count"] == 2 for t in rep["topics"].values())
        assert all(t["rejected"] == 0 for t in rep["topics"].values())


@pytest.mark.parametrize("kind", ["inproc", "dds"])
def test_every_transport_keeps_the_contract(kind: str) -> None:
    from mjscope.bridge.transport import TRANSPORTS

    assert kind in TRANSPORTS
    opts = {"domain_id": DOMAIN, "localhost_only": True} if kind == "dds" else {}
    with make_transport(kind, **opts) as t:
        sub = t.subscriber("/contract/js", JointState, depth=3)
        pub = t.publisher("/contract/js", JointState)
        assert wait_for(lambda: sub.publisher_count() == 1)
        for k in range(5):  # more than depth: the oldest are dropped
            pub.publish(JointState(Stamp(k, 0), "", ["j"], [float(k)], [], []))
        got: list = []
        assert wait_for(lambda: bool(got.extend(sub.take()) or (got and got[-1].stamp.sec == 4)))
        assert 1 <= len(got) <= 3 and [m.position[0] for m in got] == sorted(
            m.position[0] for m in got
        )
        pub.publish(JointState(Stamp(9, 0), "", ["j"], [9.0], [], []))
        pub.publish(JointState(Stamp(10, 0), "", ["j"], [10.0], [], []))
        polled: list = []

        def poll_until_ten() -> bool:
            m = sub.poll()
            if m is not None:
                polled.append(m.position[0])
            return bool(polled) and polled[-1] == 10.0

        assert wait_for(poll_until_ten)
        assert polled in ([10.0], [9.0, 10.0])  # poll hands back the newest, dropping older
        assert sub.poll() is None
        pub.close()
        assert wait_for(lambda: sub.publisher_count() == 0)
        sub.close()
        assert sub.take() == []


MJ_PUBLISHER = r"""
import sys, time
from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.dds import DdsTransport
with DdsTransport(int(sys.argv[1]), localhost_only=True) as t:
    sides = ("left", "right")
    pubs = {s: t.publisher(f"/xr_rm/{s}_rm75/joint_states", JointState) for s in sides}
    print("ready", flush=True)
    while True:
        for s, p in pubs.items():
            names = [f"{s}_joint{i}" for i in range(1, 8)]
            p.publish(JointState(Stamp.now(), "", names, [0.1] * 7))
        time.sleep(0.01)
"""


def test_report_publisher_count_is_what_dds_says_when_the_report_is_written() -> None:
    """A killed publisher (no goodbye) is gone from the report within its lease, not ~10 s."""
    from mjscope.bridge.transport.dds_config import LEASE_S

    model = load("dual_rm75")
    rig = load_rig_cfg()
    never = RenderCfg(publisher_check_interval_s=1e9)  # no interval refresh could help
    with DdsTransport(domain_id=DOMAIN, localhost_only=True) as bus:
        mirror = Mirror(model, mujoco.MjData(model), rig, never, bus)
        p = subprocess.Popen(
            [sys.executable, "-c", MJ_PUBLISHER, str(DOMAIN)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
            assert wait_for(lambda: (mirror.update(), mirror.ready)[1]), "no frames"

            def counts() -> list[int]:
                return [t["publisher_count"] for t in mirror.report()["topics"].values()]

            assert counts() == [1, 1]
        finally:
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=10)
        killed = time.monotonic()
        assert wait_for(lambda: counts() == [0, 0], timeout=LEASE_S + 5.0)  # report() only
        gone_after = time.monotonic() - killed
        assert gone_after < LEASE_S + 1.5, f"the report said 1 publisher {gone_after:.1f} s on"
        rep = mirror.report()["topics"]
        assert all(t["max_publisher_count"] == 1 for t in rep.values())
