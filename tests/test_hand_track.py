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
