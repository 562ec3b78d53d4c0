"""What a ``--set`` changes: ``option.<attr>`` or ``<kind>:<name-or-glob>.<attr>``.

Kinds and their settable attributes (:data:`ATTRS`):

- ``geom``: solref, solimp, friction, condim, margin, priority, and ``stiffness`` in physical
  units: ``stiffness=2e4,damping=50`` [N/m, N·s/m] (values ``;``-separated) is converted to
  solref at the geom's effective mass (:mod:`mjscope.diagnose.contact_params`);
- ``equality``: solref, solimp, active (S1.11 exercise 5: ``equality:closure.solref``);
- ``actuator``: gear, ctrlrange, forcerange, gainprm, biasprm, dynprm, and ``kp`` (a position
  servo's gain: ``gainprm[0] = kp``, ``biasprm[1] = -kp``);
- ``body``: mass [kg] (the inertia is scaled with it, centre of mass and axes kept).

Values are applied to a fresh ``MjSpec`` (:func:`applier`); a name or glob that matches
nothing is an error listing the names there are.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import mujoco
import numpy as np

from mjscope.diagnose.contact_params import WIN_SOLMIX, geom_mass, parse_spring, solref_for
from mjscope.exceptions import ConfigError

ATTRS = {
    "geom": ("solref", "solimp", "friction", "condim", "margin", "priority", "stiffness"),
    "equality": ("solref", "solimp", "active"),
    "actuator": ("gear", "ctrlrange", "forcerange", "gainprm", "biasprm", "dynprm", "kp"),
    "body": ("mass",),
}
GEOM_ATTRS = ATTRS["geom"]
_COLLECTION = {"geom": "geoms", "equality": "equalities", "actuator": "actuators", "body": "bodies"}
_ENUMS = {
    "integrator": mujoco.mjtIntegrator,
    "cone": mujoco.mjtCone,
    "solver": mujoco.mjtSolver,
}
_USAGE = (
    "expected option.<attr>=v1,v2 or '<geom|equality|actuator|body>:<name-or-glob>.<attr>=v1;v2'"
)


class Sweep(NamedTuple):
    """A parsed ``--set``: what to change and the values to try."""

    target: str  # "option" or "<kind>:<glob>"
    attr: str
    values: list[str]

    @property
    def label(self) -> str:
        """``option.timestep`` / ``geom:foot*.solref``."""
        return f"{self.target}.{self.attr}"

    @property
    def kind(self) -> str:
        """``option``, ``geom``, ``equality``, ``actuator`` or ``body``."""
        return self.target.partition(":")[0]


def parse_set(text: str) -> Sweep:
    """Parse ``option.<attr>=v1,v2`` or ``<kind>:<glob>.<attr>=v1;v2``.

    Values are split on ``;`` when there is one (values with spaces), else on ``,``.

    Raises:
        ConfigError: Malformed text or an unsupported attribute.
    """
    lhs, sep, rhs = text.partition("=")
    if not sep or "." not in lhs or not rhs.strip():
        raise ConfigError(f"--set {text!r}: {_USAGE}")
    target, _, attr = lhs.strip().rpartition(".")
    sep_values = ";" if ";" in rhs or lhs.strip().endswith(".stiffness") else ","
    values = [v.strip() for v in rhs.split(sep_values) if v.strip()]
    kind, colon, pattern = target.partition(":")
    if target == "option":
        valid = option_attrs()
        if attr not in valid:
            raise ConfigError(f"--set: option has no settable {attr!r}; valid: {', '.join(valid)}")
    elif kind in ATTRS and colon and pattern:
        if attr not in ATTRS[kind]:
            raise ConfigError(
                f"--set: {kind} attribute {attr!r} not one of {', '.join(ATTRS[kind])}"
            )
    else:
        raise ConfigError(f"--set {text!r}: target must be 'option' or {', '.join(ATTRS)}:<glob>")
    if not values:
        raise ConfigError(f"--set {text!r}: no values after '='")
    return Sweep(target, attr, values)


def option_attrs() -> list[str]:
    """``option`` attributes a sweep can set: numbers, number arrays and enum names."""
    opt = mujoco.MjSpec().option
    out = []
    for name in dir(opt):
        if name.startswith("_"):
            continue
        value = getattr(opt, name)
        if name in _ENUMS or isinstance(value, int | float | np.ndarray):
            out.append(name)
    return sorted(out)


def applier(sweep: Sweep, value: str) -> Callable[[mujoco.MjSpec], None]:
    """A function that applies ``sweep.attr = value`` to a spec."""

    def apply(spec: mujoco.MjSpec) -> None:
        if sweep.target == "option":
            _set(spec.option, sweep.attr, value)
            return
        kind, _, pattern = sweep.target.partition(":")
        elements = getattr(spec, _COLLECTION[kind])
        hit = [e for e in elements if e.name and fnmatch.fnmatchcase(e.name, pattern)]
        if not hit:
            known = sorted(e.name for e in elements if e.name)
            raise ConfigError(
                f"--set: no {kind} matches {pattern!r}; named {kind}s: {known or '(none)'}"
            )
        if kind == "body":
            _set_masses(spec, hit, value)
            return
        if sweep.attr == "stiffness":
            _set_springs(spec, hit, value)
            return
        for e in hit:
            if sweep.attr == "kp":
                kp = _numbers("kp", value)[0]
                _set(e, "gainprm", f"{kp}")
                bias = list(e.biasprm)
                bias[1] = -kp
                e.biasprm = bias
            else:
                _set(e, sweep.attr, value)

    return apply


def _numbers(attr: str, value: str) -> list[float]:
    try:
        nums = [float(x) for x in value.replace(",", " ").split()]
    except ValueError as e:
        raise ConfigError(f"--set: {attr} value {value!r} is not numeric") from e
    if not nums:
        raise ConfigError(f"--set: {attr} value {value!r} has no number")
    return nums


def _set(obj: Any, attr: str, value: str) -> None:
    if attr in _ENUMS:
        enum = _ENUMS[attr]
        names = {n.split("_", 1)[1].lower(): v for n, v in enum.__members__.items() if "_" in n}
        if value.lower() not in names:
            raise ConfigError(f"--set: {attr} {value!r} not one of {', '.join(names)}")
        setattr(obj, attr, names[value.lower()])
        return
    nums = _numbers(attr, value)
    current = getattr(obj, attr)
    if isinstance(current, bool | int | float):
        setattr(obj, attr, type(current)(nums[0]))
        return
    arr = list(current)
    if len(nums) > len(arr):
        raise ConfigError(f"--set: {attr} takes at most {len(arr)} numbers, got {value!r}")
    arr[: len(nums)] = nums
    setattr(obj, attr, arr)


def _set_masses(spec: mujoco.MjSpec, bodies: list[Any], value: str) -> None:
    """Give each body mass ``value`` [kg], scaling its compiled inertia with it."""
    mass = _numbers("mass", value)[0]
    if not mass > 0:
        raise ConfigError(f"--set: body mass {value!r} must be > 0 [kg]")
    try:
        model = spec.compile()
    except ValueError as e:
        raise ConfigError(f"--set: the model does not compile before the mass change: {e}") from e
    for b in bodies:
        i = model.body(b.name).id
        old = float(model.body_mass[i])
        scale = mass / old if old > 0 else 1.0
        b.explicitinertial = True
        b.mass = mass
        b.ipos = model.body_ipos[i].tolist()
        b.iquat = model.body_iquat[i].tolist()
        b.inertia = (model.body_inertia[i] * scale).tolist()
        b.fullinertia = [np.nan] * 6


def _set_springs(spec: mujoco.MjSpec, geoms: list[Any], value: str) -> None:
    """Give each geom the solref of spring ``K`` and damper ``B`` at its effective mass.

    The impedance is made constant (``solimp[0] = solimp[1]``) so the spring is linear, and
    ``solmix`` raised so the geom's solref/solimp win the mixing with partners of its
    priority.
    """
    stiff, damp = parse_spring(value)
    try:
        model = spec.compile()
    except ValueError as e:
        raise ConfigError(f"--set: the model does not compile before the stiffness: {e}") from e
    for geom in geoms:
        g = model.geom(geom.name).id
        imp = [float(x) for x in model.geom_solimp[g]]
        mass = geom_mass(model, g)
        if not math.isfinite(mass) or not 0 < imp[1] < 1:
            raise ConfigError(
                f"--set: geom {geom.name!r} has no mass of its own (static, or solimp[1] = "
                f"{imp[1]:g}): set the stiffness on the moving geom that touches it"
            )
        tau, ratio = solref_for(stiff, damp, mass, imp[1])
        geom.solref = [tau, ratio]
        geom.solimp = [imp[1], *imp[1:]]
        geom.solmix = WIN_SOLMIX
