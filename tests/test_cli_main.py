from __future__ import annotations

import pytest

from mjscope.cli import build_parser, main


def test_help_lists_commands(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for cmd in ("models", "demo", "bench"):
        assert cmd in out


def test_no_command_prints_help_and_exits_2(capsys) -> None:
    assert main([]) == 2
    assert "usage" in capsys.readouterr().out


def test_models_lists_every_registered_model(capsys) -> None:
    from mjscope.models import names

    assert main(["models"]) == 0
    out = capsys.readouterr().out
    for n in names():
        assert n in out


def test_unknown_benchmark_is_one_line(capsys) -> None:
    assert main(["bench", "no_such_bench"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown benchmark" in err[0]


def test_parser_builds() -> None:
    assert build_parser().prog == "mjscope"
