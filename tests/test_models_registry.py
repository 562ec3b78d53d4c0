"""One smoke test over every bundled model (mujoco_playground's structural-test idea)."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from mjscope.exceptions import UnknownNameError
from mjscope.models import entries, load, names
from mjscope.models.registry import get

KINDS = {"arm", "dual-arm", "hand", "legged", "mechanism", "gripper"}


@pytest.mark.parametrize("name", names())
def test_every_bundled_model_loads_and_steps_cleanly(name: str) -> None:
    entry = get(name)
    assert entry.description and "\n" not in entry.description
    m = load(name)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    for _ in range(50):
        mujoco.mj_step(m, d)
    assert np.all(np.isfinite(d.qpos)) and np.all(np.isfinite(d.qvel))
    bad = (mujoco.mjtWarning.mjWARN_BADQPOS, mujoco.mjtWarning.mjWARN_BADQVEL)
    bad += (mujoco.mjtWarning.mjWARN_BADQACC,)
    assert [int(d.warning.number[int(w)]) for w in bad] == [0, 0, 0]


def test_registry_is_sorted_and_kinds_are_known() -> None:
    assert names() == sorted(names()) and len(names()) >= 8
    assert {e.kind for e in entries()} <= KINDS, {e.kind for e in entries()}


def test_unknown_name_lists_the_bundled_ones() -> None:
    with pytest.raises(UnknownNameError, match=r"quadruped.*mjscope models"):
        get("no_such_model")


def test_unknown_name_error_survives_pickling() -> None:
    """A process pool pickles a worker's error; the default would rebuild it from one arg."""
    import pickle

    with pytest.raises(UnknownNameError) as info:
        get("no_such_model")
    again = pickle.loads(pickle.dumps(info.value))
    assert str(again) == str(info.value) and again.known == names()
