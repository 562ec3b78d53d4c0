"""A private Ray head on 127.0.0.1 for ``--ray local`` and the tests; stopped with its run.

Ray moves 127.0.0.1 to the machine's network address and reports usage statistics unless told
not to (facts/ray.md), so the head, its workers and the driver all get
``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` (the node address stays the loopback address) and
``RAY_USAGE_STATS_ENABLED=0``. The head also gets token authentication with a fresh random token
(``RAY_AUTH_MODE=token``; the token never touches the user's ``~/.ray``), its own temporary
folder, and its own process group: :meth:`LocalRayCluster.stop` asks the ``ray start --block``
process to end its head, then kills whatever is left of that group only, never another Ray on
the machine (``ray stop`` would end them all). A small watchdog process ends that group too
when the process that started the head dies without stopping it (``kill -9``, a crashed test
session), so no head outlives its run.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import ClassVar

from mjscope.runner.base import INSTALL_HINT, ExecutorError

LOOPBACK = "127.0.0.1"
START_TIMEOUT_S = 60.0  # longest wait for the head to accept connections [s]
STOP_WAIT_S = 10.0  # wait for the head to stop before SIGKILL of its group [s]


def loopback_env(token: str, token_path: str) -> dict[str, str]:
    """Environment of every process of a loopback-only head: head, workers and the driver.

    ``RAY_AUTH_TOKEN_PATH`` points into the head's own folder, so a token file in the user's
    ``~/.ray`` is never read (or written).
    """
    return {
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": token,
        "RAY_AUTH_TOKEN_PATH": token_path,
    }


def is_loopback(address: str) -> bool:
    """Whether a Ray address (``HOST:PORT``, ``ray://HOST:PORT``) names this machine's loopback."""
    host = address.removeprefix("ray://").rsplit(":", 1)[0].strip("[]")
    return host in ("127.0.0.1", "localhost", "::1")


# The watchdog: argv = [parent pid, head process group, temp folder]. Polls the parent; when it
# is gone, ends the head's group (SIGTERM, then SIGKILL) and removes the folder. Standard
# library only, so it starts in a few milliseconds.
_WATCHDOG = """
import os, shutil, signal, sys, time
parent, group, temp = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
while alive(parent) and os.getppid() == parent:
    time.sleep(0.5)
for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 0.0)):
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        break
    end = time.monotonic() + wait
    while time.monotonic() < end and alive(group):
        time.sleep(0.2)
shutil.rmtree(temp, ignore_errors=True)
"""


def _ray_executable() -> str:
    beside = Path(sys.executable).with_name("ray")
    found = str(beside) if beside.exists() else shutil.which("ray")
    if found is None:
        raise ExecutorError(f"the 'ray' command is not installed; {INSTALL_HINT}")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


class LocalRayCluster:
    """A Ray head on 127.0.0.1 only, with usage stats off and a random auth token.

    Args:
        num_cpus: CPUs the head offers (default: all of this machine's).

    Attributes:
        address: ``127.0.0.1:PORT`` once started.
        env: What a driver must have in its environment to connect (see :func:`loopback_env`).
        started: The heads this process started and has not stopped, by address (a driver in
            this process connecting to one of them takes its environment from here).
    """

    started: ClassVar[dict[str, LocalRayCluster]] = {}

    def __init__(self, num_cpus: int | None = None) -> None:
        self.num_cpus = num_cpus or os.cpu_count() or 1
        self.env: dict[str, str] = {}
        self.address = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._temp: str | None = None

    def start(self) -> LocalRayCluster:
        """Start the head and wait until it accepts connections.

        Raises:
            ExecutorError: Ray is not installed, or the head did not come up.
        """
        exe = _ray_executable()
        self._temp = tempfile.mkdtemp(prefix="mjscope-ray-")
        self.env = loopback_env(secrets.token_hex(32), str(Path(self._temp, "auth_token")))
        port = _free_port()
        cmd = [exe, "start", "--head", "--block", f"--node-ip-address={LOOPBACK}",
               f"--port={port}", f"--temp-dir={self._temp}", "--disable-usage-stats",
               "--include-dashboard=false", f"--num-cpus={self.num_cpus}"]  # fmt: skip
        log = Path(self._temp, "head.log").open("wb")
        self._proc = subprocess.Popen(
            cmd, env={**os.environ, **self.env}, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        log.close()
        self._watchdog = subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG, str(os.getpid()), str(self._proc.pid), self._temp],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        self.address = f"{LOOPBACK}:{port}"
        self._wait_ready(port)
        LocalRayCluster.started[self.address] = self
        return self

    def _wait_ready(self, port: int) -> None:
        assert self._proc is not None and self._temp is not None
        log = Path(self._temp, "head.log")
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                tail = log.read_text(errors="replace").strip().splitlines()[-1:] or ["no output"]
                self.stop()
                raise ExecutorError(f"the local Ray head did not start: {tail[0]}")
            if "Ray runtime started" in log.read_text(errors="replace"):
                return
            time.sleep(0.1)
        self.stop()
        raise ExecutorError(f"the local Ray head on port {port} did not start in time")

    def stop(self) -> None:
        """End the head's process group (and nothing else); remove its temporary folder."""
        proc, self._proc = self._proc, None
        LocalRayCluster.started.pop(self.address, None)
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:  # stopped on purpose: the watchdog has nothing left to do
            watchdog.kill()
            watchdog.wait()
        if proc is not None:
            proc.terminate()  # `ray start --block` ends its head's processes on SIGTERM
            try:
                proc.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                pass
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # whatever of the group is left
            proc.wait()
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = None

    def __enter__(self) -> LocalRayCluster:
        return self.start()

    def __exit__(
        self,
        et: type[BaseException] | None,
        ev: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
