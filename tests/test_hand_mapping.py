import numpy as np
import pytest

from mjscope.hand.mapping import (
    clamp_to_limits,
    complete_mimic_positions,
    open_hand_command,
    range_to_arc,
    sdk_range_to_full_urdf_positions,
    sdk_range_to_urdf_positions,
    urdf_positions_to_sdk_range,
)
from mjscope.hand.profile import load_profile
from tests.utils import assert_close

P = load_profile()

# (slot, joint, raw, expected joint rad) computed by hand from the L20-left tables
# (dir -1: max - raw/255*(max-min); dir 1: min + raw/255*(max-min); then / divisor).
CASES = [
    (0, "thumb_cmc_pitch", 96, 0.87 - 96 / 255 * 0.87),
    (1, "index_mcp_pitch", 0, 1.4),
    (2, "middle_mcp_pitch", 51, 1.4 - 51 / 255 * 1.4),
    (3, "ring_mcp_pitch", 200, 1.4 - 200 / 255 * 1.4),
    (4, "pinky_mcp_pitch", 255, 0.0),
    (5, "thumb_cmc_roll", 0, 0.683),
    (6, "index_mcp_roll", 193, -0.26 + 193 / 255 * 0.52),
    (7, "middle_mcp_roll", 148, -0.26 + 148 / 255 * 0.52),
    (8, "ring_mcp_roll", 105, -0.26 + 105 / 255 * 0.52),
    (9, "pinky_mcp_roll", 42, -0.26 + 42 / 255 * 0.52),
    (10, "thumb_cmc_yaw", 245, 1.78 - 245 / 255 * (1.78 - 0.122)),
    (15, "thumb_mcp", 144, (1.29 - 144 / 255 * 1.29) / 1.02),
    (16, "index_pip", 0, 1.08 / 0.89),
    (17, "middle_pip", 10, (1.08 - 10 / 255 * 1.08) / 0.89),
    (18, "ring_pip", 128, (1.08 - 128 / 255 * 1.08) / 0.89),
    (19, "pinky_pip", 254, (1.08 - 254 / 255 * 1.08) / 0.89),
]


@pytest.mark.parametrize(("slot", "joint", "raw", "rad"), CASES)
def test_every_slot_both_directions(slot, joint, raw, rad):
    vals = np.full(20, 255.0)
    vals[slot] = raw
    pos = sdk_range_to_urdf_positions(vals, P)
    assert pos[joint] == pytest.approx(rad, abs=1e-12)
    back = urdf_positions_to_sdk_range(pos, P)
    assert back[slot] == pytest.approx(raw, abs=1e-9)  # round trip, well within one count


def test_all_slots_at_once_and_reserved_slots():
    raw = np.array([c[2] for c in CASES], float)
    vals = np.zeros(20)
    vals[[c[0] for c in CASES]] = raw
    vals[11:15] = 77.0  # reserved: ignored
    arcs = range_to_arc(vals, P)
    assert np.all(arcs[11:15] == 0.0)
    pos = sdk_range_to_urdf_positions(vals, P)
    assert set(pos) == set(P.active_joints) and len(pos) == 16
    assert_close([pos[c[1]] for c in CASES], [c[3] for c in CASES], atol=1e-12)
    back = urdf_positions_to_sdk_range(pos, P)
    assert_close(back[[c[0] for c in CASES]], raw, atol=1.0, what="round trip [count]")
    assert np.all(back[11:15] == 0.0)


def test_fist_matches_facts_table():
    # Golden values: the fist row of ../shared/facts/g20_hand.md (slot → rad table of the seed's
    # mapping, G20 profile 1.02 / 0.89), to the 4 decimals the table gives.
    full = sdk_range_to_full_urdf_positions(P.fist_command, P)
    assert full["thumb_cmc_pitch"] == pytest.approx(0.5425, abs=1e-4)
    assert full["thumb_cmc_yaw"] == pytest.approx(0.9217, abs=1e-4)
    assert full["thumb_mcp"] == pytest.approx(0.5505, abs=1e-4)
    assert full["thumb_ip"] == pytest.approx(0.5615, abs=1e-4)  # = slot-15 rad
    assert full["index_pip"] == pytest.approx(1.2135, abs=1e-4)
    assert full["index_dip"] == pytest.approx(1.08, abs=1e-12)  # = slot-16 rad
    assert len(full) == 21


def test_raw_values_are_clamped():
    lo = sdk_range_to_urdf_positions(np.full(20, -50.0), P)
    hi = sdk_range_to_urdf_positions(np.full(20, 900.0), P)
    assert lo == sdk_range_to_urdf_positions(np.zeros(20), P)
    assert hi == sdk_range_to_urdf_positions(np.full(20, 255.0), P)


def test_complete_mimic_never_overwrites():
    out = complete_mimic_positions({"thumb_mcp": 0.5, "index_pip": 1.0, "index_dip": 0.3}, P)
    assert out["thumb_ip"] == pytest.approx(0.51)
    assert out["index_dip"] == 0.3
    assert "middle_dip" not in out  # driver absent


def test_open_command_and_limit_clamp():
    assert open_hand_command(P) == [255.0] * 6 + [193.0, 148.0, 105.0, 42.0, 245.0] + [255.0] * 9
    limits = {"a": (0.0, 1.4), "b": (-0.17, 0.17), "n": (0.0, 0.06)}
    out = clamp_to_limits({"a": -1.0, "b": 0.1744, "n": 0.0, "free": 9.0}, limits, 0.05)
    assert out == pytest.approx({"a": 0.05, "b": 0.12, "n": 0.03, "free": 9.0})
