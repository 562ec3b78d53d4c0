"""The diagnose package's face: every curated name resolves, in the package and its subpackages.

Import circles and layering (diagnose imports only shared layers and itself) are checked for
the whole tree in ``tests/test_package_layout.py``.
"""

import importlib

import pytest

import mjscope.diagnose


@pytest.mark.parametrize("package", ["", ".checks", ".probes", ".recording"])
def test_every_public_name_resolves(package):
    mod = importlib.import_module(f"mjscope.diagnose{package}")
    missing = [n for n in mod.__all__ if getattr(mod, n, None) is None]
    assert not missing, (mod.__name__, missing)
    assert sorted(mod.__all__) == sorted(set(mod.__all__)), "duplicates in __all__"


def test_the_face_is_what_the_cli_and_benchmarks_use():
    used = {"DiagnoseCmdCfg", "CompareCfg", "run_diagnose", "run_compare", "run_demo"}
    used |= {"RolloutCfg", "run_rollout", "diagnose", "Finding", "static_checks"}
    assert used <= set(mjscope.diagnose.__all__)
