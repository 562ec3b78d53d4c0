"""Telemetry log: one ``Sample`` per step stored as copies, blocks, arrays, ``.npz`` round trip."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from mjscope.dock.telemetry import FIELDS, Log, Sample
from tests.utils import assert_close

PENDULUM = """
<mujoco><option gravity="0 0 -9.81" timestep="0.001"/>
  <worldbody><body><joint name="j" type="hinge" axis="0 1 0"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/></body></worldbody>
  <actuator><motor joint="j"/></actuator>
</mujoco>
"""


def sample(k: int, nq: int = 7) -> dict:
    """A full sample whose every value encodes the step index k."""
    f = float(k)
    return {
        "t": 0.001 * k,
        "q": np.full(nq, f),
        "v": np.full(nq, f + 0.5),
        "tau": np.full(nq, -f),
        "eef_pos": np.array([f, 2 * f, 3 * f]),
        "eef_rot": np.eye(3) * (1 + f),
        "ref_pos": np.array([f, 0.0, -f]),
        "ref_vel": np.array([0.0, f, 0.0]),
        "ref_rot": np.eye(3) * f,
        "wrench": np.arange(6.0) + f,
        "contact_force": 10 * f,
        "insertion_depth": 0.001 * f,
        "lateral_error": 1e-4 * f,
        "axis_angle": 1e-3 * f,
        "segment": k % 3,
        "wrench_raw": np.arange(6.0) - f,
    }


def test_sample_fields_are_the_log_fields_in_order() -> None:
    assert Sample._fields == tuple(FIELDS)


def test_store_data_keeps_copies_when_inputs_are_mutated_afterwards() -> None:
    log = Log()
    s = sample(1)
    log.store_data(Sample(**s))
    for value in s.values():
        if isinstance(value, np.ndarray):
            value += 100.0  # mutate the caller's arrays in place after storing
    log.store_data(Sample(**s))
    a = log.arrays()
    for name, value in sample(1).items():
        assert_close(a[name][0], value, what=name)
    assert_close(a["q"][1], np.full(7, 101.0), what="second sample sees the mutation")


def test_store_data_copies_mujoco_views_across_steps() -> None:
    model = mujoco.MjModel.from_xml_string(PENDULUM)
    data = mujoco.MjData(model)
    data.qpos[0] = 0.3
    log = Log(capacity=50)
    expected = []
    for _ in range(50):
        s = sample(0, nq=1)
        s.update(t=data.time, q=data.qpos, v=data.qvel, tau=data.ctrl)  # views, as in the bug
        log.store_data(Sample(**s))
        expected.append((data.qpos.copy(), data.qvel.copy()))
        mujoco.mj_step(model, data)
    a = log.arrays()
    assert_close(a["q"], np.array([e[0] for e in expected]), atol=0.0, what="qpos history")
    assert_close(a["v"], np.array([e[1] for e in expected]), atol=0.0, what="qvel history")
    assert np.ptp(a["q"][:, 0]) > 1e-3, "pendulum moved, so stored rows must differ"
    assert_close(a["t"], 0.001 * np.arange(50), atol=1e-12, what="time")


@pytest.mark.parametrize("capacity", [None, 1, 3, 64])
def test_arrays_stack_samples_in_order_across_blocks(capacity: int | None) -> None:
    log = Log(capacity=capacity)
    for k in range(10):
        log.store_data(Sample(**sample(k)))
    a = log.arrays()
    assert len(log) == 10
    assert set(a) == set(FIELDS)
    assert a["q"].shape == (10, 7) and a["eef_rot"].shape == (10, 3, 3)
    assert a["wrench"].shape == (10, 6) and a["t"].shape == (10,)
    assert a["segment"].dtype == np.int64
    assert_close(a["contact_force"], 10.0 * np.arange(10), what="contact force")
    assert_close(a["eef_pos"][:, 1], 2.0 * np.arange(10), what="eef y")
    assert a["segment"].tolist() == [k % 3 for k in range(10)]


def test_empty_log_gives_empty_arrays() -> None:
    a = Log().arrays()
    assert set(a) == set(FIELDS)
    assert all(v.shape == (0,) for v in a.values())


def test_wrong_shape_is_rejected() -> None:
    log = Log()
    s = sample(0)
    s["eef_pos"] = np.zeros(4)
    with pytest.raises(ValueError):
        log.store_data(Sample(**s))
    s = sample(0)
    s["q"] = np.zeros((7, 1))
    with pytest.raises(ValueError, match="1-D"):
        Log().store_data(Sample(**s))


def test_joint_sizes_fixed_by_first_sample() -> None:
    log = Log()
    log.store_data(Sample(**sample(0, nq=7)))
    with pytest.raises(ValueError):
        log.store_data(Sample(**sample(1, nq=6)))


def test_save_npz_round_trip(tmp_path) -> None:
    log = Log(capacity=4)
    for k in range(9):
        log.store_data(Sample(**sample(k)))
    path = log.save_npz(tmp_path / "sub" / "run.npz")
    assert path.is_file()
    with np.load(path) as z:
        loaded = {k: z[k] for k in z.files}
    again = Log.from_arrays(loaded).arrays()
    for name, value in log.arrays().items():
        assert_close(loaded[name], value, atol=0.0, what=name)
        assert_close(again[name], value, atol=0.0, what=name)


def test_from_arrays_requires_every_field() -> None:
    data = Log().arrays()
    del data["wrench"]
    with pytest.raises(ValueError, match="wrench"):
        Log.from_arrays(data)


@pytest.mark.parametrize("capacity", [None, 1, 3, 64])
def test_store_columns_equals_one_store_data_per_row(capacity: int | None) -> None:
    """The loop's chunked form: stacked columns, across block boundaries, after single rows."""
    rows = [sample(k) for k in range(11)]
    one, batched = Log(capacity=capacity), Log(capacity=capacity)
    for r in rows:
        one.store_data(Sample(**r))
    batched.store_data(Sample(**rows[0]))  # a row first, then chunks of 4, 4 and 2
    for lo, hi in ((1, 5), (5, 9), (9, 11)):
        batched.store_columns({n: np.array([r[n] for r in rows[lo:hi]]) for n in FIELDS})
    a, b = one.arrays(), batched.arrays()
    assert len(batched) == 11
    for name in FIELDS:
        assert b[name].dtype == a[name].dtype
        assert_close(b[name], a[name], atol=0.0, what=name)
    cols = {n: np.array([r[n] for r in rows[:2]]) for n in FIELDS}
    with pytest.raises(ValueError, match="row counts"):
        Log().store_columns({**cols, "tau": cols["tau"][:1]})
    with pytest.raises(ValueError, match="lack fields"):
        Log().store_columns({n: c for n, c in cols.items() if n != "wrench_raw"})
