"""The Ray backend: each attempt is one Ray task; Ray places it, the executor retries it.

Ray's own task retries are off (``max_retries=0``): a task whose worker died comes back as a
Ray error and the executor retries it like a dead local worker, so retries mean the same on
every backend. The function is put into the object store once; each task carries only its
item. ``"local"`` starts a private loopback head (:class:`~mjscope.runner.cluster.LocalRayCluster`)
for the run and stops it afterwards; ``"auto"`` and addresses connect to a running cluster.
Usage statistics stay off in the driver unless the user set ``RAY_USAGE_STATS_ENABLED``.

``"auto"`` never guesses: it takes ``RAY_ADDRESS`` when set, else the one Ray head running on
this machine; with several it refuses and lists them, and it says (a log warning, shown by
default) which cluster it joined. A head that rejects the driver's token gets an error naming
the token settings (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH``, ``~/.ray/auth_token``).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import socket
import threading
from collections.abc import Callable
from typing import Any

from mjscope.runner.base import DIED, INSTALL_HINT, OK, ExecutorError, Outcome, describe
from mjscope.runner.cluster import LocalRayCluster, is_loopback

QUEUED_PER_CPU = 1  # tasks queued beyond the running ones, per cluster CPU (hides latency)
logger = logging.getLogger(__name__)
TOKEN_HINT = (
    "give this driver the cluster's token: RAY_AUTH_TOKEN, or a file at RAY_AUTH_TOKEN_PATH "
    "(default ~/.ray/auth_token; 'ray get-auth-token' on the head prints it), with "
    "RAY_AUTH_MODE=token"
)


def resolve_auto(ray: Any) -> str:
    """The cluster ``--ray auto`` means: ``RAY_ADDRESS``, else the one head on this machine.

    Raises:
        ExecutorError: No head, or several heads (listed) and no ``RAY_ADDRESS``.
    """
    env = os.environ.get("RAY_ADDRESS")
    if env:
        return env
    heads = sorted(set(ray._private.services.find_gcs_addresses()))
    if len(heads) > 1:
        raise ExecutorError(
            f"--ray auto: {len(heads)} Ray heads run on this machine ({', '.join(heads)}); "
            "pass one with --ray ADDRESS (or set RAY_ADDRESS)"
        )
    if not heads:
        raise ExecutorError(
            "--ray auto: no Ray cluster found (RAY_ADDRESS is not set and no head runs here); "
            "start one with 'ray start --head', pass --ray ADDRESS, or --ray local"
        )
    return str(heads[0])


def _is_auth_error(e: BaseException) -> bool:
    """Whether ``e`` (or what caused it) is the head rejecting the driver's token.

    Ray reports it as "Failed to connect to Ray cluster", with the gRPC status
    (``Unauthenticated``/``InvalidAuthToken``) only in the chained GCS connection error.
    """
    seen: BaseException | None = e
    for _ in range(8):  # the chain is short; bounded against cycles
        if seen is None:
            return False
        text = f"{type(seen).__name__} {seen}".lower()
        if "unauthenticated" in text or "invalidauthtoken" in text or "authenticationerror" in text:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def import_ray() -> Any:
    """The ``ray`` module.

    Raises:
        ExecutorError: Ray is not installed (names the extra to install).
    """
    try:
        import ray
    except ImportError as e:
        raise ExecutorError(f"--ray needs Ray, which is not installed; {INSTALL_HINT}") from e
    return ray


def _ray_executable_or_hint() -> None:
    """Fail with the install hint before starting a head when Ray is not installed."""
    if importlib.util.find_spec("ray") is None:
        raise ExecutorError(f"--ray needs Ray, which is not installed; {INSTALL_HINT}")


def _check_reachable(address: str) -> None:
    """Fail fast when a ``HOST:PORT`` address does not accept connections (Ray retries ~minutes).

    Raises:
        ExecutorError: Nothing listens there.
    """
    if address in ("auto", "local") or "://" in address or ":" not in address:
        return
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5.0).close()
    except (OSError, ValueError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise ExecutorError(
            f"cannot connect to the Ray cluster at {address!r}: {why}; start one with "
            "'ray start --head' there, or pass --ray local"
        ) from e


def _refresh_auth(ray: Any) -> None:
    """Make Ray re-read ``RAY_AUTH_MODE`` and the token from the environment."""
    ray._raylet.Config.initialize("")
    ray._raylet.AuthenticationTokenLoader.instance().reset_cache()


def _call(fn: Callable[[Any], Any], index: int, item: Any) -> Outcome:
    """Run one attempt inside a Ray worker; an exception becomes an ERROR outcome."""
    try:
        return Outcome(index, OK, fn(item))
    except Exception as e:
        return describe(index, e)


class RayBackend:
    """Items as Ray tasks on a cluster.

    Args:
        fn: The function applied to each item (importable by the cluster's workers).
        address: ``"auto"``, ``"local"`` or a cluster address.
        cluster: An already started local head to use (the tests' fixture); not stopped here.

    Raises:
        ExecutorError: Ray is missing, or the cluster cannot be reached.
    """

    def __init__(
        self, fn: Callable[[Any], Any], address: str, cluster: LocalRayCluster | None = None
    ) -> None:
        self._own: LocalRayCluster | None = None
        self._saved_env: dict[str, str | None] = {}
        self._saved_flag: bool | None = None
        self._sigterm: Any = None
        self._pending: dict[Any, int] = {}  # ObjectRef -> item index
        if address == "local" and cluster is None:
            _ray_executable_or_hint()
            cluster = self._own = LocalRayCluster().start()
        cluster = cluster or LocalRayCluster.started.get(address)
        env = {"RAY_USAGE_STATS_ENABLED": os.environ.get("RAY_USAGE_STATS_ENABLED", "0")}
        if cluster is not None:
            env.update(cluster.env)
            address = cluster.address
        self._set_env(env)  # before Ray's first import: it reads some of these once
        try:
            self._ray = ray = import_ray()
            asked, address = address, resolve_auto(ray) if address == "auto" else address
        except ExecutorError:
            self.close()
            raise
        if asked == "auto" and address in LocalRayCluster.started:  # a head started here
            self._set_env(LocalRayCluster.started[address].env)
        if is_loopback(address):
            self._keep_loopback(ray)
        self._sigterm = signal.getsignal(signal.SIGTERM)  # ray.init installs its own
        _check_reachable(address)
        try:
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
        except Exception as e:
            self.close()
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            if _is_auth_error(e):
                raise ExecutorError(
                    f"the Ray cluster at {address!r} rejected this driver's authentication "
                    f"({first}); {TOKEN_HINT}"
                ) from e
            raise ExecutorError(
                f"cannot connect to the Ray cluster at {address!r}: {first}; "
                "start one with 'ray start --head' or pass --ray local"
            ) from e
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.address = address
        if asked == "auto":
            logger.warning("--ray auto joined the Ray cluster at %s (%d CPUs)", address, cpus)
        self.workers = max(cpus, 1)
        self._capacity = self.workers * (1 + QUEUED_PER_CPU)
        self._fn_ref = ray.put(fn)
        self._task = ray.remote(num_cpus=1, max_retries=0)(_call)

    def _keep_loopback(self, ray: Any) -> None:
        """Keep a driver of a loopback head on 127.0.0.1, even if Ray was imported earlier.

        Ray reads ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER`` once, at import, into
        ``ray_constants.ENABLE_RAY_CLUSTER``; left on, the driver rewrites 127.0.0.1 to the
        machine's network address and cannot reach a loopback-only head. It also caches
        ``RAY_AUTH_MODE`` in its config and the token in its loader, which Ray itself
        refreshes (``Config.initialize("")``, ``reset_cache()``) when it turns token mode on.
        All are set for the connection and restored by :meth:`close`.
        """
        constants = ray._private.ray_constants
        self._saved_flag = constants.ENABLE_RAY_CLUSTER
        constants.ENABLE_RAY_CLUSTER = False
        _refresh_auth(ray)

    def _set_env(self, env: dict[str, str]) -> None:
        for k, v in env.items():
            self._saved_env.setdefault(k, os.environ.get(k))
            os.environ[k] = v

    def free(self) -> int:
        """Tasks that may still be submitted (running + one queued per CPU)."""
        return self._capacity - len(self._pending)

    def submit(self, index: int, item: Any) -> None:
        """Submit one task."""
        self._pending[self._task.remote(self._fn_ref, index, item)] = index

    def poll(self, timeout: float) -> list[Outcome]:
        """Finished tasks (waits up to ``timeout`` [s] for the first)."""
        if not self._pending:
            return []
        refs = list(self._pending)
        ready, _ = self._ray.wait(refs, num_returns=1, timeout=timeout)
        if ready:
            ready, _ = self._ray.wait(refs, num_returns=len(refs), timeout=0)
        return [self._collect(ref) for ref in ready]

    def _collect(self, ref: Any) -> Outcome:
        index = self._pending.pop(ref)
        try:
            out: Outcome = self._ray.get(ref)
            return out
        except self._ray.exceptions.RayError as e:  # worker or node died, task lost
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            return Outcome(index, DIED, f"Ray task of item {index} failed: {first}")

    def close(self) -> None:
        """Cancel what is pending, disconnect, stop a head started here, restore the env."""
        ray = getattr(self, "_ray", None)
        if ray is not None:
            for ref in self._pending:
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # already finished or gone
                    pass
            if ray.is_initialized():
                ray.shutdown()
            if self._saved_flag is not None:
                ray._private.ray_constants.ENABLE_RAY_CLUSTER = self._saved_flag
                self._saved_flag = None
        self._pending = {}
        if self._own is not None:
            self._own.stop()
            self._own = None
        for k, v in self._saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        self._saved_env = {}
        if ray is not None:
            _refresh_auth(ray)  # the restored auth mode and token
        if self._sigterm is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._sigterm)
            self._sigterm = None
