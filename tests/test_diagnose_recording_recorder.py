"""The block recorder: memory stays flat in the number of steps."""

import tracemalloc

import mujoco

from mjscope.diagnose import RolloutCfg, run_rollout

SPHERE = """<mujoco><option timestep="0.002"/><worldbody>
<geom name="floor" type="plane" size="2 2 .1" solref="0.02 1" solimp="0.9 0.9 0.001"/>
<body pos="0 0 .1"><freejoint/><geom name="ball" size=".1" condim="1"
 solref="0.02 1" solimp="0.9 0.9 0.001"/></body></worldbody></mujoco>"""


def _peak(steps: int, path) -> int:
    m = mujoco.MjModel.from_xml_string(SPHERE)
    tracemalloc.start()
    run_rollout(m, RolloutCfg(steps=steps, csv=path, block_rows=1024))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_memory_flat_in_steps(tmp_path):
    small = _peak(5000, tmp_path / "s.csv")
    large = _peak(50000, tmp_path / "l.csv")
    # 10× the steps: the block, preview and statistics are bounded, so the peak may grow only
    # by allocator noise (30 % + 200 kB of slack), never in proportion to the steps.
    assert large < small * 1.3 + 200_000, (small, large)
    assert sum(1 for _ in (tmp_path / "l.csv").open()) == 50001  # header + one row per step


def test_raw_block_is_capped_for_big_models_and_the_csv_does_not_change(tmp_path, monkeypatch):
    """A model with many DOFs gets shorter blocks (bounded raw copies), same bytes out."""
    from mjscope.diagnose.recording import recorder

    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    run_rollout(mujoco.MjModel.from_xml_string(SPHERE), RolloutCfg(steps=3000, csv=a))
    monkeypatch.setattr(recorder, "RAW_BLOCK_BYTES", 16 * 1024)
    rows = []
    real_bind = recorder.Recorder.bind

    def spy(self, model, data):
        readers = real_bind(self, model, data)
        rows.append(self.rows)
        return readers

    monkeypatch.setattr(recorder.Recorder, "bind", spy)
    res = run_rollout(mujoco.MjModel.from_xml_string(SPHERE), RolloutCfg(steps=3000, csv=b))
    # SPHERE's raw sources: 5 force vectors of nv = 6, contacts, energy, island 0's 100 solver
    # improvements, ... ≈ 1.4 kB per row
    assert 4 < rows[0] < 16, rows
    assert res.steps_done == 3000 and a.read_bytes() == b.read_bytes()
