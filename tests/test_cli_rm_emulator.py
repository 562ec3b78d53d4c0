"""``mjscope rm-emulator`` as a user runs it (including a busy port and SIGTERM)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from mjscope.cli import main
from mjscope.teleop.adapters.realman import RealManAdapter

from .utils import finish


def test_runs_for_the_duration_and_says_where_it_listens(capsys) -> None:
    t0 = time.monotonic()
    assert main(["rm-emulator", "--port", "0", "--duration", "0.5"]) == 0
    took = time.monotonic() - t0
    out = capsys.readouterr().out
    assert re.search(r"RM75-B controller listening on 127\.0\.0\.1:\d+", out), out
    assert "realtime push off until set" in out and "served 0 commands" in out
    assert 0.5 <= took < 3.0


def test_push_port_starts_the_push(capsys) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.bind(("127.0.0.1", 0))
        udp.settimeout(2.0)
        port = udp.getsockname()[1]
        assert (
            main(["rm-emulator", "--port", "0", "--push-port", str(port), "--duration", "0.3"]) == 0
        )
        assert b'"state":"realtime_arm_joint_state"' in udp.recv(4096)
    assert f"realtime push 127.0.0.1:{port} every 5 ms" in capsys.readouterr().out


def test_a_busy_port_is_a_one_line_error(capsys) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["rm-emulator", "--port", str(port), "--duration", "0.5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"cannot listen on 127.0.0.1:{port}" in err[0], err
    assert "--port" in err[0] and "Traceback" not in err[0]


def test_bad_values_are_one_line_errors(capsys) -> None:
    assert main(["rm-emulator", "--port", "0", "--duration", "0"]) == 2
    assert main(["rm-emulator", "--port", "70000", "--duration", "1"]) == 2
    assert main(["rm-emulator", "--port", "0", "--joints-deg", "1,x"]) == 2
    assert main(["rm-emulator", "--port", "0", "--joints-deg", "0,140,0,0,0,0,0"]) == 2
    assert main(["rm-emulator", "--port", "0", "--joints-deg", "0,0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 5, err
    assert "--duration 0.0 must be > 0" in err[0] and "0-65535" in err[1]
    assert "must be numbers" in err[2] and "within the joint limits" in err[3]
    assert "must be 7 angles" in err[4]


def test_joints_deg_sets_the_power_on_pose(capsys) -> None:
    assert (
        main(
            [
                "rm-emulator",
                "--port",
                "0",
                "--joints-deg",
                "0,-30,0,-90,0,-60,0",
                "--duration",
                "0.2",
            ]
        )
        == 0
    )
    assert "joints at [0.0, -30.0, 0.0, -90.0, 0.0, -60.0, 0.0] deg" in capsys.readouterr().out


def test_sigterm_ends_it_cleanly_and_the_adapter_can_use_it_meanwhile() -> None:
    env = {**os.environ, "MUJOCO_GL": "egl"}
    p = subprocess.Popen(
        [sys.executable, "-m", "mjscope", "rm-emulator", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert p.stdout is not None
        line = p.stdout.readline()
        m = re.search(r"listening on (127\.0\.0\.1:\d+)", line)
        assert m, line
        arm = RealManAdapter("left", tuple(f"j{i}" for i in range(1, 8)), np.zeros(7), m.group(1))
        arm.connect()
        arm.send(np.zeros(7), time.monotonic())
        arm.close()
        p.send_signal(signal.SIGTERM)
        out, err = finish(p)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert "(1 movej_canfd)" in out and err == ""


def test_the_default_pose_is_the_rigs_initial_pose(capsys) -> None:
    assert main(["rm-emulator", "--port", "0", "--side", "right", "--duration", "0.2"]) == 0
    assert "joints at [0.0, -40.0, 0.0, -80.0, 0.0, -60.0, 0.0] deg" in capsys.readouterr().out
    assert main(["rm-emulator", "--port", "0", "--duration", "0.2"]) == 0
    assert "joints at [0.0, -30.0, 0.0, -90.0, 0.0, -60.0, 0.0] deg" in capsys.readouterr().out


def _pushes(args: list[str], listen_s: float) -> tuple[list[float], str]:
    """Arrival times of push datagrams [s after start] while the emulator runs with ``args``."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.bind(("127.0.0.1", 0))
        udp.settimeout(0.05)
        port = udp.getsockname()[1]
        cmd = [sys.executable, "-m", "mjscope", "rm-emulator", "--port", "0"]
        cmd += ["--push-port", str(port), "--duration", str(listen_s), *args]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert p.stdout is not None
            assert "listening" in p.stdout.readline()  # serving from here on
            t0, got = time.monotonic(), []
            while p.poll() is None or time.monotonic() - t0 < 0.1:
                try:
                    udp.recv(4096)
                    got.append(time.monotonic() - t0)
                except TimeoutError:
                    if p.poll() is not None:
                        break
            out, _ = finish(p)
        finally:
            if p.poll() is None:
                p.kill()
    return got, out


def test_drop_loses_push_datagrams_and_counts_them() -> None:
    got, out = _pushes(["--drop", "1"], 0.5)
    assert got == [] and "sent 0 pushes" in out
    m = re.search(r"\((\d+) dropped on purpose\)", out)
    assert m and int(m.group(1)) > 20, out  # ≈ 100 at 5 ms over 0.5 s
    some, out = _pushes(["--drop", "0.5", "--seed", "3"], 0.6)
    m = re.search(r"sent (\d+) pushes \((\d+) dropped", out)
    assert m, out
    sent, dropped = int(m.group(1)), int(m.group(2))
    assert 0.3 < dropped / (sent + dropped) < 0.7 and len(some) <= sent


def test_disconnect_after_closes_the_connection_and_refuses_new_ones() -> None:
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mjscope",
            "rm-emulator",
            "--port",
            "0",
            "--disconnect-after",
            "0.5",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert p.stdout is not None
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", p.stdout.readline())
        assert m
        port = int(m.group(1))
        with socket.create_connection(("127.0.0.1", port), timeout=5.0) as c:
            c.settimeout(5.0)
            t0 = time.monotonic()
            assert c.recv(100) == b""  # the controller went away: orderly close
            assert time.monotonic() - t0 < 4.0
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=2.0)
        p.send_signal(signal.SIGTERM)
        out, err = finish(p)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0 and "disconnect after 0.5 s" in out, err


def test_delay_holds_every_push_back(capsys) -> None:
    got, _ = _pushes(["--delay-ms", "300"], 0.8)
    assert got and got[0] >= 0.25  # nothing before the delay (the push starts at once)
    bad = ["--drop", "1.5"], ["--delay-ms", "-1"], ["--jitter-ms", "nan"]
    for args in bad:
        assert main(["rm-emulator", "--port", "0", "--duration", "0.1", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and "--drop 1.5 must be a probability" in err[0]
    assert "--delay-ms -1.0 must be 0-10000 ms" in err[1] and "--jitter-ms nan" in err[2]
