"""``mjscope dock --calibrate``: identify the tool load and the F/T bias from a free-space run.

A short excitation in free space — every joint follows ``q0 + A_i sin(2π f_i t)`` under a
computed-torque law (distinct frequencies, amplitudes larger on the wrist) — records the raw F/T
reading (sensor axes, bias included) and, from Pinocchio, the sensor frame's velocity and
acceleration at the state each reading was taken in. The reading is linear in the 16 load
parameters (mass, first moment, inertia about the sensor, bias: :mod:`mjscope.control.tool_load`);
one least-squares solve identifies them, and the result is reported against the scene's ``tool``
and ``ft.bias``, with the free-space residual of the compensation by the scene's values and by the
identified ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin
from rich.console import Console
from rich.table import Table

from mjscope.control.tool_load import Identified, ToolLoad, ToolLoadCompensator, identify, regressor
from mjscope.dock.env import MujocoEnv
from mjscope.dock.scene import Scene
from mjscope.dock.stages import tool_load
from mjscope.exceptions import SimulationError
from mjscope.paths import check_writable, write_json

DURATION = 2.0  # excitation [s]
FREQS = (0.35, 0.45, 0.55, 0.65, 0.8, 0.95, 1.1)  # per joint [Hz]
AMPS = (0.03, 0.03, 0.05, 0.05, 0.25, 0.25, 0.4)  # per joint [rad]
KP, KD = 400.0, 40.0  # computed-torque gains [1/s², 1/s]


@dataclass(frozen=True)
class Calibration:
    """What :func:`calibrate` found.

    Attributes:
        scene: Scene name.
        identified: The least-squares estimate.
        expected: The scene's load (``tool``, ``ft.bias``).
        residual_scene: Max free-space |force| left after compensating with the scene [N].
        residual_identified: ... with the identified load [N].
        peak_raw: Max |force| of the raw reading minus its mean [N].
    """

    scene: str
    identified: Identified
    expected: ToolLoad
    residual_scene: float
    residual_identified: float
    peak_raw: float

    def rows(self) -> list[tuple[str, float, float, str]]:
        """(quantity, identified, scene, unit) in report order."""
        e, i = self.expected, self.identified
        rows = [("mass", i.mass, e.mass, "kg")]
        rows += [(f"com_{a}", float(i.com[k]), float(e.com[k]), "m") for k, a in enumerate("xyz")]
        names = ("bias_fx", "bias_fy", "bias_fz", "bias_tx", "bias_ty", "bias_tz")
        rows += [(n, float(i.bias[k]), float(e.bias[k]), "N" if k < 3 else "N·m")
                 for k, n in enumerate(names)]  # fmt: skip
        return rows


def excite(scene: Scene, duration: float = DURATION) -> tuple[np.ndarray, np.ndarray, Any]:
    """Run the excitation; (regressors (n, 6, 16), raw readings (n, 6), kinematics (n, 4, 3)).

    Raises:
        SimulationError: The tool touched something (calibration needs free space).
    """
    mj_model, pin_model = scene.build_models()
    q0 = scene.initial_q(mj_model)
    dt = scene.cfg.control_period
    env = MujocoEnv(mj_model, q0, dt)
    comp = ToolLoadCompensator(pin_model, "ft_site", tool_load(scene))
    pdata = pin_model.createData()
    bias = np.asarray(scene.cfg.ft.bias, float)
    w = 2 * np.pi * np.asarray(FREQS[: pin_model.nv])
    amp = np.asarray(AMPS[: pin_model.nv])
    n = round(duration / dt)
    kin, raw = np.zeros((n, 4, 3)), np.zeros((n, 6))
    q, v = q0.copy(), np.zeros(pin_model.nv)
    for k in range(n):
        t = k * dt
        ramp = min(1.0, t / 0.3) ** 2  # no step in acceleration at the start
        qd, vd, ad = q0 + ramp * amp * np.sin(w * t), ramp * amp * w * np.cos(w * t), \
            -ramp * amp * w**2 * np.sin(w * t)  # fmt: skip
        a_cmd = ad + KP * (qd - q) + KD * (vd - v)
        tau = pin.rnea(pin_model, pdata, q, v, a_cmd)
        q_prev, v_prev = q, v
        q, v, _ = env.step(tau)
        if env.contact_force() > 0.0 or env.data.ncon:
            raise SimulationError(
                f"calibration of scene {scene.name!r} touched something at t = {t:.3f} s; "
                "start it from a pose in free space (q0)"
            )
        kin[k] = comp.kinematics(q_prev, v_prev, (v - v_prev) / dt)
        raw[k] = env.ft6() + bias
    Y = regressor(kin[:, 0], kin[:, 1], kin[:, 2], kin[:, 3])
    return Y, raw, kin


def calibrate(scene: Scene, duration: float = DURATION) -> Calibration:
    """Identify the tool load and bias from a free-space excitation (module docstring)."""
    Y, raw, kin = excite(scene, duration)
    ident = identify(Y, raw)
    expected = tool_load(scene)
    est = ToolLoad(ident.mass, ident.com, _inertia_about_com(ident), ident.bias)

    def residual(load: ToolLoad) -> float:
        pred = load.wrench(kin[:, 0], kin[:, 1], kin[:, 2], kin[:, 3]) + load.bias
        return float(np.linalg.norm(raw[:, :3] - pred[:, :3], axis=1).max())

    peak = float(np.linalg.norm(raw[:, :3] - raw[:, :3].mean(0), axis=1).max())
    return Calibration(scene.name, ident, expected, residual(expected), residual(est), peak)


def _inertia_about_com(i: Identified) -> np.ndarray:
    c = i.com
    return i.inertia_origin - i.mass * (c.dot(c) * np.eye(3) - np.outer(c, c))


def calibration_record(cal: Calibration) -> dict[str, Any]:
    """Every row (identified beside the scene's) and the residuals, as JSON-ready values."""
    return {
        "scene": cal.scene,
        "rows": [{"quantity": q, "identified": a, "scene": b, "unit": u}
                 for q, a, b, u in cal.rows()],
        "residual_scene_N": cal.residual_scene,
        "residual_identified_N": cal.residual_identified,
        "peak_raw_N": cal.peak_raw,
        "fit_residual_rms_N": cal.identified.residual_rms,
        "samples": cal.identified.samples,
        "condition": cal.identified.condition,
    }  # fmt: skip


def write_calibration(cal: Calibration, out: Path) -> Path:
    """``OUT/calibration/<scene>.json`` with :func:`calibration_record`."""
    path = check_writable(Path(out) / "calibration" / f"{cal.scene}.json")
    write_json(path, calibration_record(cal))
    return path


def print_calibration(con: Console, cal: Calibration, path: Path) -> None:
    """The identified values beside the scene's, and the residuals."""
    table = Table(title=f"{cal.scene}: tool load identified from {DURATION:g} s of free space")
    for col in ("quantity", "identified", "scene", "difference", "unit"):
        table.add_column(col)
    for q, a, b, u in cal.rows():
        table.add_row(q, f"{a:.5g}", f"{b:.5g}", f"{a - b:+.2e}", u)
    con.print(table)
    con.print(
        f"raw reading swings {cal.peak_raw:.3g} N; compensated with the scene's load "
        f"{cal.residual_scene:.3g} N, with the identified one {cal.residual_identified:.3g} N "
        f"(max |force|, {cal.identified.samples} readings, condition "
        f"{cal.identified.condition:.3g})"
    )
    con.print(f"wrote {path}")
    if not math.isfinite(cal.identified.mass):
        con.print("[red]the excitation did not identify the mass[/red]")
