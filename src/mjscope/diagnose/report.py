"""The diagnose report: one JSON-ready dict, rendered as rich tables or written as JSON."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import mujoco
from rich.console import Console
from rich.table import Table

from mjscope import __version__
from mjscope.diagnose.checks import SEVERITIES, Finding
from mjscope.diagnose.grouping import group_findings
from mjscope.diagnose.probes import FORCE_TERMS
from mjscope.paths import write_text

_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}


def build_report(
    model_label: str,
    summary: dict[str, Any],
    actuators: list[dict[str, Any]],
    rollout: dict[str, Any],
    findings: list[Finding],
    files: dict[str, str],
) -> dict[str, Any]:
    """Assemble the report (the JSON content and what the terminal shows)."""
    counts = {s: sum(f.severity == s for f in findings) for s in SEVERITIES}
    return {
        "mjscope_version": __version__,
        "mujoco_version": mujoco.__version__,
        "model": model_label,
        "summary": summary,
        "actuators": actuators,
        "rollout": rollout,
        "checks": [f.to_dict() for f in findings],
        "check_groups": group_findings([f.to_dict() for f in findings]),
        "check_counts": counts,
        "files": files,
    }


def write_json(report: dict[str, Any], path: str | Path) -> Path:
    """Write the report as strict JSON: NaN and ±inf (a diverged run's values) become null.

    Written whole (:func:`mjscope.paths.write_text`): an earlier file is replaced only by a
    complete one.

    Raises:
        OutputError: The file cannot be written.
    """
    return write_text(path, json.dumps(_finite(report), indent=2, allow_nan=False) + "\n")


def _finite(v: Any) -> Any:
    """``v`` with every non-finite float replaced by ``None`` (in dicts, lists and tuples)."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_finite(x) for x in v]
    return v


def _table(title: str, columns: tuple[str, ...]) -> Table:
    """A rich table with ``title`` and plain (left-justified) ``columns``."""
    t = Table(title=title)
    for c in columns:
        t.add_column(c)
    return t


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v[:6]) + (" …" if len(v) > 6 else "") + "]"
    return str(v)


def render(report: dict[str, Any], con: Console, verbose: bool = False) -> None:
    """Print the report as rich tables.

    Args:
        report: The report (:func:`build_report`).
        con: Where to print.
        verbose: One findings line per element (default: one per code and family).
    """
    s = report["summary"]
    con.print(f"[bold]mjscope diagnose[/] {report['model']}  (MuJoCo {report['mujoco_version']})")
    dims = " ".join(
        f"{k}={s[k]}" for k in ("nq", "nv", "nu", "nbody", "njnt", "ngeom", "nsensor", "neq")
    )
    con.print(f"  {dims}")
    con.print(
        f"  timestep={s['timestep']:g} s  integrator={s['integrator']}  solver={s['solver']}"
        f"  cone={s['cone']}  iterations={s['iterations']}  mass={s['total_mass']:.4g} kg"
    )
    if s["nq_nv_note"]:
        con.print(f"  {s['nq_nv_note']}")
    _actuators(report["actuators"], con, report["rollout"].get("ctrl_used", {}))
    _rollout(report["rollout"], con)
    _contact_pairs(report["rollout"], con)
    _contact_params(report["rollout"], con)
    _dof_forces(report["rollout"], con)
    _equalities(report["rollout"].get("equalities", []), con)
    _sensors(report["rollout"].get("sensors", []), con)
    _checks(report["checks"] if verbose else report.get("check_groups", report["checks"]), con)
    for k, v in report["files"].items():
        con.print(f"  {k}: {v}")


def _actuators(rows: list[dict[str, Any]], con: Console, used: dict[str, Any]) -> None:
    if not rows:
        return
    per = used.get("per_actuator", {})
    columns = ("name", "kind", "dyn/gain/bias", "target", "gear", "ctrlrange", "forcerange")
    t = _table("actuators", (*columns, "control") if per else columns)
    for r in rows:
        extra = [per.get(r["name"], "")] if per else []
        t.add_row(
            r["name"],
            r["kind"],
            f"{r['dyntype']}/{r['gaintype']}/{r['biastype']}",
            f"{r['transmission']} {r['target']}",
            _fmt(r["gear"]),
            _fmt(r["ctrlrange"]) if r["ctrlrange"] else "[red]none[/]",
            _fmt(r["forcerange"]) if r["forcerange"] else "[yellow]none[/]",
            *extra,
        )
    con.print(t)


def _rollout(r: dict[str, Any], con: Console) -> None:
    con.print(
        f"rollout: {r['steps_done']}/{r['steps']} steps, t={r['time']:.4g} s, ctrl={r['ctrl']}"
        f" (seed {r['seed']}), from {r.get('start', 'qpos0')}"
        + (
            " (--key auto: the model's first keyframe)"
            if r.get("key") == "auto" and r.get("start", "qpos0") != "qpos0"
            else ""
        )
    )
    if r.get("ctrl_description"):
        con.print(f"  control used: {r['ctrl_description']}")
    if r.get("divergence"):
        dv = r["divergence"]
        con.print(
            f"[bold red]diverged[/]: {dv['kind']} at t={dv['time']:.6g} s, {dv['where']}, "
            f"joint '{dv['joint']}'"
        )
    t = Table(title="per-step quantities")
    for c in ("column", "unit", "min", "max", "mean", "final"):
        t.add_column(c, justify="left" if c in ("column", "unit") else "right")
    for c in r["columns"]:
        if c["name"].startswith("warn_") and not c["max"]:
            continue
        t.add_row(c["name"], c["unit"], *(_fmt(c[k]) for k in ("min", "max", "mean", "final")))
    con.print(t)
    pairs = r.get("worst_pairs", [])
    if pairs:
        t = _table(
            "deepest contacts (by geom pair)",
            ("geom1", "geom2", "max penetration [m]", "smaller geom size [m]"),
        )
        for p in pairs[:5]:
            t.add_row(
                p["geom1"], p["geom2"], _fmt(p["max_penetration_m"]), _fmt(p["smaller_geom_size_m"])
            )
        con.print(t)


def _contact_pairs(r: dict[str, Any], con: Console) -> None:
    rows = r.get("contact_pairs", [])
    if not rows:
        return
    every = r.get("contact_sample_every", 1)
    title = f"contacts by geom pair (sampled every {every} step{'s' * (every > 1)})"
    t = _table(title, ("geom1", "geom2", "condim", "μ", "solref", "samples", "max f_n [N]",
                       "mean f_n [N]", "max |f_t| [N]", "min dist [m]", "sliding"))  # fmt: skip
    for p in rows[:8]:
        t.add_row(
            p["geom1"], p["geom2"], str(p["condim"]), _fmt(p["friction"][0]), _fmt(p["solref"]),
            str(p["samples"]), _fmt(p["max_normal_n"]), _fmt(p["mean_normal_n"]),
            _fmt(p["max_tangential_n"]), _fmt(p["min_dist_m"]), f"{p['sliding_fraction']:.0%}",
        )  # fmt: skip
    con.print(t)
    if len(rows) > 8:
        con.print(f"  … and {len(rows) - 8} more pairs (all in --json)")


def _contact_params(r: dict[str, Any], con: Console) -> None:
    if "contact_params" not in r:
        return
    rows = r["contact_params"]
    if not rows:
        con.print("contact parameters: no contact at the end of the rollout")
        return
    t = _table(
        "contact parameters at the end of the rollout (at the pair's effective mass)",
        ("geom1", "geom2", "solref", "solimp", "d", "mass [kg]", "K [N/m]", "B [N·s/m]",
         "load [N]", "predicted pen [mm]", "measured pen [mm]", "τ/h"),
    )  # fmt: skip
    for p in rows[:12]:
        pred = p["predicted_penetration_m"]
        t.add_row(
            p["geom1"], p["geom2"], _fmt(p["solref"]), _fmt(p["solimp"][:3]),
            f"{p['impedance']:.3g}", _fmt(p["effective_mass_kg"]), f"{p['stiffness_n_per_m']:.3g}",
            f"{p['damping_ns_per_m']:.3g}", _fmt(p["load_n"]),
            "-" if pred is None else f"{pred * 1e3:.3g}", f"{p['penetration_m'] * 1e3:.3g}",
            _fmt(p["timeconst_over_timestep"]),
        )  # fmt: skip
    con.print(t)
    if len(rows) > 12:
        con.print(f"  … and {len(rows) - 12} more pairs (all in --json)")


def _dof_forces(r: dict[str, Any], con: Console, limit: int = 40) -> None:
    rows = r.get("dof_forces", [])
    if not rows:
        return
    inv = r.get("inverse_dof_max")
    t = Table(title="generalized forces per DOF: RMS / max |value| over the run")
    for c in ("DOF", "group", "unit", "bias", "constraint", "actuator", "passive", "applied"):
        t.add_column(c, justify="right" if c not in ("DOF", "group", "unit") else "left")
    if inv:
        t.add_column("max |inverse residual|", justify="right")
    for row in rows[:limit]:
        cells = [f"{_fmt(row[f'{k}_rms'])} / {_fmt(row[f'{k}_max'])}" for k in FORCE_TERMS]
        extra = [_fmt(inv[row["dof"]])] if inv else []
        t.add_row(row["label"], row["group"], row["unit"], *cells, *extra)
    con.print(t)
    if len(rows) > limit:
        con.print(f"  … and {len(rows) - limit} more DOFs (all in --json)")
    if inv:
        con.print(
            f"  forward/inverse: max residual {max(inv):.3g} N|Nm (tolerance "
            f"{r['inverse_tolerance']:.3g}); qfrc_inverse = qfrc_actuator + qfrc_applied + "
            "Jᵀ·xfrc_applied (qfrc_bias and qfrc_constraint are already inside the qacc it "
            "inverts)"
        )


def _equalities(rows: list[dict[str, Any]], con: Console) -> None:
    if not rows:
        return
    t = _table(
        "equality constraints: violation over the run",
        ("name", "type", "solref", "max position", "final position", "max rotation [rad]"),
    )
    for q in rows:
        u = q["unit"]
        t.add_row(q["name"], q["type"], _fmt(q["solref"]), f"{_fmt(q['max_position'])} {u}",
                  f"{_fmt(q['final_position'])} {u}", _fmt(q["max_rotation_rad"]))  # fmt: skip
    con.print(t)


def _sensors(rows: list[dict[str, Any]], con: Console) -> None:
    if not rows:
        return
    t = _table("sensors", ("name", "type", "dim", "mean", "min", "max"))
    for r in rows:
        t.add_row(
            r["name"], r["type"], str(r["dim"]), _fmt(r["mean"]), _fmt(r["min"]), _fmt(r["max"])
        )
    con.print(t)


def _checks(rows: list[dict[str, Any]], con: Console) -> None:
    if not rows:
        con.print("[green]checks: no findings[/]")
        return
    t = _table("checks", ("severity", "code", "element", "message", "fix"))
    for r in rows:
        st = _STYLE[r["severity"]]
        where = f"\n[dim]{r['source']}[/]" if r.get("source") else ""
        t.add_row(
            f"[{st}]{r['severity']}[/]", r["code"], f"{r['element']}{where}", r["message"], r["fix"]
        )
    con.print(t)


def finding_lines(report: dict[str, Any], verbose: bool = False) -> list[str]:
    """The findings as compiler-style lines: ``path:line: severity: CODE element: message``.

    Each error and warning is followed by an indented ``fix:`` line.

    Args:
        report: The report (:func:`build_report`).
        verbose: One line per element (default: one per code and family).
    """
    rows = report["checks"] if verbose else report.get("check_groups", report["checks"])
    out = []
    for r in rows:
        where = f"{r['source']}: " if r.get("source") else ""
        out.append(f"{where}{r['severity']}: {r['code']} {r['element']}: {r['message']}")
        if r["severity"] != "info":
            out.append(f"  fix: {r['fix']}")
    return out
