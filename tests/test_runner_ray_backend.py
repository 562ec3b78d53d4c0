"""The executor on a real Ray head started here on 127.0.0.1 (and only that head stopped).

The head gets usage statistics off, loopback-only addresses and a random token
(:class:`mjscope.runner.LocalRayCluster`); it starts once for the session.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from pathlib import Path

import pytest

from mjscope.runner import ExecutorCfg, ExecutorError, LocalRayCluster, run_items
from mjscope.runner.cluster import is_loopback
from tests.utils import import_optional

ray = import_optional("ray", "Ray (the cluster extra) is not installed: pip install '.[cluster]'")
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests/


def square(x: int) -> tuple[int, int]:
    time.sleep(0.02 * (x % 3))
    return x * x, os.getpid()


def slow_square(x: int) -> tuple[int, int]:
    time.sleep(0.3)
    return x * x, os.getpid()


def sweep_item(item: tuple[str, str, str]) -> str:
    """One diagnose-sweep value: the model with ``--set`` applied, 300 steps, final state (hex)."""
    import mujoco

    from mjscope.diagnose.sweep import applier, parse_set
    from mjscope.models import compile_spec, load_spec

    model_ref, text, value = item
    spec = load_spec(model_ref)
    applier(parse_set(text), value)(spec)
    model = compile_spec(spec, model_ref)
    data = mujoco.MjData(model)
    mujoco.mj_step(model, data, 300)
    return data.qpos.tobytes().hex() + data.qvel.tobytes().hex()


def fails_on_one(x: int) -> int:
    if x == 1:
        raise ValueError("one is bad")
    return x


@pytest.fixture
def cluster(ray_head: LocalRayCluster) -> LocalRayCluster:
    """The session's loopback head (``tests/conftest.py``), shared with the sweep tests."""
    return ray_head


def _group_of(pgid: int) -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if os.getpgid(int(d.name)) == pgid:
                    pids.append(int(d.name))
            except ProcessLookupError:
                continue
    return pids


def _listening(pids: list[int]) -> set[str]:
    """IPv4/IPv6 addresses the processes listen on (TCP), from /proc."""
    inodes = set()
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                link = os.readlink(fd)
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except (FileNotFoundError, PermissionError):
            continue
    hosts = set()
    for table, size in (("tcp", 4), ("tcp6", 16)):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:  # LISTEN
                raw = bytes.fromhex(f[1].split(":")[0])
                raw = b"".join(raw[i : i + 4][::-1] for i in range(0, size, 4))
                hosts.add(socket.inet_ntop(socket.AF_INET if size == 4 else socket.AF_INET6, raw))
    return hosts


def test_the_head_listens_on_loopback_only(cluster: LocalRayCluster) -> None:
    assert is_loopback(cluster.address)
    assert cluster.env["RAY_USAGE_STATS_ENABLED"] == "0"
    assert cluster.env["RAY_AUTH_MODE"] == "token" and len(cluster.env["RAY_AUTH_TOKEN"]) == 64
    assert not cluster.env["RAY_AUTH_TOKEN_PATH"].startswith(str(Path.home() / ".ray"))
    assert cluster._proc is not None
    hosts = _listening(_group_of(cluster._proc.pid))
    assert hosts, "found no listening socket of the head: the check would prove nothing"
    assert hosts <= {"127.0.0.1", "::ffff:127.0.0.1", "::1"}, hosts


def test_results_come_back_in_order_from_ray_workers(cluster: LocalRayCluster) -> None:
    got = list(run_items(square, range(16), ExecutorCfg(ray=cluster.address, progress=False)))
    assert [r.value[0] for r in got] == [k * k for k in range(16)]
    assert os.getpid() not in {r.value[1] for r in got}
    assert "RAY_AUTH_TOKEN" not in os.environ  # the driver's environment is restored


def test_a_raising_task_is_retried_then_reported(cluster: LocalRayCluster) -> None:
    cfg = ExecutorCfg(ray=cluster.address, retries=1, progress=False)
    got = list(run_items(fails_on_one, range(3), cfg))
    assert [r.ok for r in got] == [True, False, True]
    assert got[1].attempts == 2 and "ValueError: one is bad" in got[1].error


def test_a_killed_ray_worker_loses_no_item(cluster: LocalRayCluster) -> None:
    got = []
    for r in run_items(slow_square, range(10), ExecutorCfg(ray=cluster.address, progress=False)):
        got.append(r)
        if len(got) == 2:  # that worker runs a later item now
            os.kill(r.value[1], signal.SIGKILL)
    assert [r.value[0] for r in got] == [k * k for k in range(10)]
    assert any(r.attempts == 2 for r in got)


def test_an_unreachable_cluster_is_a_one_line_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    with pytest.raises(ExecutorError, match=r"cannot connect to the Ray cluster at '127\.0\.0\.1:"):
        list(run_items(square, range(2), ExecutorCfg(ray=f"127.0.0.1:{port}", progress=False)))
    assert "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER" not in os.environ


def test_a_diagnose_sweep_on_ray_matches_the_local_pool_bit_for_bit(
    cluster: LocalRayCluster,
) -> None:
    text = "option.timestep=0.001,0.002,0.004"
    items = [("quadruped", text, v) for v in ("0.001", "0.002", "0.004")]
    items += [("quadruped", "geom:*.solref=0.004 1;0.02 1", v) for v in ("0.004 1", "0.02 1")]
    local = [r.value for r in run_items(sweep_item, items, ExecutorCfg(jobs=2, progress=False))]
    remote = run_items(sweep_item, items, ExecutorCfg(ray=cluster.address, progress=False))
    assert [r.value for r in remote] == local
    assert len(set(local)) == len(items)  # every value changed the rollout: the check has teeth


def _fake_ray(heads: list[str]) -> object:
    from types import SimpleNamespace

    services = SimpleNamespace(find_gcs_addresses=lambda: heads)
    return SimpleNamespace(_private=SimpleNamespace(services=services))


def test_ray_auto_refuses_to_choose_between_several_heads(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from mjscope.runner.ray_backend import resolve_auto

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    two = _fake_ray(["10.0.0.5:6379", "127.0.0.1:6380"])
    with pytest.raises(ExecutorError, match=r"2 Ray heads run on this machine \(10\.0\.0\.5:6379, "
                       r"127\.0\.0\.1:6380\); pass one with --ray ADDRESS"):  # fmt: skip
        resolve_auto(two)
    with pytest.raises(ExecutorError, match="no Ray cluster found"):
        resolve_auto(_fake_ray([]))
    assert resolve_auto(_fake_ray(["127.0.0.1:1"])) == "127.0.0.1:1"
    monkeypatch.setenv("RAY_ADDRESS", "10.1.2.3:6379")
    assert resolve_auto(two) == "10.1.2.3:6379"  # the user's choice wins


def test_ray_auto_says_which_cluster_it_joined(
    cluster: LocalRayCluster, monkeypatch, caplog
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RAY_ADDRESS", cluster.address)
    with caplog.at_level("WARNING", logger="mjscope.runner.ray_backend"):
        got = list(run_items(square, range(3), ExecutorCfg(ray="auto", progress=False)))
    assert [r.value[0] for r in got] == [0, 1, 4]
    assert f"--ray auto joined the Ray cluster at {cluster.address}" in caplog.text


def test_a_head_that_rejects_the_token_names_the_token_setting(
    cluster: LocalRayCluster, monkeypatch, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    port = cluster.address.rsplit(":", 1)[1]
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", "0" * 64)  # not the head's token
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(tmp_path / "none"))
    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    monkeypatch.setattr(ray._private.ray_constants, "NUM_REDIS_GET_RETRIES", 2)  # (Ray: 20 × 1 s)
    with pytest.raises(
        ExecutorError, match=r"rejected this driver's authentication .*RAY_AUTH_TOKEN"
    ):
        list(run_items(square, range(2), ExecutorCfg(ray=f"localhost:{port}", progress=False)))
