import ast
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from mjscope.cli import main
from tests.utils import asset

DIVERGE = """<mujoco><worldbody><body pos="0 0 1">
<joint name="s" type="slide" axis="0 0 1" stiffness="1e20" springref="1"/>
<geom size=".05"/></body></worldbody></mujoco>"""


def test_quadruped_report_json_csv_plot(tmp_path, capsys):
    js, csv = tmp_path / "r.json", tmp_path / "r.csv"
    rc = main(
        [
            "diagnose",
            "quadruped",
            "--steps",
            "300",
            "--ctrl",
            "hold",
            "--json",
            str(js),
            "--csv",
            str(csv),
            "--plot",
            str(tmp_path / "plots"),
        ]
    )
    out = capsys.readouterr().out
    # The bundled quadruped (models/robots/quadruped_constants.py): NQ = 7 + 12 (a free joint's
    # position + quaternion, 12 hinges), NV = 6 + 12, NU = 12 actuators, 7 sensors.
    assert rc == 0 and "OK: 0 errors" in out and "nq=19 > nv=18" in out
    rep = json.loads(js.read_text())
    assert rep["mujoco_version"] and rep["summary"]["nq"] == 19 and len(rep["actuators"]) == 12
    assert rep["rollout"]["steps_done"] == 300 and len(rep["rollout"]["sensors"]) == 7
    assert (tmp_path / "plots" / "diagnose.png").stat().st_size > 10_000
    assert len(csv.read_text().splitlines()) == 301  # header + one row per step


def test_compare_cli_exit_codes(tmp_path, capsys):
    a, b, c = (str(tmp_path / f"{k}.csv") for k in "abc")
    for path, seed in ((a, 1), (b, 1), (c, 2)):
        main(
            [
                "diagnose",
                "quadruped",
                "--steps",
                "200",
                "--ctrl",
                "noise",
                "--seed",
                str(seed),
                "--csv",
                path,
                "--quiet",
            ]
        )
    assert main(["diagnose", "compare", a, b]) == 0
    assert main(["diagnose", "compare", a, c, "--tol", "1e-6", "--plot", str(tmp_path)]) == 1
    assert "DIFFERENT" in capsys.readouterr().out
    assert (tmp_path / "compare.png").exists()


def test_sweep_timestep_and_geom_solref(tmp_path, capsys):
    rc = main(
        [
            "diagnose",
            "quadruped",
            "--steps",
            "200",
            "--ctrl",
            "hold",
            "--quiet",
            "--set",
            "option.timestep=0.002,0.004",
            "--set",
            "geom:*_foot.solref=0.005 1;0.02 1",
            "--plot",
            str(tmp_path),
            "--json",
            str(tmp_path / "s.json"),
        ]
    )
    assert rc == 0 and "sweep" in capsys.readouterr().out
    runs = json.loads((tmp_path / "s.json").read_text())["runs"]
    assert [r["summary"]["timestep"] for r in runs] == [0.002, 0.004, 0.002, 0.002]
    assert [r["model"].split("=")[-1] for r in runs][2:] == ["0.005 1]", "0.02 1]"]
    assert (tmp_path / "sweep.png").exists()


def _err(capsys, argv, code=2):
    rc = main(argv)
    err = capsys.readouterr().err.strip()
    assert rc == code, err
    return err


def test_bad_inputs_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco>\n<worldbody>\n<body>\n</worldbod>\n</mujoco>\n")
    assert "line 4" in _err(capsys, ["diagnose", str(bad)]).lower()
    miss = tmp_path / "miss.xml"
    miss.write_text(
        '<mujoco><asset><mesh name="m" file="nope.stl"/></asset>'
        '<worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>'
    )
    assert "nope.stl" in _err(capsys, ["diagnose", str(miss)])
    assert "quadruped" in _err(capsys, ["diagnose", "no_such_model"])
    assert "compare" in _err(capsys, ["diagnose", "compare", "only_one.csv"])
    assert "option" in _err(capsys, ["diagnose", "fourbar", "--set", "nonsense=1"])
    assert "no geom matches" in _err(
        capsys, ["diagnose", "quadruped", "--set", "geom:paw*.condim=1,3"]
    )
    assert "fourbar" in _err(capsys, ["diagnose", "nope", "--set", "option.timestep=0.001,0.002"])
    assert "not numeric" in _err(capsys, ["diagnose", "fourbar", "--set", "option.timestep=a,b"])
    for e in (_err(capsys, ["diagnose", "fourbar", "--key", "nope"]),):
        assert "keyframe" in e and "\n" not in e
    for scale in ("nan", "-1"):
        e = _err(capsys, ["diagnose", "fourbar", "--ctrl", "noise", "--noise-scale", scale])
        assert "--noise-scale" in e and "\n" not in e


def test_unwritable_output(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    for flag in ("--csv", "--json"):
        err = _err(capsys, ["diagnose", "fourbar", "--steps", "10", flag, str(blocker / "x.out")])
        assert "cannot create folder" in err and "\n" not in err
    err = _err(capsys, ["diagnose", "fourbar", "--steps", "10", "--plot", str(blocker / "plots")])
    assert "cannot create" in err and str(blocker) in err


def test_diverging_model_reports_and_exits_1(tmp_path, capsys):
    p = tmp_path / "div.xml"
    p.write_text(DIVERGE)
    js = tmp_path / "div.json"
    rc = main(["diagnose", str(p), "--steps", "100", "--json", str(js)])
    out = capsys.readouterr().out
    assert rc == 1 and "diverged" in out and "FAIL" in out
    rep = json.loads(js.read_text())
    assert rep["rollout"]["divergence"]["joint"] == "s"
    assert main(["diagnose", str(p), "--steps", "5", "--fail-on", "never", "--quiet"]) == 0


@pytest.mark.parametrize(
    "urdf", [("rm75", "urdf", "rm_75.urdf"), ("linkerhand_l20_left", "linkerhand_l20_left.urdf")]
)
def test_shared_assets_run_without_traceback(urdf, capsys):
    path = asset(*urdf)
    rc = main(["diagnose", str(path), "--steps", "200", "--quiet", "--fail-on", "never"])
    captured = capsys.readouterr()
    assert rc == 0 and "Traceback" not in captured.err + captured.out


def test_demo_writes_outputs(tmp_path):
    from mjscope.cli.diagnose import demo

    files, code = demo(tmp_path, Console(file=io.StringIO()))
    assert code == 0
    assert all(p.exists() and p.stat().st_size > 0 for p in files)
    assert {p.suffix for p in files} == {".json", ".txt", ".csv", ".png"}


def test_fail_on_levels(tmp_path, capsys):
    p = tmp_path / "clamped.xml"
    p.write_text(
        '<mujoco><worldbody><geom type="plane" size="1 1 .1"/><body pos="0 0 .1"><freejoint/>'
        '<geom name="ball" size=".1" solref="0.001 1"/></body></worldbody></mujoco>'
    )
    base = ["diagnose", str(p), "--steps", "50", "--quiet"]
    assert main(base) == 0  # warnings only
    assert main([*base, "--fail-on", "warning"]) == 1
    assert "SOLREF_CLAMPED" in capsys.readouterr().out


def _csv(path, text: str) -> str:
    path.write_bytes(text.encode("latin-1"))
    return str(path)


def test_compare_odd_csvs_are_one_line_or_different(tmp_path, capsys):
    xy = _csv(tmp_path / "xy.csv", "time [s],x [m],y [m]\n0,1,2\n0.1,1,2\n")
    pq = _csv(tmp_path / "pq.csv", "p [m],q [m]\n1,2\n")
    xz = _csv(tmp_path / "xz.csv", "time [s],x [m],z [m]\n0,1,5\n0.1,1,5\n")
    assert "share no column" in _err(capsys, ["diagnose", "compare", xy, pq])
    assert "empty file" in _err(capsys, ["diagnose", "compare", _csv(tmp_path / "e.csv", ""), xy])
    binary = _csv(tmp_path / "b.csv", "\xff\xfe,\x00\n")
    assert "not a numeric diagnose CSV" in _err(capsys, ["diagnose", "compare", binary, xy])
    assert "must be a number" in _err(capsys, ["diagnose", "compare", xy, xy, "--tol", "nan"])
    # Shared columns agree, but y and z exist in one file only: not the same recording.
    rc = main(["diagnose", "compare", xy, xz, "--plot", str(tmp_path / "p")])
    out = capsys.readouterr().out
    assert rc == 1 and "only in A: y" in out and "only in B: z" in out and "DIFFERENT" in out
    assert (tmp_path / "p" / "compare.png").stat().st_size > 1000
    assert main(["diagnose", "compare", xy, xy]) == 0


def test_sweep_rejects_zero_steps_and_outputs_that_are_folders(tmp_path, capsys):
    err = _err(capsys, ["diagnose", "fourbar", "--set", "option.timestep=0.001", "--steps", "0"])
    assert "--steps 0" in err
    for flag in ("--json", "--csv"):
        err = _err(capsys, ["diagnose", "fourbar", "--steps", "10", flag, str(tmp_path)])
        assert "is a folder" in err and "\n" not in err


INF_ACC = """<mujoco><worldbody><body name="b" pos="0 0 1">
<joint name="s" type="slide" axis="0 0 1"/><site name="imu"/><geom size=".05" mass="0.001"/>
</body></worldbody><actuator><motor joint="s" gear="1e308" ctrlrange="-1 1"/></actuator>
<sensor><accelerometer site="imu"/></sensor></mujoco>"""


def test_json_of_a_run_with_infinite_sensor_values_is_strict(tmp_path, capsys):
    p, js = tmp_path / "inf.xml", tmp_path / "inf.json"
    p.write_text(INF_ACC)
    rc = main(["diagnose", str(p), "--ctrl", "noise", "--steps", "50", "--json", str(js)])
    assert rc == 1 and "diverged" in capsys.readouterr().out

    def reject(token: str) -> None:
        raise AssertionError(f"non-JSON number {token} in the report")

    rep = json.loads(js.read_text(), parse_constant=reject)
    assert rep["rollout"]["sensors"][0]["max"] == [None, None, None]


def test_cli_module_imports_nothing_heavy_at_module_level():
    """``mjscope --help`` imports every command module: only stdlib at module level here."""
    import mjscope.cli.diagnose as mod

    tree = ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    names = {a.name for n in top if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in top if isinstance(n, ast.ImportFrom) and n.module}
    assert names <= {"__future__", "argparse", "pathlib", "typing"}, names


def test_a_folder_given_as_model_says_so_in_one_line(tmp_path, capsys):
    robot = tmp_path / "robot"
    robot.mkdir()
    (robot / "scene.xml").write_text("<mujoco/>")
    for arg in (str(robot), str(robot) + "/"):
        err = _err(capsys, ["diagnose", arg])
        assert f"model {arg!r} is a folder" in err and "\n" not in err
        assert "(it holds scene.xml)" in err and str(robot / "scene.xml") in err


@pytest.mark.parametrize("jobs", ["0", "-2"])
def test_jobs_below_one_is_an_error_naming_the_value(jobs, capsys):
    for extra in ([], ["--set", "option.timestep=0.001,0.002"]):
        err = _err(capsys, ["diagnose", "fourbar", "--steps", "10", "--jobs", jobs, *extra])
        assert f"--jobs {jobs} must be ≥ 1" in err and "\n" not in err


def test_mujoco_warning_text_stays_off_the_terminal(tmp_path, capsys):
    """The divergence is in the report (DIVERGED); MuJoCo's own text goes to the log (-v)."""
    p = tmp_path / "div.xml"
    p.write_text(DIVERGE)
    assert main(["diagnose", str(p), "--steps", "20", "--quiet", "--plot", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "DIVERGED" in captured.out and captured.err == ""
