import csv

import mujoco
import numpy as np
import pytest

from mjscope.diagnose import RolloutCfg, diagnose
from mjscope.diagnose.checks.contact import contact_slip_rule
from tests.utils import assert_close

# A 1 kg box on a plane tilted by 30°: it slides when μ < tan 30° ≈ 0.577.
SLOPE = """<mujoco><option timestep="0.002" cone="elliptic"/>
<worldbody><geom name="ramp" type="plane" size="5 5 .1" euler="0 30 0" friction="{mu} .005 .0001"/>
<body name="box" pos="0 0 .1" euler="0 30 0"><freejoint/>
<geom name="box" type="box" size=".05 .05 .05" mass="1" friction="{mu} .005 .0001"/></body>
</worldbody></mujoco>"""


def _run(mu: float, every: int = 1, path=None):
    m = mujoco.MjModel.from_xml_string(SLOPE.format(mu=mu))
    return diagnose(m, "slope", RolloutCfg(steps=1000, contacts=path, contact_every=every))


def test_resting_box_normal_forces_carry_its_weight():
    m = mujoco.MjModel.from_xml_string(SLOPE.format(mu=1.0))
    dg = diagnose(m, "slope", RolloutCfg(steps=500, contact_every=1))
    pairs = dg.result.probes["contact_pairs"]
    assert [(p["geom1"], p["geom2"]) for p in pairs] == [("ramp", "box")]
    p = pairs[0]
    assert p["condim"] == 3 and p["friction"][0] == 1.0 and p["solref"] == [0.02, 1.0]
    # resting on 4 corner contacts: total normal force = m g cos 30°, tangential m g sin 30°
    d = dg.result.final_data
    fn = ft = 0.0
    f = np.zeros(6)
    for k in range(d.ncon):
        mujoco.mj_contactForce(m, d, k, f)
        fn, ft = fn + f[0], ft + np.hypot(f[1], f[2])
    assert_close(fn, 9.81 * np.cos(np.pi / 6), rtol=0.02)
    assert_close(ft, 9.81 * np.sin(np.pi / 6), rtol=0.02)
    assert p["sliding_fraction"] < 0.05
    assert not contact_slip_rule(m, dg.result)


def test_low_friction_box_slides_and_raises_contact_slip(tmp_path):
    path = tmp_path / "contacts.csv"
    dg = _run(0.1, path=path)
    p = dg.result.probes["contact_pairs"][0]
    assert p["late_sliding_fraction"] > 0.9
    assert_close(p["max_ft_over_mufn"], 1.0, rtol=0.03)
    codes = [f for f in dg.findings if f.code == "CONTACT_SLIP"]
    assert len(codes) == 1 and "ramp" in codes[0].element and "friction[0]" in codes[0].fix
    rows = list(csv.DictReader(path.open()))
    assert rows and {r["geom1"] for r in rows} == {"ramp"}
    assert all(r["sliding"] == "1" for r in rows[len(rows) // 2 :])
    # friction saturated: |f_t| = μ f_n on every sliding row
    for r in rows[-20:]:
        assert_close(float(r["ft [N]"]), 0.1 * float(r["fn [N]"]), rtol=0.03)


@pytest.mark.parametrize("every", [1, 10])
def test_sampling_stride_keeps_the_verdict(every):
    dg = _run(0.1, every=every)
    assert dg.result.probes["contact_sample_every"] == every
    assert any(f.code == "CONTACT_SLIP" for f in dg.findings)


@pytest.mark.parametrize("every", [1, 7])
def test_rollout_reader_samples_the_steps_read_does(every):
    """The recorder's countdown reader and a plain ``read`` per step give the same summary."""
    from mjscope.diagnose import run_rollout
    from mjscope.diagnose.probes import ContactDetailProbe

    steps = 300
    res = run_rollout(
        mujoco.MjModel.from_xml_string(SLOPE.format(mu=0.1)),
        RolloutCfg(steps=steps, contact_every=every, block_rows=64),
    )
    m = mujoco.MjModel.from_xml_string(SLOPE.format(mu=0.1))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    probe = ContactDetailProbe(steps, every)
    probe.bind(m, d, np.zeros((steps, 0)))
    touching = 0  # sampled steps with a contact: the box's one pair is captured at each
    for i in range(steps):
        mujoco.mj_step(m, d)
        probe.read(i)
        touching += i % every == 0 and d.ncon > 0
    ref = probe.summary()
    got = {k: res.probes[k] for k in ref}
    assert got == ref
    assert ref["contact_last_step"] == steps - 1
    assert 0 < ref["contact_pairs"][0]["samples"] == touching < len(range(0, steps, every))


def test_contacts_csv_has_vt_for_condim_3_sliding_and_resting(tmp_path):
    # μ = 0.1 slides down the 30° ramp (a = g(sin 30° − 0.1 cos 30°) ≈ 4.06 m/s²): after 2 s
    # of sliding vt ≈ 8 m/s; μ = 1 rests (MuJoCo's soft friction creeps at ~2 mm/s).
    # condim 3 used to give NaN.
    for mu, check in ((0.1, lambda v: v > 3.0), (1.0, lambda v: v < 0.01)):
        path = tmp_path / f"c{mu}.csv"
        _run(mu, path=path)
        with path.open() as fh:
            rows = list(csv.DictReader(fh))
        vt = [float(r["vt [m/s]"]) for r in rows if r["condim"] == "3"]
        assert vt and all(np.isfinite(vt)) and check(vt[-1]), vt[-5:]
