"""A rollout that runs longer than PROGRESS_AFTER_S shows a progress line; never when piped."""

import mujoco

from mjscope.diagnose import loop
from mjscope.diagnose.rollout import RolloutCfg, run_rollout

BOX = """<mujoco><worldbody><geom type="plane" size="1 1 .1"/><body pos="0 0 .1"><freejoint/>
<geom type="box" size=".05 .05 .05"/></body></worldbody></mujoco>"""


def test_progress_line_after_the_threshold_and_silent_when_piped(monkeypatch, capsys):
    monkeypatch.setattr(loop, "PROGRESS_AFTER_S", 0.0)
    m = mujoco.MjModel.from_xml_string(BOX)
    run_rollout(m, RolloutCfg(steps=3000, block_rows=256, progress=True))
    err = capsys.readouterr().err
    assert "diagnose rollout" in err and "100%" in err and "t=6.00 s" in err
    run_rollout(m, RolloutCfg(steps=3000, block_rows=256))  # None: stderr is not a terminal
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(loop, "PROGRESS_AFTER_S", 1e9)  # a short rollout: no line at all
    run_rollout(m, RolloutCfg(steps=3000, block_rows=256, progress=True))
    assert capsys.readouterr().err == ""
