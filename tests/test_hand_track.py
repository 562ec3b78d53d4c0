import pytest

from mjscope.hand.bridge import HandBridge, HandBridgeCfg
from mjscope.hand.model import build_hand_model
from mjscope.hand.profile import load_profile
from mjscope.hand.track import HALF_GRIP, run_track_test

P = load_profile()


def _bridge(pd: bool, gravity: bool = False) -> HandBridge:
    hand = build_hand_model("g20_left", P, pd=pd, gravity=gravity)
    return HandBridge(hand, HandBridgeCfg(pd_drive=pd, slew_rad_s=0.0, self_collision=pd))


def test_track_test_passes_hard_write_without_projection():
    res = run_track_test(_bridge(pd=False))
    assert res.passed and res.max_error == pytest.approx(0.0, abs=1e-12) and res.steps == 720


@pytest.mark.parametrize("gravity", [False, True])
def test_track_test_passes_pd(gravity):
    b = _bridge(pd=True, gravity=gravity)
    res = run_track_test(b)
    assert res.passed and res.recoveries == 0
    assert res.max_error <= 0.02
    if gravity:  # gravity sags the fingers measurably below the tolerance
        assert 1e-4 < res.max_error


def test_pd_tracks_the_half_grip_and_can_fail():
    b = _bridge(pd=True)
    b.command_sdk(HALF_GRIP)
    b.step()
    assert b.tracking_error()[0] > 0.1  # PD lags right after the switch
    short = run_track_test(_bridge(pd=True), steps=170, switch_every=160, settle=1)
    assert not short.passed and short.max_error > 0.02  # no time to settle: FAIL


def test_switching_error_and_settle_time_tell_the_modes_apart():
    hard = run_track_test(_bridge(pd=False))
    assert hard.switching_max_error == pytest.approx(0.0, abs=1e-12)
    assert hard.settle_time_s == 0.0  # hard-write is on target at every step
    pd = run_track_test(_bridge(pd=True))
    assert pd.switching_max_error > 0.1  # PD lags a step change of the targets
    phase_s = 160 * pd.control_dt
    assert pd.settle_time_s is not None and 10 * pd.control_dt < pd.settle_time_s < phase_s
    # Check the settle time independently: replay the first switch and watch the error.
    b = _bridge(pd=True)
    b.command_sdk(HALF_GRIP)
    errs = []
    for _ in range(160):
        b.step()
        errs.append(b.tracking_error()[0])
    n = round(pd.settle_time_s / pd.control_dt)
    assert max(errs[n:]) <= 0.02 < errs[0]


def test_a_switch_that_never_settles_has_no_settle_time():
    short = run_track_test(_bridge(pd=True), steps=20, switch_every=10, settle=1)
    assert short.settle_time_s is None and not short.passed
