"""The rollout's ``--ctrl``: what each actuator is commanded, step by step.

One spec for all actuators, or a YAML file mapping actuator names (or globs) to specs:

- ``hold`` (the default): hold the start pose, by actuator type (:mod:`.hold`): servo
  targets at the start pose, velocity servos 0, motors gravity compensation plus a PD on the
  start pose within ``ctrlrange``.
- ``zero``: every control 0 (a position servo then drives its joint to 0, wherever that is).
- ``noise``: seeded, uniform over ``ctrlrange`` scaled by ``noise_scale`` (±1 when unlimited).
- ``sine[:AMP[:HZ]]``: ``AMP·sin(2π·HZ·t)`` in the actuator's control units (exercise 5's
  ``sine:5:1`` is ``5·sin(2πt)``); without ``AMP`` it spans ``ctrlrange`` (centre ± half the
  range; ±1 when unlimited); ``HZ`` defaults to 1.
- ``const:VALUE``: ``VALUE`` in the actuator's control units.

A YAML map (``--ctrl ctrl.yaml``) gives one spec per actuator, e.g. ``{crank_motor: "sine:5:1",
"*_finger": hold, default: zero}``; actuators it does not name get ``default`` (``hold``).
Values outside ``ctrlrange`` are sent as they are: MuJoCo clamps them (reported by the
``CTRL_OUTSIDE_RANGE`` check).
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import mujoco
import numpy as np

from mjscope.config import read_yaml_any
from mjscope.diagnose.hold import HOLD_LABELS, MotorHold, hold_mode, target_ctrl
from mjscope.exceptions import ConfigError

CTRL_MODES = ("hold", "zero", "noise", "sine[:AMP[:HZ]]", "const:VALUE", "FILE.yaml")
DEFAULT_CTRL = "hold"


def hold_ctrl(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """The constant part of ``hold`` at the current pose, (nu,).

    Servo targets at the current actuator length, 0 for everything else (motors get their
    per-step hold from :class:`~mjscope.diagnose.hold.MotorHold`).
    """
    ctrl = np.zeros(model.nu)
    for a in range(model.nu):
        if hold_mode(model, a) == "target":
            ctrl[a] = target_ctrl(model, data, a)
    return ctrl


def noise_source(
    model: mujoco.MjModel, rows: int, seed: int, scale: float
) -> Callable[[], np.ndarray]:
    """Seeded generator of control blocks ``(rows, nu)`` centred in ``ctrlrange``."""
    rng = np.random.default_rng(seed)
    centre, half = _span(model)
    half = half * scale

    def draw() -> np.ndarray:
        return centre + half * rng.uniform(-1.0, 1.0, size=(rows, model.nu))

    return draw


def _span(model: mujoco.MjModel) -> tuple[np.ndarray, np.ndarray]:
    """Centre and half-width of each actuator's ctrlrange (0 ± 1 when unlimited), (nu,) each."""
    lim = model.actuator_ctrllimited.astype(bool)
    lo, hi = model.actuator_ctrlrange[:, 0], model.actuator_ctrlrange[:, 1]
    return np.where(lim, (lo + hi) / 2, 0.0), np.where(lim, (hi - lo) / 2, 1.0)


class Spec(NamedTuple):
    """One actuator's control: ``kind`` (hold, zero, noise, sine, const) and its numbers.

    Attributes:
        kind: The mode.
        amp: Sine amplitude [control units] (``None``: span ``ctrlrange``).
        hz: Sine frequency [Hz].
        value: Constant [control units].
    """

    kind: str
    amp: float | None = None
    hz: float = 1.0
    value: float = 0.0


def parse_spec(text: str) -> Spec:
    """Parse one control spec (module docstring).

    Raises:
        ConfigError: Unknown mode or a non-numeric or non-finite number.
    """
    t = str(text).strip()
    head, _, rest = t.partition(":")
    head = head.lower()
    if head in ("hold", "zero", "noise") and not rest:
        return Spec(head)
    parts = rest.split(":") if rest else []
    if head == "sine" and len(parts) <= 2:
        amp = _number(t, parts[0]) if parts and parts[0] else None
        hz = _number(t, parts[1]) if len(parts) == 2 else 1.0
        return Spec("sine", amp, hz)
    if head == "const" and len(parts) == 1:
        return Spec("const", value=_number(t, parts[0]))
    raise ConfigError(
        f"--ctrl {t!r} is not one of {', '.join(CTRL_MODES)} (e.g. sine:5:1, const:0.2)"
    )


def _number(text: str, s: str) -> float:
    try:
        x = float(s)
    except ValueError:
        x = math.nan
    if not math.isfinite(x):
        raise ConfigError(f"--ctrl {text!r}: {s!r} is not a finite number")
    return x


def parse_ctrl(model: mujoco.MjModel, ctrl: str) -> list[Spec]:
    """The spec of every actuator from ``--ctrl`` (a spec, or a YAML file of them).

    Raises:
        ConfigError: A bad spec, an unreadable YAML file, a key naming no actuator.
    """
    if not ctrl.lower().endswith((".yaml", ".yml")):
        return [parse_spec(ctrl)] * model.nu
    return _from_yaml(model, Path(ctrl))


def _from_yaml(model: mujoco.MjModel, path: Path) -> list[Spec]:
    try:
        doc = read_yaml_any(path)
    except ConfigError as e:
        raise ConfigError(f"--ctrl {str(path)!r}: {e}") from e
    if not isinstance(doc, dict):
        raise ConfigError(f"--ctrl {str(path)!r}: expected a map 'actuator name: spec'")
    names = [
        mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a) or "" for a in range(model.nu)
    ]
    default = parse_spec(str(doc.pop("default", DEFAULT_CTRL)))
    specs = [default] * model.nu
    for key, value in doc.items():
        hit = [a for a, n in enumerate(names) if n and fnmatch.fnmatchcase(n, str(key))]
        if not hit:
            raise ConfigError(
                f"--ctrl {str(path)!r}: {key!r} names no actuator; actuators: "
                f"{', '.join(n for n in names if n) or '(none named)'}"
            )
        spec = parse_spec(f"const:{value}" if isinstance(value, int | float) else str(value))
        for a in hit:
            specs[a] = spec
    return specs


def describe(specs: list[Spec], modes: list[str] | None = None) -> str:
    """One line saying which control each group of actuators got.

    Args:
        specs: One spec per actuator.
        modes: Each actuator's hold mode (:func:`~mjscope.diagnose.hold.hold_mode`), to say
            how ``hold`` held it.
    """
    counts: dict[str, int] = {}
    for a, s in enumerate(specs):
        label = {
            "hold": f"hold: {HOLD_LABELS[modes[a]]}" if modes else "hold",
            "zero": "zero",
            "noise": "noise",
            "sine": f"sine {'±ctrlrange' if s.amp is None else f'{s.amp:g}'} at {s.hz:g} Hz",
            "const": f"const {s.value:g}",
        }[s.kind]
        counts[label] = counts.get(label, 0) + 1
    return "; ".join(f"{k} ({n} actuator{'s' * (n != 1)})" for k, n in counts.items()) or "none"


class ControlPlan:
    """Blocks of controls ``(rows, nu)`` for the rollout loop, from per-actuator specs.

    Hold, zero and const actuators are constant (written once when every actuator is);
    sine and noise columns are computed per block from the time of each step's state; held
    motors are computed every step from the state by ``feedback`` (``None`` when none).

    Args:
        model: The model.
        data: The reset data (hold reads its actuator lengths).
        specs: One spec per actuator.
        rows: Block rows.
        seed: Noise seed.
        noise_scale: Fraction of the half ctrlrange used by noise [1].
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        specs: list[Spec],
        rows: int,
        seed: int = 0,
        noise_scale: float = 1.0,
    ) -> None:
        self.h, self.rows = float(model.opt.timestep), rows
        hold = hold_ctrl(model, data)
        self.modes = [hold_mode(model, a) for a in range(model.nu)]
        self.base = np.array(
            [
                hold[a] if s.kind == "hold" else s.value if s.kind == "const" else 0.0
                for a, s in enumerate(specs)
            ]
        )
        self.noisy = np.array([s.kind == "noise" for s in specs], bool)
        self.sine = np.array([s.kind == "sine" for s in specs], bool)
        centre, half = _span(model)
        amp = [half[a] if s.amp is None else s.amp for a, s in enumerate(specs)]
        self.amp = np.array(amp, float)
        self.offset = np.where([s.amp is None for s in specs], centre, 0.0)
        self.omega = 2 * np.pi * np.array([s.hz for s in specs], float)
        self.draw = noise_source(model, rows, seed, noise_scale) if self.noisy.any() else None
        self.constant = not (self.noisy.any() or self.sine.any())
        motors = [a for a, s in enumerate(specs) if s.kind == "hold" and self.modes[a] == "motor"]
        self.feedback = MotorHold(model, data, np.array(motors)) if motors else None

    def block(self, start: int) -> np.ndarray:
        """Controls of steps ``start .. start + rows - 1``, (rows, nu)."""
        out = np.repeat(self.base[None, :], self.rows, axis=0)
        if self.draw is not None:
            noise = self.draw()
            out[:, self.noisy] = noise[:, self.noisy]
        if self.sine.any():
            t = (start + np.arange(self.rows))[:, None] * self.h  # [s], (rows, 1)
            s = self.sine
            out[:, s] = self.offset[s] + self.amp[s] * np.sin(self.omega[s] * t)
        return out


def check_noise_scale(scale: float) -> None:
    """Raise ConfigError unless ``scale`` is a finite number ≥ 0."""
    if not 0.0 <= scale < math.inf:  # NaN fails too
        raise ConfigError(f"--noise-scale {scale!r} must be a finite number ≥ 0")


def ctrl_report(model: mujoco.MjModel, specs: list[Spec]) -> dict[str, Any]:
    """The report's description of the control used, with each actuator's hold mode."""
    modes = [hold_mode(model, a) for a in range(model.nu)]
    per = {
        mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a) or f"actuator#{a}": (
            f"hold ({modes[a]})" if s.kind == "hold" else s.kind
        )
        for a, s in enumerate(specs)
    }
    return {
        "description": describe(specs, modes),
        "kinds": sorted({s.kind for s in specs}),
        "per_actuator": per,
    }
