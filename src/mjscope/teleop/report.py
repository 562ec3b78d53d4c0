"""The outputs of a teleop run: the JSON report per side and the per-cycle CSV log."""

from __future__ import annotations

import csv
import math
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

import numpy as np

from mjscope.paths import atomic_path
from mjscope.teleop.cycle import Cycle
from mjscope.teleop.node import TeleopArm
from mjscope.teleop.poses import Pose
from mjscope.teleop.timing import STAGES
from mjscope.teleop.worker import LoopStats

#: ``--log`` columns before the commanded joints ``q1 .. qn`` [rad].
LOG_COLUMNS = (
    "t",
    "side",
    "state",
    "grip",
    "trigger",
    "target_x",
    "target_y",
    "target_z",
    "target_qw",
    "target_qx",
    "target_qy",
    "target_qz",
)
#: ``--log`` columns after the joints: each stage's time in the cycle [µs] (empty: not run).
STAGE_COLUMNS = tuple(f"{s}_us" for s in STAGES)


def pose_dict(pose: Pose | None) -> dict[str, list[float]] | None:
    """``{"position": [x, y, z] (m), "quaternion_wxyz": [w, x, y, z]}`` or ``None``."""
    if pose is None:
        return None
    return {
        "position": [round(float(v), 9) for v in pose.p],
        "quaternion_wxyz": [round(float(v), 9) for v in pose.q],
    }


def limits_dict(arm: TeleopArm) -> dict[str, Any]:
    """The limits and clutch settings in force for ``arm``."""
    c, names = arm.cfg, list(arm.cfg.joint_names)
    return {
        "workspace_min": list(c.workspace_min),
        "workspace_max": list(c.workspace_max),
        "cyl_axis_xy": list(c.cyl_axis_xy),
        "cyl_radius_limit": c.cyl_radius_limit,
        "low_cyl_height": c.low_cyl_height,
        "low_cyl_radius_limit": c.low_cyl_radius_limit,
        "max_linear_speed": c.max_linear_speed,
        "max_orientation_speed": c.max_orientation_speed,
        "joint_max_speed": dict(zip(names, arm.joints.vmax.tolist(), strict=True)),
        "joint_max_acc": dict(zip(names, arm.joints.amax.tolist(), strict=True)),
        "joint_position_limits": dict(
            zip(names, np.stack([arm.joints.lower, arm.joints.upper], 1).tolist(), strict=True)
        ),
        "scale_factor": c.scale_factor,
        "grip_threshold": c.grip_threshold,
        "xr_timeout_s": c.xr_timeout_s,
        "feedback_timeout_s": c.feedback_timeout_s,
        "control_rate_hz": c.control_rate_hz,
    }


def arm_report(arm: TeleopArm) -> dict[str, Any]:
    """One side's report: counters, limits in force, peaks, final pose."""
    st, names = arm.stats, list(arm.cfg.joint_names)
    q: np.ndarray = arm.joints.q
    final_ee = arm.ik.fk(q) if np.all(np.isfinite(q)) else None
    rejects = dict(st.ik_rejects)
    report: dict[str, Any] = {
        "adapter": arm.adapter.kind,
        "cycles": st.cycles,
        "rate_hz": round(st.rate_hz(), 3),
        "clutch_engagements": arm.clutch.engagements,
        "engaged_cycles": st.engaged_cycles,
        "resets": st.resets,
        "qp_failures": rejects.get("qp_failure", 0) + rejects.get("non_finite", 0),
        "ik_rejects": {k: rejects.get(k, 0) for k in ("qp_failure", "non_finite", "not_converged")},
        "clamps": st.clamp_counts(),
        "xr_timeouts": st.xr_timeouts,
        "feedback_timeouts": st.feedback_timeouts,
        "engage_refused": st.engage_refused,
        "engage_refused_why": arm.refused_why or None,
        "stages": arm.timing.summary(),
        "safe_stop": arm.stopped or None,
        "limits": limits_dict(arm),
        "max_joint_speed": _peak(names, st.max_speed),
        "max_joint_acc": _peak(names, st.max_acc),
        "final_joint_positions": {n: float(v) for n, v in zip(names, q, strict=True)},
        "initial_ee_pose": pose_dict(arm.initial_ee),
        "final_ee_pose": pose_dict(final_ee),
        "published_states": arm.out.published,
    }
    stats = getattr(arm.adapter, "stats", None)
    if callable(stats):
        report["adapter_stats"] = stats()
    return report


def _peak(names: list[str], values: np.ndarray) -> dict[str, Any]:
    v: list[float] = values.tolist() if values.size else [0.0] * len(names)
    return {"max": max(v), "by_joint": dict(zip(names, v, strict=True))}


class CycleLog:
    """``--log FILE.csv``: one row per cycle per side, written into a partial file.

    The file appears (renamed over an earlier one) only when the run ends normally; use it as
    a context manager around the run.

    Args:
        path: The CSV file (checked writable by the caller).
        n_joints: Columns ``q1 .. qn`` (the largest arm).
    """

    def __init__(self, path: str | Path, n_joints: int) -> None:
        self.path = Path(path)
        self.n = n_joints
        self.rows = 0
        self._stack = ExitStack()
        self._file: IO[str] | None = None
        self._writer: Any = None

    def __enter__(self) -> CycleLog:
        tmp = self._stack.enter_context(atomic_path(self.path))
        self._file = self._stack.enter_context(tmp.open("w", newline="", encoding="utf-8"))
        self._writer = csv.writer(self._file)
        q_cols = (f"q{i + 1}" for i in range(self.n))
        self._writer.writerow([*LOG_COLUMNS, *q_cols, *STAGE_COLUMNS])
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.__exit__(*exc)

    def __call__(self, side: str, c: Cycle) -> None:
        """Write one cycle of ``side``."""
        target = c.target.as_array().tolist() if c.target is not None else [math.nan] * 7
        q = c.q.tolist() + [math.nan] * (self.n - c.q.size)
        stages = [v * 1e6 for v in c.stages] if c.stages else [math.nan] * len(STAGES)
        row = [f"{c.t:.6f}", side, c.state, _num(c.grip), _num(c.trigger)]
        self._writer.writerow(row + [_num(v) for v in target + q] + [_us(v) for v in stages])
        self.rows += 1


def _us(v: float) -> str:
    return "" if math.isnan(v) else f"{v:.1f}"


def loop_dict(st: LoopStats) -> dict[str, Any]:
    """A worker's (or the summed) timing for the report."""
    return {
        "ticks": st.ticks,
        "missed": st.missed,
        "over_budget": st.over_budget,
        "worst_compute_ms": round(st.worst_compute_s * 1e3, 3),
        "duration_s": round(st.duration_s, 3),
        "slow_warnings": st.slow_warnings,
        "realtime": st.realtime,
    }


def _num(v: float) -> str:
    return "" if math.isnan(v) else f"{v:.9g}"
