from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mjscope.config import MAX_YAML_BYTES, from_dict, load_yaml_text, read_yaml
from mjscope.exceptions import ConfigError


@dataclass(frozen=True)
class InnerCfg:
    gain: float = 1.0
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class OuterCfg:
    rate_hz: float = 90.0
    count: int = 3
    inner: InnerCfg = field(default_factory=InnerCfg)
    label: str | None = None


def test_defaults_overridden_and_nested() -> None:
    cfg = from_dict(OuterCfg, {"rate_hz": 60, "inner": {"names": ["a", "b"]}})
    assert cfg == OuterCfg(60.0, 3, InnerCfg(1.0, ("a", "b")), None)


def test_unknown_key_lists_valid_keys() -> None:
    with pytest.raises(ConfigError, match=r"unknown key\(s\) 'rate'.*valid keys: count, inner"):
        from_dict(OuterCfg, {"rate": 1})
    with pytest.raises(ConfigError, match=r"config\.inner: unknown key"):
        from_dict(OuterCfg, {"inner": {"gian": 2}})


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"rate_hz": "fast"}, "expected a number"),
        ({"count": 1.5}, "expected an integer"),
        ({"inner": {"names": "ab"}}, "expected a list"),
        ({"inner": 3}, "expected a mapping"),
    ],
)
def test_wrong_kinds_are_errors(data: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        from_dict(OuterCfg, data)


def test_read_yaml_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        read_yaml(tmp_path / "none.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1, 2\nb: 3\n")
    with pytest.raises(ConfigError, match="not valid YAML at line"):
        read_yaml(bad)
    lst = tmp_path / "list.yaml"
    lst.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        read_yaml(lst)


def test_read_yaml_binary_file_is_a_config_error(tmp_path: Path) -> None:
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe: 1\n")
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        read_yaml(binary)


def test_yaml_nested_10000_deep_is_one_line_error(tmp_path: Path) -> None:
    p = tmp_path / "deep.yaml"
    p.write_text("a: " + "[" * 10000 + "]" * 10000 + "\n")
    with pytest.raises(ConfigError, match=r"nests deeper than 64 levels at line 1; .*flatten"):
        read_yaml(p)


def test_yaml_over_the_size_cap_is_refused_before_parsing(tmp_path: Path) -> None:
    p = tmp_path / "big.yaml"
    with p.open("wb") as f:  # sparse: 17 MiB without writing them
        f.truncate(MAX_YAML_BYTES + 2**20)
    with pytest.raises(ConfigError, match=r"17 MiB, over the 16 MiB YAML limit"):
        read_yaml(p)


def test_yaml_text_keeps_ordinary_documents() -> None:
    assert load_yaml_text("a: [1, {b: 2}]\n", "x") == {"a": [1, {"b": 2}]}
    assert load_yaml_text("- 1\n- 2\n", "x") == [1, 2]
    with pytest.raises(ConfigError, match=r"x is not valid YAML at line 2: fix the syntax"):
        load_yaml_text("a: [1,\n", "x")
