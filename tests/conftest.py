"""Pytest setup: headless rendering and loopback-only DDS for every test."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("MUJOCO_GL", "egl")
# Every DDS participant a test starts stays on the loopback interface (no multicast on the LAN).
os.environ.setdefault("ROS_LOCALHOST_ONLY", "1")


@pytest.fixture(scope="session")
def ray_head():
    """One real Ray head on 127.0.0.1 for the whole session, stopped at its end (only it).

    :class:`mjscope.runner.LocalRayCluster`: loopback addresses only, usage statistics off,
    a random auth token. Skips when the ``cluster`` extra (Ray) is not installed.
    """
    from mjscope.runner import LocalRayCluster
    from tests.utils import import_optional

    import_optional("ray", "Ray (the cluster extra) is not installed: pip install '.[cluster]'")
    with LocalRayCluster(num_cpus=2) as head:
        yield head


_SLOW = {
    line.strip()
    for line in (Path(__file__).parent / "slow_tests.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests listed in ``slow_tests.txt`` slow (``pytest -m "not slow"`` skips them)."""
    for item in items:
        if item.nodeid.split("[", 1)[0] in _SLOW:
            item.add_marker(pytest.mark.slow)
