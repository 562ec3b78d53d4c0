import ast
import io
import json
import os
import signal
from pathlib import Path

import numpy as np
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
        assert f"--jobs {jobs}: give >= 1 worker processes" in err and "\n" not in err


def test_mujoco_warning_text_stays_off_the_terminal(tmp_path, capsys):
    """The divergence is in the report (DIVERGED); MuJoCo's own text goes to the log (-v)."""
    p = tmp_path / "div.xml"
    p.write_text(DIVERGE)
    assert main(["diagnose", str(p), "--steps", "20", "--quiet", "--plot", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "DIVERGED" in captured.out and captured.err == ""


def test_exercise3_forward_inverse_on_the_standing_quadruped(tmp_path, capsys):
    """S1.7 exercise 3: forward/inverse on the standing Go2-like quadruped, per-DOF table."""
    js = tmp_path / "r.json"
    argv = [
        "diagnose",
        "quadruped",
        "--ctrl",
        "hold",
        "--inverse",
        "--steps",
        "1500",
        "--json",
        str(js),
    ]
    rc = main(argv)
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "generalized forces per DOF" in out and "FR_calf_joint" in out and "root.z" in out
    r = json.loads(js.read_text())["rollout"]
    assert max(r["inverse_dof_max"]) < 1e-9  # numerical precision, ~1e-11 measured
    assert r["inverse_tolerance"] > 1e-5 and len(r["dof_forces"]) == 18
    z = {c["name"]: c for c in r["columns"]}["com_z"]["final"]
    assert 0.2 < z < 0.35  # standing, not collapsed


def test_contacts_csv_and_per_pair_summary(tmp_path, capsys):
    path, js = tmp_path / "c.csv", tmp_path / "r.json"
    rc = main(["diagnose", "gripper_cylinder", "--ctrl", "zero", "--steps", "200",
               "--contacts", str(path), "--json", str(js)])  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0 and "contacts by geom pair" in out, out
    lines = path.read_text().splitlines()
    assert lines[0].startswith("step,time [s],geom1,geom2,dist [m],condim")
    assert len(lines) > 200 and all(",left_pad," in x or ",right_pad," in x for x in lines[1:])
    pairs = json.loads(js.read_text())["rollout"]["contact_pairs"]
    assert {(p["geom1"], p["geom2"]) for p in pairs} == {("cylinder", "left_pad"),
                                                        ("cylinder", "right_pad")}  # fmt: skip
    assert all(p["sliding_fraction"] == 0 and p["condim"] == 4 for p in pairs)


def test_default_ctrl_holds_the_quadruped_and_zero_says_why_it_collapses(tmp_path, capsys):
    js = tmp_path / "r.json"
    assert main(["diagnose", "quadruped", "--steps", "1500", "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "control used: hold: position servo at its start target (12 actuators)" in out
    r = json.loads(js.read_text())
    assert r["rollout"]["ctrl"] == "hold" and r["check_counts"]["warning"] == 0
    assert {c["name"]: c for c in r["rollout"]["columns"]}["com_z"]["final"] > 0.2
    rc = main(["diagnose", "quadruped", "--steps", "300", "--ctrl", "zero", "--quiet"])
    out = capsys.readouterr().out
    (calf,) = [x for x in out.splitlines() if x.startswith("warning: CTRL_OUTSIDE_RANGE")]
    assert rc == 0 and "4 actuators: 'FR_calf', 'FL_calf', 'RR_calf', 'RL_calf'" in calf
    assert "--ctrl zero" in calf


def _sweep(argv, tmp_path, capsys):
    js = tmp_path / "s.json"
    rc = main([*argv, "--jobs", "1", "--json", str(js), "--plot", str(tmp_path / "p")])
    out = capsys.readouterr().out
    return rc, out, json.loads(js.read_text())


def test_exercise5_fourbar_separation_grows_with_solref(tmp_path, capsys):
    """S1.11 exercise 5 as one command: ctrl = 5 sin(2πt), solref[0] ∈ {0.005, 0.02, 0.1}."""
    argv = ["diagnose", "fourbar", "--ctrl", "sine:5:1",
            "--set", "equality:closure.solref=0.005 1;0.02 1;0.1 1"]  # fmt: skip
    rc, out, rep = _sweep(argv, tmp_path, capsys)
    sep = [row["max_eq_violation"] for row in rep["table"]]
    assert sep[0] < sep[1] < sep[2] and sep[2] > 10 * sep[0], sep
    assert sep[0] < 2e-3  # stiff closure: no visible separation (~0.9 mm measured)
    assert [row["checks"] for row in rep["table"]] == ["-", "-", "EQUALITY_VIOLATION"]
    assert (tmp_path / "p" / "sweep_curve.png").stat().st_size > 10_000
    assert rc == 0 and "sweep_curve.png" in out


def test_exercise6_condim_drops_and_holds_the_cylinder(tmp_path, capsys):
    """S1.11 exercise 6 as one command: condim 1/3/4/6, 1000 steps, z drop and step cost."""
    argv = ["diagnose", "gripper_cylinder", "--ctrl", "zero", "--steps", "1000",
            "--set", "geom:*.condim=1,3,4,6"]  # fmt: skip
    _, _, rep = _sweep(argv, tmp_path, capsys)
    drop = {row["value"]: row["max_z_drop_mm"] for row in rep["table"]}
    assert drop["1"] > 50 and drop["4"] < 1.0 and drop["6"] < 1.0, drop
    assert "CONTACT_SLIP" in rep["table"][0]["checks"]
    assert all(row["us_per_step"] > 0 for row in rep["table"])
    assert (tmp_path / "p" / "sweep_bars.png").stat().st_size > 10_000


def test_timestep_sweep_keeps_the_simulated_duration(tmp_path, capsys):
    argv = ["diagnose", "fourbar", "--steps", "200", "--set", "option.timestep=0.001,0.002,0.004"]
    _, _, rep = _sweep(argv, tmp_path, capsys)
    # 200 steps at the model's own 0.002 s: 0.4 s simulated by every run
    assert [row["steps"] for row in rep["table"]] == [400, 200, 100]
    assert all(abs(row["sim_time_s"] - 0.4) < 1e-9 for row in rep["table"])


def test_columns_qpos_qvel_sensordata_named_with_units(tmp_path, capsys):
    from mjscope.diagnose import read_csv

    csv = tmp_path / "q.csv"
    argv = ["diagnose", "quadruped", "--steps", "300", "--columns", "sensordata,qvel,qpos",
            "--csv", str(csv), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    header = csv.read_text().splitlines()[0].split(",")
    for h in ("qpos.root.z [m]", "qpos.root.qw [1]", "qpos.FR_calf_joint [rad]",
              "qvel.root.rx [rad/s]", "qvel.RL_calf_joint [rad/s]", "sensor.imu_gyro.0 [rad/s]",
              "sensor.imu_acc.2 [m/s²]", "sensor.FR_calf_pos [rad]"):  # fmt: skip
        assert h in header, h
    assert header.index("qpos.root.x [m]") < header.index("qvel.root.x [m/s]")
    names, rows = read_csv(csv)
    col = {n: rows[:, k] for k, n in enumerate(names)}
    # a row is one state: the jointpos sensor (from the step's forward pass) equals qpos
    assert np.array_equal(col["sensor.FR_calf_pos"], col["qpos.FR_calf_joint"])
    assert col["qpos.root.z"][0] == 0.45 and col["qvel.root.z"][0] == 0.0  # the reset state
    capsys.readouterr()
    assert main(["diagnose", "quadruped", "--columns", "qacc"]) == 2
    assert "--columns qacc: not one of qpos, qvel, sensordata" in capsys.readouterr().err


SLOPE = """<mujoco><option cone="elliptic"/><worldbody>
<geom name="ramp" type="plane" size="5 5 .1" euler="0 30 0" friction="{mu} .005 .0001"/>
<body name="box" pos="0 0 .1" euler="0 30 0"><freejoint/>
<geom name="box" type="box" size=".05 .05 .05" mass="1" friction="{mu} .005 .0001"/></body>
</worldbody></mujoco>"""


def test_baseline_saved_then_same_then_changed(tmp_path, capsys):
    model, base = tmp_path / "slope.xml", tmp_path / "base"
    model.write_text(SLOPE.format(mu=1.0))
    argv = ["diagnose", str(model), "--steps", "600", "--baseline", str(base), "--quiet"]
    assert main(argv) == 0
    assert "baseline: saved in" in capsys.readouterr().out
    assert (base / "baseline.csv").is_file() and (base / "baseline.json").is_file()
    assert main(argv) == 0
    assert "baseline: same behaviour" in capsys.readouterr().out
    model.write_text(SLOPE.format(mu=0.1))  # the edit makes the box slide down the ramp
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "baseline: behaviour changed" in out and "column com_z:" in out, out
    assert "new check: CONTACT_SLIP geoms 'ramp' / 'box'" in out
    rc = main([*argv[:-1], "--steps", "300"])  # other settings: not comparable
    assert rc == 2 and "was made with other settings (steps 600 → 300)" in capsys.readouterr().err


def test_the_seeds_flag_form(tmp_path, capsys):
    """S1.14: mj_diagnose --model unitree_go2/scene.xml --steps 2000 --csv out.csv."""
    csv = tmp_path / "out.csv"
    assert main(["diagnose", "--model", "quadruped", "--steps", "200", "--csv", str(csv)]) == 0
    assert len(csv.read_text().splitlines()) == 201
    capsys.readouterr()
    assert main(["diagnose", "--steps", "5"]) == 2
    assert "no model: mjscope diagnose MODEL (or --model MODEL)" in capsys.readouterr().err
    assert main(["diagnose", "quadruped", "--model", "fourbar"]) == 2
    assert "two models given" in capsys.readouterr().err


def test_baseline_with_a_sweep_is_a_one_line_error(tmp_path, capsys):
    rc = main(
        ["diagnose", "fourbar", "--set", "option.timestep=0.001", "--baseline", str(tmp_path)]
    )
    assert rc == 2 and "--baseline checks one run" in capsys.readouterr().err


def _sweep_cli(monkeypatch, folder: Path, *executor: str) -> tuple[list[dict], dict[str, bytes]]:
    """A sweep run from inside ``folder`` with relative paths (a Ray worker has its own cwd)."""
    folder.mkdir()
    monkeypatch.chdir(folder)
    argv = ["diagnose", "fourbar", "--steps", "200", "--ctrl", "sine:5:1", "--quiet",
            "--set", "equality:closure.solref=0.005 1;0.02 1;0.1 1", "--csv", "r.csv",
            "--json", "s.json", *executor]  # fmt: skip
    assert main(argv) == 0
    rows = json.loads((folder / "s.json").read_text())["table"]
    for r in rows:
        del r["us_per_step"], r["wall_us_per_step"]  # timings: the only columns that differ
    return rows, {p.name: p.read_bytes() for p in sorted(folder.glob("r_*.csv"))}


def test_sweep_cli_jobs_1_jobs_2_and_ray_give_the_same_table_and_csvs(
    tmp_path, capsys, monkeypatch, ray_head
):
    one = _sweep_cli(monkeypatch, tmp_path / "j1", "--jobs", "1")
    assert _sweep_cli(monkeypatch, tmp_path / "j2", "--jobs", "2") == one
    assert _sweep_cli(monkeypatch, tmp_path / "ray", "--ray", ray_head.address) == one
    rows, csvs = one
    assert [r["value"] for r in rows] == ["0.005 1", "0.02 1", "0.1 1"] and len(csvs) == 3
    assert len({r["max_eq_violation"] for r in rows}) == 3  # each value changed the run


def test_ray_missing_is_one_line_naming_the_extra(capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # as if the cluster extra were not installed
    err = _err(capsys, ["diagnose", "fourbar", "--steps", "10", "--set", "option.timestep=0.001",
                        "--ray", "auto"])  # fmt: skip
    assert 'pip install "mjscope[cluster]"' in err and "\n" not in err


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX signals and process groups")
def test_sigterm_to_a_sweep_on_a_pool_keeps_and_names_both_partial_csvs(tmp_path):
    """SIGTERM reaches the driver only: it passes SIGINT on and waits for the runs to stop."""
    from tests.test_diagnose_outputs import (
        _assert_group_gone,
        _assert_whole_rows,
        _start,
        _wait_for_rows,
    )

    (tmp_path / "s_timestep0.csv").write_text("earlier\n")
    args = ["diagnose", "quadruped", "--steps", "5000000", "--csv", "s.csv", "--jobs", "2"]
    proc = _start([*args, "--set", "option.timestep=0.002,0.003,0.004"], tmp_path)
    parts = [tmp_path / f"s_timestep{k}.partial.csv" for k in (0, 1)]
    _wait_for_rows(parts, proc)
    os.kill(proc.pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, (out, err)
    lines = [line for line in out.splitlines() if line.startswith("interrupted:")]
    assert [p.name in line for p, line in zip(parts, lines, strict=True)] == [True, True]
    assert all(_assert_whole_rows(p) >= 5000 for p in parts)
    assert (tmp_path / "s_timestep0.csv").read_text() == "earlier\n"  # never replaced
    assert not (tmp_path / "s_timestep2.partial.csv").exists()
    _assert_group_gone(proc.pid)
