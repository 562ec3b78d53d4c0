"""A private Ray head dies with the process that started it, even when that one is killed hard."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.utils import import_optional

_STARTER = """
import sys
from mjscope.runner import LocalRayCluster
head = LocalRayCluster(num_cpus=1).start()
print(head._proc.pid, flush=True)
sys.stdin.read()  # until killed
"""


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_head_group_ends_when_its_starter_is_killed_with_sigkill() -> None:
    import_optional("ray", "Ray (the cluster extra) is not installed: pip install '.[cluster]'")
    starter = subprocess.Popen(
        [sys.executable, "-c", _STARTER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert starter.stdout is not None
    line = starter.stdout.readline()
    assert line.strip().isdigit(), line
    head = int(line)
    try:
        assert _group_alive(head)
        starter.send_signal(signal.SIGKILL)  # no clean-up of its own can run
        starter.wait(10)
        deadline = time.monotonic() + 30.0
        while _group_alive(head) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _group_alive(head), "the Ray head outlived the process that started it"
    finally:
        if _group_alive(head):
            os.killpg(head, signal.SIGKILL)
