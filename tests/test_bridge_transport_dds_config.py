"""Who can reach us: ``localhost_only``, ``ROS_LOCALHOST_ONLY``, ``CYCLONEDDS_URI``, domains.

The two-process test runs a real publisher with ``localhost_only`` and Cyclone DDS's own trace
of the interfaces it selected: only the loopback interface may be in use.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport import make_transport, transport_options
from mjscope.bridge.transport.dds import DdsTransport
from mjscope.bridge.transport.dds_config import (
    LEASE_S,
    MAX_DDS_SAMPLE_BYTES,
    cyclone_config,
)
from mjscope.exceptions import MjscopeError

DOMAIN = 101 + (os.getpid() + 71) % 120  # one domain per test run; never the default 0

PUBLISHER = r"""
import sys, time
from mjscope.bridge.messages import JointState, Stamp
from mjscope.bridge.transport.dds import DdsTransport
with DdsTransport(int(sys.argv[1]), localhost_only=True) as t:
    pub = t.publisher("/lo/js", JointState)
    print("ready", flush=True)
    for k in range(3000):
        pub.publish(JointState(Stamp(k, 0), "", ["j"], [float(k)], [], []))
        time.sleep(0.01)
"""


@pytest.mark.parametrize(
    ("env", "arg", "want"),
    [
        ({}, None, False),
        ({"ROS_LOCALHOST_ONLY": "1"}, None, True),
        ({"ROS_LOCALHOST_ONLY": " 1 "}, None, True),
        ({"ROS_LOCALHOST_ONLY": "0"}, None, False),
        ({"ROS_LOCALHOST_ONLY": "true"}, None, False),  # ROS 2 knows only "1"
        ({"ROS_LOCALHOST_ONLY": "1"}, False, False),  # the flag wins over the environment
        ({}, True, True),
    ],
)
def test_transport_options_localhost_only(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], arg: bool | None, want: bool
) -> None:
    monkeypatch.delenv("ROS_LOCALHOST_ONLY", raising=False)
    monkeypatch.delenv("ROS_DOMAIN_ID", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert transport_options("dds", 7, arg) == {"domain_id": 7, "localhost_only": want}
    assert transport_options("dds", None, arg) == {"domain_id": 0, "localhost_only": want}
    assert transport_options("inproc", 7, arg) == {}


def test_transport_options_keeps_the_domain_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROS_DOMAIN_ID", "42")
    monkeypatch.delenv("ROS_LOCALHOST_ONLY", raising=False)
    assert transport_options("dds", None) == {"domain_id": 42, "localhost_only": False}
    monkeypatch.setenv("ROS_DOMAIN_ID", "x")
    with pytest.raises(MjscopeError, match="ROS_DOMAIN_ID='x'"):
        transport_options("dds", None)


def test_generated_config_names_the_loopback_only_when_asked() -> None:
    lo = cyclone_config(localhost_only=True)
    assert '<NetworkInterface address="127.0.0.1" multicast="true"/>' in lo
    assert lo.count("NetworkInterface") == 1
    opened = cyclone_config(localhost_only=False)
    assert "NetworkInterface" not in opened and "127.0.0.1" not in opened
    for cfg in (lo, opened):
        assert f"<LeaseDuration>{LEASE_S:g}s</LeaseDuration>" in cfg
        assert f"<MaxSampleSize>{MAX_DDS_SAMPLE_BYTES}B</MaxSampleSize>" in cfg


def test_user_config_comes_last_so_its_settings_win(tmp_path: Path) -> None:
    user = "<CycloneDDS><Domain><Discovery><LeaseDuration>5s</LeaseDuration></Discovery></Domain></CycloneDDS>"  # noqa: E501
    cfg = cyclone_config(True, user)
    ours, theirs = cfg.split(",", 1)
    assert "127.0.0.1" in ours and theirs == user
    assert cyclone_config(False, "  ") == cyclone_config(False)


@pytest.mark.parametrize(
    "user",
    [
        '<Domain><General><Interfaces><NetworkInterface name="eth0"/></Interfaces></General>',
        "<Domain><General><NetworkInterfaceAddress>eth0</NetworkInterfaceAddress></General></Domain>",
        '<Domain><Discovery><Peers><Peer address="10.0.0.2"/></Peers></Discovery></Domain>',
        "FILE",
    ],
)
def test_localhost_only_refuses_a_user_config_that_opens_the_network(
    tmp_path: Path, user: str
) -> None:
    if user == "FILE":  # the same, in a file the URI names
        f = tmp_path / "cyclone.xml"
        f.write_text('<CycloneDDS><Domain><General><Interfaces><NetworkInterface name="eth0"/>')
        user = f"file://{f}"
    with pytest.raises(MjscopeError, match="CYCLONEDDS_URI names its own network interfaces"):
        cyclone_config(True, user)
    assert cyclone_config(False, user).endswith(user)  # without localhost-only: theirs wins


def test_non_ascii_user_config_is_a_clear_error() -> None:
    with pytest.raises(MjscopeError, match="non-ASCII"):
        cyclone_config(False, "file:///tmp/ü.xml")


def test_one_domain_one_setting_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CYCLONEDDS_URI", raising=False)
    with DdsTransport(DOMAIN, localhost_only=True) as a:
        with DdsTransport(DOMAIN, localhost_only=True) as b:  # shares the domain
            sub = b.subscriber("/same/js", JointState)
            pub = a.publisher("/same/js", JointState)
            deadline = time.monotonic() + 20.0
            while sub.publisher_count() < 1 and time.monotonic() < deadline:
                time.sleep(0.01)
            pub.publish(JointState(Stamp(1, 0), "", ["j"], [1.0], [], []))
            got: list = []
            while not got and time.monotonic() < deadline:
                got = sub.take()
                time.sleep(0.01)
            assert [m.position for m in got] == [[1.0]]
        with pytest.raises(MjscopeError, match="already open in this process"):
            DdsTransport(DOMAIN, localhost_only=False)
    with DdsTransport(DOMAIN, localhost_only=False):  # closed: free to reopen either way
        pass
    with pytest.raises(MjscopeError, match="True or False"):
        DdsTransport(DOMAIN, localhost_only="yes")  # type: ignore[arg-type]


def test_a_bad_user_config_is_an_mjscope_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CYCLONEDDS_URI", "file:///nonexistent/cyclonedds.xml")
    with pytest.raises(MjscopeError, match="check CYCLONEDDS_URI"):
        DdsTransport(DOMAIN)


def test_two_processes_with_localhost_only_talk_over_the_loopback_only(tmp_path: Path) -> None:
    trace = tmp_path / "cyclone.log"
    env = os.environ.copy()
    env["CYCLONEDDS_URI"] = (  # the user's config: tracing only, so ours keeps the loopback
        f"<CycloneDDS><Domain><Tracing><Verbosity>config</Verbosity>"
        f"<OutputFile>{trace}</OutputFile></Tracing></Domain></CycloneDDS>"
    )
    env.pop("ROS_LOCALHOST_ONLY", None)
    p = subprocess.Popen(
        [sys.executable, "-c", PUBLISHER, str(DOMAIN)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        with make_transport("dds", **transport_options("dds", DOMAIN, True)) as t:
            sub = t.subscriber("/lo/js", JointState)
            got: list = []
            deadline = time.monotonic() + 20.0
            while len(got) < 5 and time.monotonic() < deadline:
                got += sub.take()
                time.sleep(0.01)
            assert len(got) >= 5, "no samples between two localhost-only processes"
            ks = [m.stamp.sec for m in got]
            assert ks == sorted(ks) and all(m.position == [float(m.stamp.sec)] for m in got)
    finally:
        p.kill()
        p.wait(timeout=10)
    log = trace.read_text()
    selected = re.search(r"selected interfaces: (.*)", log)
    assert selected is not None, log[-2000:]
    names = re.findall(r"(\S+) \(index \d+", selected.group(1))
    detected = re.search(r"interfaces: (.*)", log)
    assert detected is not None
    loopback = re.findall(r"(\S+) udp/127\.0\.0\.1", detected.group(1))
    assert names == loopback and len(names) == 1, selected.group(0)
    assert "LeaseDuration/#text: 2 s" in log  # ours, since the user's config does not set it
