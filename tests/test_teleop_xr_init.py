"""The factory: every kind builds, unknown kinds and options fail naming the valid ones."""

from __future__ import annotations

import pytest

import mjscope.teleop.xr as xr
from mjscope.exceptions import ConfigError, UnknownNameError
from mjscope.teleop.xr import KINDS, XrSource, demo_replay_path, make_xr_source
from tests.test_teleop_xr_sdk import require_sdk

OPTIONS = {
    "udp": {"port": 0},
    "replay": {"path": str(demo_replay_path())},
    "demo": {"loop": True},
    "sdk": {},
}


def test_all_names_are_exported():
    for name in xr.__all__:
        assert hasattr(xr, name), name
    assert set(KINDS) == set(OPTIONS)


@pytest.mark.parametrize("kind", sorted(OPTIONS))
def test_each_kind_builds_polls_and_closes(kind):
    if kind == "sdk":
        require_sdk()
    src = make_xr_source(kind, **OPTIONS[kind])
    with src:
        assert isinstance(src, XrSource)
        out = src.poll(0.0)
        # udp: nothing sent; sdk: no PC service on this port in this test (stamp 0) or a
        # replayed frame if another test's fake service runs; replay and demo: the first row.
        if kind in ("replay", "demo"):
            assert out is not None and out.stamp_ns == 1
        if kind == "udp":
            assert out is None
    assert src.rejects == {} or kind == "sdk"


def test_unknown_kind_lists_the_kinds():
    with pytest.raises(UnknownNameError, match=r"unknown XR source 'pico'; known: demo, replay"):
        make_xr_source("pico")


def test_unknown_option_lists_the_valid_ones():
    with pytest.raises(
        ConfigError, match=r"'udp': unknown option\(s\) 'prot'; valid options: port"
    ):
        make_xr_source("udp", prot=5)
    with pytest.raises(
        ConfigError, match=r"'sdk': unknown option\(s\) 'sdk'; valid options: \(none\)"
    ):
        make_xr_source("sdk", sdk=object())


def test_missing_required_option():
    with pytest.raises(ConfigError, match=r"'replay': missing option\(s\) path"):
        make_xr_source("replay")
