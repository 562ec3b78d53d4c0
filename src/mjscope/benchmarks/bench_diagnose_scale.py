"""Diagnose on large models vs MuJoCo compiling the same file: time and peak memory ratios.

Generated MJCF scenes of 2 000 and 20 000 geoms (quick: 500 and 5 000; :func:`scale_model_xml`):
static terrain, 4-link arms on static bases (collision and visual geoms, parent/child
filtering, weld groups), free sphere clusters in two contype/conaffinity groups,
``<exclude>``s and ``<pair>``s. Every measurement runs in a fresh Python process, each
kind interleaved over repeats (median; the best-of ratio is in the note):

- **compile**: ``mujoco.MjModel.from_xml_path`` — the bare MuJoCo cost of the file.
- **static diagnose**: ``mjscope.models.load`` + summary + static and initial-state checks
  (what ``diagnose`` does before the rollout).
- **+ rollout**: the same plus a short recorded rollout (``steps`` below, CSV streamed), the
  whole ``diagnose`` minus report rendering.

Peak memory is the process's peak resident set (Linux ``VmHWM``; ``ru_maxrss`` elsewhere, which
also counts the parent's memory before ``exec``): MuJoCo allocates in C, which ``tracemalloc``
never sees. What the model costs is the peak above the same process without a model: a bare
``import mujoco, numpy`` for the compile, that plus mjscope's diagnose imports for diagnose
(a fixed ~8 MiB, in the note with the whole-process ratio). Targets: static diagnose ≤ 3×
the compile time and ≤ 2× its memory.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

LINKS = 4  # links per arm
ROLLOUT_STEPS = 20

_PROBE = r"""
import json, resource, sys, time
kind, path, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
import mujoco, numpy
t0 = time.perf_counter()
if kind == "compile":
    m = mujoco.MjModel.from_xml_path(path)
elif kind != "baseline":
    from mjscope.diagnose import RolloutCfg, initial_state_checks, reset, run_rollout
    from mjscope.diagnose import static_checks
    from mjscope.diagnose.summary import actuator_table, model_summary
    from mjscope.models import load
    t0 = time.perf_counter()
if kind in ("static", "rollout"):
    m = load(path)
    model_summary(m), actuator_table(m)
    found = static_checks(m)
    d = mujoco.MjData(m)
    reset(m, d)
    found += initial_state_checks(m, d)
    t1 = time.perf_counter()
    if kind == "rollout":
        run_rollout(m, RolloutCfg(steps=steps, csv=path + ".csv"))
    steps_time = time.perf_counter() - t1
dt = time.perf_counter() - t0
try:  # VmHWM: this process image's peak; ru_maxrss would include the parent's before exec
    with open("/proc/self/status") as f:
        rss = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
except (OSError, StopIteration):
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"time": dt, "rss": rss, "steps_time": locals().get("steps_time", 0.0)}))
"""


def scale_model_xml(ngeom: int) -> str:
    """An MJCF scene with ``ngeom`` geoms and about ``ngeom / 10`` DOFs.

    Half the geoms are static terrain boxes on the world body; a fifth are arms of
    :data:`LINKS` hinged links on static bases (two collision capsules and one visual box
    per link); the rest are free clusters of 40 spheres in two contype/conaffinity groups.
    Every other arm ``<exclude>``s its base and third link; every third arm has a
    ``<pair>`` of its last link with the floor. (MuJoCo's compiler needs memory quadratic in
    the DOFs, so a scene of many geoms has to keep its DOF count moderate.)
    """
    per_arm, per_cluster = 1 + 3 * LINKS, 40
    arms = max(1, ngeom // 5 // per_arm)
    clusters = max(1, (ngeom * 3 // 10) // per_cluster)
    terrain = max(0, ngeom - 1 - arms * per_arm - clusters * per_cluster)
    side = int(np.ceil(np.sqrt(arms + clusters + terrain)))

    def xy(k: int) -> str:
        return f"{0.5 * (k % side):g} {0.5 * (k // side):g}"

    parts = ['<geom name="floor" type="plane" size="0 0 .05"/>']
    parts += [f'<geom type="box" size=".1 .1 .01" pos="{xy(k)} 0"/>' for k in range(terrain)]
    for a in range(arms):
        parts.append(
            f'<body name="base{a}" pos="{xy(terrain + a)} 0">'
            f'<geom type="cylinder" size=".05 .02"/>{_chain(a)}</body>'
        )
    for c in range(clusters):
        grp = 1 + c % 2  # two contype/conaffinity groups; both collide with the floor (3)
        balls = "".join(
            f'<geom size=".02" pos="{0.03 * (i % 5):g} {0.03 * (i // 5 % 4):g} '
            f'{0.03 * (i // 20):g}" contype="{grp}" conaffinity="{grp}"/>'
            for i in range(per_cluster)
        )
        parts.append(
            f'<body name="cluster{c}" pos="{xy(terrain + arms + c)} .3"><freejoint/>{balls}</body>'
        )
    excludes = "".join(f'<exclude body1="base{a}" body2="arm{a}_2"/>' for a in range(0, arms, 2))
    pairs = "".join(f'<pair geom1="arm{a}_{LINKS - 1}" geom2="floor"/>' for a in range(0, arms, 3))
    return (
        '<mujoco model="scale"><option timestep="0.002"/>'
        '<default><geom contype="3" conaffinity="3"/></default>'
        f"<worldbody>{''.join(parts)}</worldbody><contact>{excludes}{pairs}</contact></mujoco>"
    )


def _chain(a: int) -> str:
    out = []
    for k in range(LINKS):
        out.append(
            f'<body name="arm{a}_{k}" pos="0 0 .1"><joint type="hinge" axis="0 1 0" damping=".1"/>'
            f'<geom name="arm{a}_{k}" type="capsule" size=".02 .04" pos="0 0 .05"/>'
            '<geom type="capsule" size=".015 .03" pos=".02 0 .05"/>'
            '<geom type="box" size=".01 .01 .01" contype="0" conaffinity="0" mass="0"/>'
        )
    return "".join(out) + "</body>" * LINKS


def _measure(kind: str, path: Path, steps: int = ROLLOUT_STEPS) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, kind, str(path), str(steps)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _row(metric: str, value: float, unit: str, ratio: float | None, target: str, note: str) -> dict:
    return {"metric": metric, "value": value, "unit": unit, "ratio": ratio, "target": target,
            "note": note}  # fmt: skip


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure and return the rows."""
    sizes = (500, 5000) if quick else (2000, 20000)
    repeats = 3 if quick else 5
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"scale{n}.xml"
            path.write_text(scale_model_xml(n), encoding="utf-8")
            rows += _rows_for(n, path, repeats)
    return rows


def _rows_for(n: int, path: Path, repeats: int) -> list[dict[str, Any]]:
    kinds = ("baseline", "imports", "compile", "static", "rollout")
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
    for _ in range(repeats):
        for k in kinds:
            runs[k].append(_measure(k, path))

    def med(kind: str, key: str) -> float:
        return float(np.median([r[key] for r in runs[kind]]))

    base, imports = med("baseline", "rss"), med("imports", "rss")
    t_c, t_s, t_r = med("compile", "time"), med("static", "time"), med("rollout", "time")
    m_c, m_s, m_r = (med(k, "rss") for k in ("compile", "static", "rollout"))
    best = min(r["time"] for r in runs["static"]) / min(r["time"] for r in runs["compile"])
    model_c = max(m_c - base, 1.0)  # what compiling the model costs [B]
    mem, mem_r = (m_s - imports) / model_c, (m_r - imports) / model_c
    mib = 2**20
    note = f"{n} geoms, median of {repeats} fresh processes; compile {t_c:.3g} s"
    return [
        _row(f"static diagnose / compile time ({n} geoms)", t_s / t_c, "x", t_s / t_c, "≤ 3",
             f"{note}; best-of ratio {best:.2f}"),
        _row(f"static diagnose / compile peak memory ({n} geoms)", mem, "x", mem, "≤ 2",
             f"model's share: {(m_s - imports) / mib:.0f} vs {model_c / mib:.0f} MiB; "
             f"imports {(imports - base) / mib:.0f} MiB once; whole process {m_s / m_c:.2f}x"),
        _row(f"+ {ROLLOUT_STEPS}-step rollout / compile time ({n} geoms)", t_r / t_c, "x",
             t_r / t_c, "", f"whole diagnose minus rendering; the recorded rollout itself "
             f"{med('rollout', 'steps_time'):.3g} s"),
        _row(f"+ {ROLLOUT_STEPS}-step rollout / compile peak memory ({n} geoms)", mem_r, "x",
             mem_r, "", f"CSV streamed; whole process {m_r / m_c:.2f}x"),
    ]  # fmt: skip
