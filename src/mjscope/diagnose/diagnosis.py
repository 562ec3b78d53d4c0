"""One diagnosis: summary + static checks + rollout + rollout checks → report (+ CSV, plots)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import mujoco

from mjscope.diagnose.checks import Finding, initial_state_checks, rollout_checks, static_checks
from mjscope.diagnose.checks.messages import message_findings
from mjscope.diagnose.checks.source import source_checks
from mjscope.diagnose.contact_params import pair_params
from mjscope.diagnose.contacts import NUMERICAL_ZERO, contact_table
from mjscope.diagnose.names import geom_name
from mjscope.diagnose.plots import plot_rollout
from mjscope.diagnose.report import build_report
from mjscope.diagnose.rollout import (
    RolloutCfg,
    RolloutResult,
    collect_mujoco_warnings,
    key_label,
    mujoco_warnings_to_logging,
    reset,
    resolve_key,
    run_rollout,
)
from mjscope.diagnose.source_map import locate
from mjscope.diagnose.summary import actuator_table, model_summary

FAIL_ON = ("error", "warning", "never")


@dataclass
class Diagnosis:
    """A finished diagnosis: the report dict, the findings and the raw rollout result."""

    report: dict[str, Any]
    findings: list[Finding]
    result: RolloutResult


def diagnose(
    model: mujoco.MjModel,
    label: str,
    cfg: RolloutCfg,
    plot_dir: str | Path | None = None,
    source: str | Path | None = None,
    load_messages: list[str] | None = None,
    contact_params: bool = False,
) -> Diagnosis:
    """Diagnose a compiled model.

    Args:
        model: The compiled model (its option flags are changed by the rollout).
        label: How the report names the model.
        cfg: Rollout settings (CSV path included).
        plot_dir: Folder for PNG plots (``None``: no plots).
        source: The model's file, for the rules on its source (``<default>`` classes, what a
            URDF lacks); ``None`` or a bundled name: none.
        load_messages: MuJoCo's compiler messages captured while the model loaded
            (:func:`~mjscope.diagnose.episode.collect_mujoco_warnings`).
        contact_params: Add each colliding pair's contact parameters in physical units at
            the end of the rollout (:func:`~mjscope.diagnose.contact_params.pair_params`).

    Returns:
        The diagnosis.
    """
    summary = model_summary(model)
    findings = static_checks(model) + source_checks(model, source)
    key = resolve_key(model, cfg.key)
    start = key_label(model, key)
    findings += start_checks(model, key)
    with collect_mujoco_warnings() as runtime:
        result = run_rollout(model, cfg)
    findings = _persisting_overlaps(findings + rollout_checks(model, result))
    if key is None and model.nkey:
        findings = _keyframe_hint(model, findings)
    findings += message_findings(list(load_messages or ()), runtime)
    findings = locate(findings, model, source)
    files: dict[str, str] = {}
    if cfg.csv is not None:
        files["csv"] = str(cfg.csv)
    if cfg.contacts is not None:
        files["contacts"] = str(cfg.contacts)
    if plot_dir is not None:
        files["plot"] = str(plot_rollout(result, plot_dir, label))
    rollout = {
        "steps": cfg.steps,
        "steps_done": result.steps_done,
        "time": result.time,
        "ctrl": cfg.ctrl,
        "ctrl_description": result.probes.get("ctrl_used", {}).get("description", ""),
        "seed": cfg.seed,
        "key": cfg.key,
        "start": start,
        "inverse": cfg.inverse,
        "divergence": result.divergence,
        "warnings": result.warnings,
        "columns": result.columns,
        **result.probes,
    }
    if contact_params:
        rollout["contact_params"] = (
            pair_params(model, result.final_data) if result.divergence is None else []
        )
    report = build_report(label, summary, actuator_table(model), rollout, findings, files)
    return Diagnosis(report, findings, result)


_OVERLAP_CODES = ("SELF_COLLISION_INIT", "PENETRATION_REST", "PENETRATION_DEEP")


def _keyframe_hint(model: mujoco.MjModel, findings: list[Finding]) -> list[Finding]:
    """From ``qpos0``: overlap findings of pairs the first keyframe starts clear of say so."""
    data = mujoco.MjData(model)
    with mujoco_warnings_to_logging():
        reset(model, data, "0")
    t = contact_table(model, data)
    touching = {
        f"geoms '{geom_name(model, int(a))}' / '{geom_name(model, int(b))}'"
        for a, b, pen in zip(t.geom1, t.geom2, t.penetration, strict=True)
        if pen > NUMERICAL_ZERO
    }
    label = key_label(model, 0)
    return [
        replace(f, fix=f"{f.fix}; or start from {label} (--key auto), which starts clear of it")
        if f.code in _OVERLAP_CODES and f.severity != "info" and f.element not in touching
        else f
        for f in findings
    ]


def _persisting_overlaps(findings: list[Finding]) -> list[Finding]:
    """PENETRATION_REST of a pair warned as SELF_COLLISION_INIT becomes an info.

    It is that overlap persisting: one problem, one warning.
    """
    initial = {
        f.element for f in findings if f.code == "SELF_COLLISION_INIT" and f.severity != "info"
    }
    return [
        replace(
            f,
            severity="info",
            message=f"{f.message}; the overlap of SELF_COLLISION_INIT persists",
        )
        if f.code == "PENETRATION_REST" and f.element in initial
        else f
        for f in findings
    ]


def start_checks(model: mujoco.MjModel, key: int | None) -> list[Finding]:
    """The initial-state rules at the start; from a keyframe, ``qpos0``'s findings as notes.

    A finding that exists at ``qpos0`` but not at the keyframe the rollout starts from (a
    quadruped whose legs overlap the floor in its zero pose) is kept as ``info``, saying so
    and naming the keyframe: it is what ``--key none`` would run into, not this rollout.
    """
    data = mujoco.MjData(model)
    with mujoco_warnings_to_logging():
        reset(model, data, None if key is None else str(key))
    here = initial_state_checks(model, data)
    if key is None:
        return here
    with mujoco_warnings_to_logging():
        reset(model, data, None)
    seen = {(f.code, f.element) for f in here}
    label = key_label(model, key)
    only0 = [
        replace(
            f,
            severity="info",
            message=f"only at qpos0 ({label}, where the rollout starts, is clear): {f.message}",
            fix=f"nothing to do when you start from {label}; else: {f.fix}",
        )
        for f in initial_state_checks(model, data)
        if (f.code, f.element) not in seen and f.severity != "info"
    ]
    return here + only0


def exit_code(findings: list[Finding], fail_on: str = "error") -> int:
    """1 when a finding reaches ``fail_on`` severity (``never``: always 0), else 0."""
    if fail_on == "never":
        return 0
    levels = ("error",) if fail_on == "error" else ("error", "warning")
    return int(any(f.severity in levels for f in findings))
