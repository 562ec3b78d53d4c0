"""The teleop page from a report: verdict, how the run ended, the run's counters, latencies."""

from __future__ import annotations

from typing import Any

from mjscope.teleop.html_page import teleop_page


def _side(stop: str | None = None) -> dict[str, Any]:
    return {
        "adapter": "real",
        "cycles": 180,
        "clutch_engagements": 1,
        "resets": 0,
        "safe_stop": stop,
        "max_joint_speed": {"max": 0.5},
        "stages": {"ik": {"p50_us": 40.0, "p99_us": 90.5, "max_us": 120.0, "n": 170}},
        "clamps": {"joint_acc": 3},
    }


def _report(**over: Any) -> dict[str, Any]:
    base = {
        "mode": "real",
        "arm": "both",
        "transport": "inproc",
        "loop": {"ticks": 180, "missed": 2, "over_budget": 0},
        "fault_policy": "stop_all",
        "fault": None,
        "interrupted": False,
        "xr": {"kind": "udp", "frames": 90, "dropped": 7, "rejects": {"bad_json": 2, "x": 0}},
        "sides": {"left": _side(), "right": _side()},
    }
    return {**base, **over}


def _cells(page: Any, section: str) -> dict[str, str]:
    s = next(s for s in page.sections if s.title == section)
    return {row[0]: row[1] for row in s.tables[0].rows}


def test_a_safe_stop_names_the_arm_the_cause_and_the_policy() -> None:
    sides = {"left": _side("feedback lost for 0.2 s"), "right": _side()}
    fault = {"side": "left", "cause": "feedback lost for 0.2 s"}
    page = teleop_page(_report(sides=sides, fault=fault), [], 1)
    assert page.verdict == "FAIL"
    want = "2 arms, safe stop of the left arm: feedback lost for 0.2 s (all stopped)"
    assert page.summary == want
    arms = next(s for s in page.sections if s.title == "Arms").tables[0]
    stop_row = next(r for r in arms.rows if r[0] == "safe stop")
    assert stop_row[1:] == ("feedback lost for 0.2 s", "none")


def test_the_run_table_holds_the_loop_and_xr_counters() -> None:
    page = teleop_page(_report(interrupted=True, fault_policy="isolate"), [], 130)
    assert page.verdict == "INTERRUPTED"
    assert "interrupted (every arm braked to rest)" in page.summary
    run = _cells(page, "Run")
    assert run["XR dropped"] == "7" and run["XR frames"] == "90"
    assert run["XR rejects"] == "bad_json 2" and run["fault policy"] == "isolate"
    assert run["loop missed"] == "2" and run["interrupted"] == "yes"
    lat = next(s for s in page.sections if s.title == "Latency").tables[0]
    assert lat.columns == ("arm", "stage", "p50 [µs]", "p99 [µs]", "max [µs]", "n")
    assert lat.rows[0] == ("left", "ik", "40", "90.5", "120", "170")


def test_the_demo_report_has_no_run_table_and_one_arm_is_singular() -> None:
    page = teleop_page({"sides": {"left": _side()}, "mujoco": {}}, [], 0)
    assert page.verdict == "OK" and page.summary == "1 arm, no safe stop"
    titles = [s.title for s in page.sections]
    assert titles == ["Arms", "Latency", "Limits that acted (cycles clamped)"]
