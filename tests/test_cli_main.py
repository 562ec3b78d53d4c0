from __future__ import annotations

import json

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


def test_every_subcommand_has_a_handler() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    choices = sub.choices  # type: ignore[attr-defined]
    assert {"models", "demo", "bench", "diagnose"} <= set(choices)
    for name, p in choices.items():
        assert callable(p.get_default("func")), name


def test_bench_json_path_checked_before_running(tmp_path, capsys) -> None:
    bench = tmp_path / "benchmarks"
    bench.mkdir()
    marker = tmp_path / "ran"
    (bench / "bench_probe.py").write_text(
        f"def run(quick=False):\n    open({str(marker)!r}, 'w').close()\n"
        "    return [{'metric': 'm', 'value': 1.0, 'unit': 'x', 'ratio': 1.0}]\n"
    )
    rc = main(["bench", "--dir", str(bench), "--json", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "is a folder" in err[0]
    assert not marker.exists()
    out = tmp_path / "rows.json"
    assert main(["bench", "--dir", str(bench), "--json", str(out)]) == 0
    assert marker.exists() and '"ratio": 1.0' in out.read_text()


def test_demo_unknown_part_is_one_line_and_writes_nothing(tmp_path, capsys) -> None:
    out = tmp_path / "demo-out"
    assert main(["demo", "--only", "nope", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown demo part 'nope'" in err[0] and "diagnose" in err[0]
    assert not out.exists()


def test_help_lists_exactly_the_commands_that_exist(capsys) -> None:
    from mjscope.cli import COMMANDS

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    choices = set(sub.choices)  # type: ignore[attr-defined]
    assert choices == {c.replace("_", "-") for c in COMMANDS}
    text = parser.format_help()
    for word in ("diagnose", "mirror", "mock-arm", "hand", "teleop", "dock"):
        assert (word in text) == (word in choices), word  # none promised that is not there


def test_interrupt_chains_are_recognised() -> None:
    from mjscope.signals import interrupted

    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as k:
            raise ImportError("initialization failed") from k
    except ImportError as e:
        assert interrupted(e)
    assert not interrupted(ImportError("no module named x"))


@pytest.mark.parametrize("delay_s", [0.05, 0.15, 0.3, 0.6])
def test_ctrl_c_at_any_moment_exits_130_without_a_traceback(delay_s: float, tmp_path) -> None:
    # While mjscope still imports NumPy/MuJoCo, while the scene builds, or while it runs.
    import os
    import shutil
    import signal
    import subprocess
    import time

    exe = shutil.which("mjscope")
    assert exe is not None
    proc = subprocess.Popen(
        [exe, "dock", "--out", str(tmp_path)],  # a full run: several seconds
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "MJSCOPE_ANNOUNCE_START": "1"},
    )
    assert proc.stderr is not None
    # Python's own start-up (site, .pth files) is outside the contract: wait until mjscope runs.
    assert proc.stderr.readline() == "mjscope: started\n"
    time.sleep(delay_s)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert proc.returncode == 130, (proc.returncode, err)


def test_bench_duration_reaches_only_scripts_that_take_it(tmp_path, capsys) -> None:
    bench = tmp_path / "b"
    bench.mkdir()
    (bench / "bench_timed.py").write_text(
        "def run(quick=False, duration=None):\n"
        "    return [{'metric': 'd', 'value': duration, 'unit': 's'}]\n"
    )
    (bench / "bench_plain.py").write_text(
        "def run(quick=False):\n    return [{'metric': 'q', 'value': quick, 'unit': ''}]\n"
    )
    out = tmp_path / "rows.json"
    assert main(["bench", "--dir", str(bench), "--duration", "7.5", "--json", str(out)]) == 0
    rows = {r["metric"]: r["value"] for r in json.loads(out.read_text())}
    assert rows == {"d": 7.5, "q": False}
    assert main(["bench", "--dir", str(bench), "--duration", "0"]) == 2
    assert "--duration 0.0 must be > 0" in capsys.readouterr().err


def _console_code(monkeypatch, fake_main) -> int:
    """``mjscope._console.run`` with ``fake_main`` as the command line; its exit code."""
    import signal

    import mjscope.cli
    from mjscope import _console

    monkeypatch.setattr(mjscope.cli, "main", fake_main)
    monkeypatch.setattr(_console, "_sigint", [False])
    old = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(SystemExit) as done:
            _console.run()
    finally:
        signal.signal(signal.SIGINT, old)
    return int(done.value.code)


def _ctrl_c() -> None:
    import os
    import signal
    import time

    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.01)  # the handler runs here


def test_a_ctrl_c_a_library_dropped_still_ends_130(monkeypatch) -> None:
    def swallowed() -> int:  # as CPython drops one raised in an import lock's weakref callback
        try:
            _ctrl_c()
        except KeyboardInterrupt:
            pass
        return 0  # the run carried on to its end

    assert _console_code(monkeypatch, swallowed) == 130


def test_an_error_after_a_ctrl_c_ends_130_without_a_traceback(monkeypatch) -> None:
    import ctypes

    def converted() -> int:  # ctypes turns it into ArgumentError while converting an argument
        try:
            _ctrl_c()
        except KeyboardInterrupt:
            raise ctypes.ArgumentError("argument 1: KeyboardInterrupt: ") from None
        return 0

    assert _console_code(monkeypatch, converted) == 130


def test_an_endless_run_that_noted_its_ctrl_c_keeps_its_exit_code(monkeypatch) -> None:
    from mjscope.signals import INTERRUPTS

    def endless() -> int:  # a mirror without --duration: Ctrl-C is its normal end
        INTERRUPTS.reset()
        try:
            _ctrl_c()
        except KeyboardInterrupt:
            INTERRUPTS.note()
        return 0

    assert _console_code(monkeypatch, endless) == 0


def test_an_error_without_a_ctrl_c_is_not_called_an_interrupt(monkeypatch) -> None:
    def broken() -> int:
        raise RuntimeError("a real bug")

    monkeypatch.setattr("mjscope.signals.INTERRUPTS.seen", False)
    with pytest.raises(RuntimeError, match="a real bug"):
        _console_code(monkeypatch, broken)
