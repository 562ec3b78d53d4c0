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

from mjscope.cli import main
from mjscope.teleop.adapters.realman import RealManAdapter


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
        out, err = p.communicate(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert "(1 movej_canfd)" in out and err == ""
