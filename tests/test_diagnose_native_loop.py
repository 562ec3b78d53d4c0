"""The compiled step loop gives the Python loop's rollout bit for bit, events and errors too."""

import os
from pathlib import Path

import mujoco
import numpy as np
import pytest

from mjscope.diagnose import RolloutCfg, native_loop, run_rollout
from mjscope.diagnose import loop as loop_mod
from mjscope.diagnose.episode import collect_mujoco_warnings
from mjscope.models import load

needs_native = pytest.mark.skipif(
    not native_loop.available() and not os.environ.get("CI"),
    reason="the compiled step loop was not built (no C compiler at install)",
)

BOXES = """<mujoco><size memory="{mem}"/><option timestep="0.002"/>
<worldbody><geom type="plane" size="2 2 .1"/>{bodies}</worldbody></mujoco>"""


def _boxes(n: int, mem: str = "4M") -> mujoco.MjModel:
    """``n`` free boxes just above a plane: 4 contacts each once they land."""
    body = '<body pos="{x} 0 0.11"><freejoint/><geom type="box" size=".1 .1 .1"/></body>'
    xml = BOXES.format(mem=mem, bodies="".join(body.format(x=0.3 * i) for i in range(n)))
    return mujoco.MjModel.from_xml_string(xml)


def _xml(text: str) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(text)


def _run(
    monkeypatch: pytest.MonkeyPatch, model: mujoco.MjModel, native: bool, tmp: Path, **kw
) -> tuple:
    """One rollout with the compiled or the Python loop: its result, CSV bytes, calls to C."""
    monkeypatch.setenv(native_loop.ENV, "" if native else "python")
    calls = []
    real = native_loop.NativeLoop.steps

    def counted(self, *a):
        calls.append(a)
        return real(self, *a)

    monkeypatch.setattr(native_loop.NativeLoop, "steps", counted)
    out = tmp / ("native.csv" if native else "python.csv")
    with collect_mujoco_warnings() as said:
        res = run_rollout(model, RolloutCfg(csv=out, **kw))
    return res, out.read_bytes(), len(calls), said


def _both(monkeypatch: pytest.MonkeyPatch, make, tmp: Path, **kw) -> tuple:
    """The same rollout of a fresh ``make()`` with the Python loop, then the compiled one."""
    return tuple(_run(monkeypatch, make(), native, tmp, **kw) for native in (False, True))


def _same(a, b) -> None:
    ra, ca, _, wa = a
    rb, cb, _, wb = b
    assert ca == cb  # the CSV, byte for byte
    assert (ra.steps_done, ra.time, ra.warnings, ra.divergence) == (
        rb.steps_done, rb.time, rb.warnings, rb.divergence,
    )  # fmt: skip
    assert ra.columns == rb.columns and ra.header == rb.header
    timing = ("cpu_per_step_s", "wall_per_step_s")  # measured, not recorded
    assert {k: v for k, v in ra.probes.items() if k not in timing} == {
        k: v for k, v in rb.probes.items() if k not in timing
    }
    np.testing.assert_array_equal(ra.preview, rb.preview)
    np.testing.assert_array_equal(ra.final_data.qpos, rb.final_data.qpos)
    assert wa == wb  # MuJoCo's warning texts reach the same collectors


def test_available_where_built():
    # CI installs with a compiler: there the compiled loop must be what runs
    if os.environ.get("CI"):
        assert native_loop.available()
    assert native_loop._steploop is None or native_loop._steploop.slot_count() == len(
        native_loop.PLAN_SLOTS
    )


@needs_native
@pytest.mark.parametrize(
    "name, kw",
    [
        ("quadruped", {"steps": 2600}),  # servos: constant control, sampler every 10th row
        ("quadruped", {"steps": 1500, "ctrl": "noise", "block_rows": 256}),  # noise rows
        ("fr3", {"steps": 1200}),  # motors: the held motors' feedback in C
        ("gripper_cylinder", {"steps": 900, "ctrl": "sine", "contact_every": 0}),
        ("quadruped", {"steps": 700, "contact_every": 1, "columns": ("qpos", "qvel")}),
        ("fourbar", {"steps": 1500}),  # a connect equality: its per-step read in C
        ("g20_left", {"steps": 600, "ctrl": "noise"}),  # mimic joints: joint equalities
    ],
)
def test_native_rollout_is_the_python_rollout(monkeypatch, tmp_path, name, kw):
    a, b = _both(monkeypatch, lambda: load(name), tmp_path, **kw)
    assert a[2] == 0 and b[2] > 0  # each ran the loop it was meant to
    _same(a, b)


WELD = """<mujoco><option timestep="0.002"/><worldbody>
<body name="a" pos="0 0 1"><freejoint/><geom type="box" size=".1 .05 .05" mass="1"/></body>
<body name="b" pos="0.25 0 1" euler="0 0 20"><freejoint/>
<geom type="box" size=".1 .05 .05" mass="1"/></body></worldbody>
<equality><weld body1="a" body2="b" relpose="0.2 0 0 1 0 0 0" torquescale="2"/></equality>
</mujoco>"""


@needs_native
def test_weld_rotation_violation_in_c_is_pythons(monkeypatch, tmp_path):
    # two free boxes welded 5 cm and 20° off their relpose: 6 rows, the rotation branch
    a, b = _both(monkeypatch, lambda: _xml(WELD), tmp_path, steps=600, block_rows=128)
    eq = b[0].probes["equalities"][0]
    assert b[2] > 0 and eq["type"] == "weld" and 0.2 < eq["max_rotation_rad"] < 0.5
    _same(a, b)


MIXED = """<mujoco><option timestep="0.002"/><worldbody>
<geom type="plane" size="2 2 .1" condim="1"/>
<body pos="0 0 0.11"><freejoint/><geom type="box" size=".1 .1 .1" condim="3"/></body>
<body pos="0.5 0 0.3"><freejoint/><geom type="box" size=".1 .1 .1" condim="1"/></body>
<body pos="-0.5 0 0.2"><freejoint/><geom type="sphere" size=".1" condim="6"/></body>
</worldbody></mujoco>"""


@needs_native
def test_condim_1_rows_go_to_python_in_step_order(monkeypatch, tmp_path):
    # the condim-1 box lands later: the first samples are captured in C, the later ones
    # (its slip speed) sampled in Python after the captured ones are drained
    a, b = _both(monkeypatch, lambda: _xml(MIXED), tmp_path, steps=1200, contact_every=3)
    assert b[2] > 100  # the condim-1 samples were events
    assert {p["condim"] for p in b[0].probes["contact_pairs"]} == {1, 3, 6}
    _same(a, b)


@needs_native
def test_time_slices_change_nothing(monkeypatch, tmp_path):
    a = _run(monkeypatch, load("fr3"), True, tmp_path, steps=1000, contact_every=0)
    monkeypatch.setattr(native_loop, "SLICE_S", 0.0)  # return at every timed step
    b = _run(monkeypatch, load("fr3"), True, tmp_path, steps=1000, contact_every=0)
    assert b[2] >= 1000 // loop_mod.CPU_SAMPLE_EVERY > a[2]
    _same(a, b)


@needs_native
def test_watched_overflow_and_full_arena_warning(monkeypatch, tmp_path):
    # 12 boxes: 48 contacts, past the 32 gathered slots (the watch's event in C), and an
    # arena too small for their constraints (MuJoCo's CNSTRFULL warning, forwarded)
    a, b = _both(monkeypatch, lambda: _boxes(12, "60K"), tmp_path, steps=300)
    assert any("arena" in w.lower() for w in b[3])
    ncon = next(c for c in b[0].columns if c["name"] == "ncon")
    assert ncon["max"] > 32
    _same(a, b)


UNSTABLE = """<mujoco><option timestep="0.002" gravity="0 0 0"/><worldbody><body pos="0 0 1">
<joint name="s" type="slide" axis="0 0 1" stiffness="6e5" springref="0.001"/>
<geom size=".05" contype="0" conaffinity="0"/></body></worldbody></mujoco>"""


@needs_native
@pytest.mark.parametrize("rows", [1024, 16])
def test_divergence_stops_both_loops_at_the_same_row(monkeypatch, tmp_path, rows):
    # an explicit spring past its stability limit (ω·h ≈ 2.2): ×2.2 per step, BADQACC mid-run
    a, b = _both(monkeypatch, lambda: _xml(UNSTABLE), tmp_path, steps=400, block_rows=rows)
    assert b[0].divergence is not None and 16 < b[0].steps_done < 400
    _same(a, b)


@needs_native
def test_a_fatal_error_in_mj_step_is_mujocos_fatal_error(monkeypatch, tmp_path):
    for native in (False, True):
        m = load("quadruped")
        m.opt.integrator = 17  # mj_step: invalid integrator (mju_error in the engine)
        monkeypatch.setenv(native_loop.ENV, "" if native else "python")
        with pytest.raises(mujoco.FatalError, match=r"^mj_step: invalid integrator$"):
            run_rollout(m, RolloutCfg(steps=50))
    # the thread's log handler is MuJoCo's again: a later warning still reaches us
    with collect_mujoco_warnings() as said:
        run_rollout(_boxes(12, "60K"), RolloutCfg(steps=200, contact_every=0))
    assert any("arena" in w.lower() for w in said)


def test_python_loop_when_switched_off(monkeypatch):
    monkeypatch.setenv(native_loop.ENV, "python")
    assert not native_loop.available()
