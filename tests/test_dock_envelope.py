"""Envelope study: parsing, the drawn offsets, and success monotonic in magnitude (end to end)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from mjscope.cli import main as cli_main
from mjscope.dock.config import SceneCfg
from mjscope.dock.envelope import EnvelopeItem, envelope_draw, parse_envelope
from mjscope.exceptions import ConfigError


def test_parse_ranges_and_lists() -> None:
    env = parse_envelope("lateral=0:3e-3:7")
    assert env.kind == "lateral" and env.unit == "m"
    assert np.allclose(env.magnitudes, np.linspace(0, 3e-3, 7))
    assert parse_envelope("tilt=0,1,2.5").magnitudes == (0.0, 1.0, 2.5)
    assert parse_envelope("yaw=5:5:1").magnitudes == (5.0,)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("roll=0:1:3", "kind must be one of lateral, yaw, tilt"),
        ("lateral", "kind must be one of"),
        ("lateral=0:x:3", "cannot read the magnitudes"),
        ("lateral=0:1:0", "N must be 1..100"),
        ("lateral=-1,2", "must be finite and >= 0"),
        ("yaw=nan,1", "must be finite and >= 0"),
    ],
)
def test_bad_envelopes_are_one_line_errors(text: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        parse_envelope(text)


@pytest.mark.parametrize("kind", ["lateral", "yaw", "tilt"])
def test_each_trial_has_exactly_the_level_magnitude(kind: str) -> None:
    for k in range(20):
        d = envelope_draw(EnvelopeItem(SceneCfg(), kind, 3, 2.0, k, "cic", 7, None), 7)
        if kind == "lateral":
            assert math.isclose(math.hypot(*d.dock_dpos[:2]), 2.0) and d.dock_dpos[2] == 0.0
            assert d.dock_drpy_deg == (0.0, 0.0, 0.0)
        elif kind == "yaw":
            assert abs(d.dock_drpy_deg[2]) == 2.0 and d.dock_drpy_deg[:2] == (0.0, 0.0)
        else:
            assert math.isclose(math.hypot(*d.dock_drpy_deg[:2]), 2.0)
        assert d.dq == (0.0,) * 7
    same = envelope_draw(EnvelopeItem(SceneCfg(), kind, 3, 2.0, 5, "hqp", 7, None), 7)
    other = envelope_draw(EnvelopeItem(SceneCfg(), kind, 3, 2.0, 5, "cic", 7, None), 7)
    assert same == other  # every controller meets the same trial


def test_envelope_success_falls_with_the_lateral_offset(tmp_path: Path) -> None:
    """Within the 0.5 mm clearance every trial docks; 3 mm off, the peg lands on the rim."""
    argv = ["dock", "--scene", "iiwa14_docking", "--controller", "cic", "--envelope",
            "lateral=0,4e-4,3e-3", "--trials", "2", "--quick", "--jobs", "1",
            "--out", str(tmp_path)]  # fmt: skip
    assert cli_main(argv) == 0
    folder = tmp_path / "envelope" / "iiwa14_docking"
    rows = list(csv.DictReader((folder / "envelope.csv").open()))
    rates = [float(r["rate"]) for r in rows]
    assert rates == sorted(rates, reverse=True)  # monotonic in magnitude
    assert rates[0] == 1.0 and rates[-1] == 0.0
    assert rows[-1]["failed_trials"] == "0 1"
    assert float(rows[0]["wilson95_low"]) < 1.0 == float(rows[0]["wilson95_high"])
    assert (folder / "envelope.png").stat().st_size > 0 and (folder / "envelope.md").is_file()
    assert cli_main(["dock", "--envelope", "spin=1:2:3", "--out", str(tmp_path)]) == 2


def test_the_envelope_on_ray_gives_the_same_table(tmp_path: Path, ray_head) -> None:  # type: ignore[no-untyped-def]
    """Same items on the session's Ray head and in this process: byte-identical CSV."""
    from rich.console import Console

    from mjscope.dock.campaign_plan import CampaignCmdCfg
    from mjscope.dock.envelope import run_envelope
    from mjscope.runner import ExecutorCfg

    def run(out: Path, ex: ExecutorCfg) -> bytes:
        cmd = CampaignCmdCfg(scene="iiwa14_docking", controllers=("cic",), trials=1, quick=True,
                             out=out, executor=ex)  # fmt: skip
        assert run_envelope(cmd, "yaw=0,3", Console()) == 0
        return (out / "envelope" / "iiwa14_docking" / "envelope.csv").read_bytes()

    here = run(tmp_path / "a", ExecutorCfg(jobs=1, progress=False))
    assert run(tmp_path / "b", ExecutorCfg(ray=ray_head.address, progress=False)) == here
