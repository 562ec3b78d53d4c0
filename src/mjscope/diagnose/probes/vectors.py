"""Optional CSV columns: ``qpos``, ``qvel`` and ``sensordata`` entries, named and with units.

S1.13's list of observables to record (``--columns qpos,qvel,sensordata``). Names:

- ``qpos.<joint>`` for a hinge [rad] or slide [m]; a free joint's ``.x .y .z`` [m] and
  ``.qw .qx .qy .qz`` [1]; a ball joint's ``.qw .qx .qy .qz`` [1];
- ``qvel.<dof>`` as :func:`~mjscope.diagnose.names.dof_label` names DOFs ([m/s] or [rad/s]);
- ``sensor.<name>`` (``sensor.<name>.<k>`` for a sensor of several components), in the
  sensor type's unit (touch [N], gyro [rad/s], framepos [m], ...).

Values are the raw copies the recorder gathers each step: no Python call per step. A row
describes the state at its ``time`` (before the step, like every other column): ``qpos`` and
``qvel``, which ``mj_step`` has already advanced when they are copied, are shifted back by
one step (the first row holds the reset state); ``sensordata`` comes from the step's forward
pass and needs no shift.
"""

from __future__ import annotations

import mujoco
import numpy as np

from mjscope.diagnose.names import dof_label, joint_name, name_of
from mjscope.diagnose.probes.base import Column, Probe
from mjscope.exceptions import ConfigError

KINDS = ("qpos", "qvel", "sensordata")
_J = mujoco.mjtJoint
_S = mujoco.mjtSensor
_SENSOR_UNITS = {
    _S.mjSENS_TOUCH: "N",
    _S.mjSENS_ACCELEROMETER: "m/s²",
    _S.mjSENS_VELOCIMETER: "m/s",
    _S.mjSENS_GYRO: "rad/s",
    _S.mjSENS_FORCE: "N",
    _S.mjSENS_TORQUE: "N·m",
    _S.mjSENS_MAGNETOMETER: "T",
    _S.mjSENS_RANGEFINDER: "m",
    _S.mjSENS_BALLQUAT: "1",
    _S.mjSENS_BALLANGVEL: "rad/s",
    _S.mjSENS_FRAMEPOS: "m",
    _S.mjSENS_FRAMEQUAT: "1",
    _S.mjSENS_FRAMEXAXIS: "1",
    _S.mjSENS_FRAMEYAXIS: "1",
    _S.mjSENS_FRAMEZAXIS: "1",
    _S.mjSENS_FRAMELINVEL: "m/s",
    _S.mjSENS_FRAMEANGVEL: "rad/s",
    _S.mjSENS_FRAMELINACC: "m/s²",
    _S.mjSENS_FRAMEANGACC: "rad/s²",
    _S.mjSENS_SUBTREECOM: "m",
    _S.mjSENS_SUBTREELINVEL: "m/s",
    _S.mjSENS_SUBTREEANGMOM: "kg·m²/s",
    _S.mjSENS_GEOMDIST: "m",
    _S.mjSENS_GEOMNORMAL: "1",
    _S.mjSENS_GEOMFROMTO: "m",
    _S.mjSENS_E_POTENTIAL: "J",
    _S.mjSENS_E_KINETIC: "J",
    _S.mjSENS_CLOCK: "s",
    _S.mjSENS_TENDONPOS: "m",
    _S.mjSENS_TENDONVEL: "m/s",
}
_JOINT_SENSORS = {
    _S.mjSENS_JOINTPOS: ("m", "rad"),
    _S.mjSENS_JOINTVEL: ("m/s", "rad/s"),
    _S.mjSENS_JOINTACTFRC: ("N", "N·m"),
    _S.mjSENS_JOINTLIMITPOS: ("m", "rad"),
    _S.mjSENS_JOINTLIMITVEL: ("m/s", "rad/s"),
    _S.mjSENS_JOINTLIMITFRC: ("N", "N·m"),
}


def parse_columns(text: str | tuple[str, ...] | None) -> tuple[str, ...]:
    """``"sensordata,qpos"`` → ``("qpos", "sensordata")`` (always in :data:`KINDS` order).

    Raises:
        ConfigError: A name not in :data:`KINDS`.
    """
    if not text:
        return ()
    parts = text.split(",") if isinstance(text, str) else [p for t in text for p in t.split(",")]
    kinds = {p.strip() for p in parts if p.strip()}
    bad = sorted(kinds - set(KINDS))
    if bad:
        raise ConfigError(f"--columns {', '.join(bad)}: not one of {', '.join(KINDS)}")
    return tuple(k for k in KINDS if k in kinds)  # state vectors first, in a fixed order


def _clean(name: str) -> str:
    return name.replace(" ", "_").replace(",", "_")


def qpos_columns(model: mujoco.MjModel) -> list[Column]:
    """One column per ``qpos`` entry, in order."""
    out = []
    for j in range(model.njnt):
        n, t = _clean(joint_name(model, j)), int(model.jnt_type[j])
        if t == _J.mjJNT_FREE:
            parts = [(f"{n}.{a}", "m") for a in "xyz"] + [(f"{n}.q{a}", "1") for a in "wxyz"]
        elif t == _J.mjJNT_BALL:
            parts = [(f"{n}.q{a}", "1") for a in "wxyz"]
        else:
            parts = [(n, "m" if t == _J.mjJNT_SLIDE else "rad")]
        out += [Column(f"qpos.{c}", u, f"joint position {c}") for c, u in parts]
    return out


def qvel_columns(model: mujoco.MjModel) -> list[Column]:
    """One column per DOF, in order."""
    out = []
    for dof in range(model.nv):
        label, _, unit = dof_label(model, dof)
        vel = "m/s" if unit == "N" else "rad/s"
        out.append(Column(f"qvel.{_clean(label)}", vel, f"joint velocity {label}"))
    return out


def sensor_columns(model: mujoco.MjModel) -> list[Column]:
    """One column per ``sensordata`` entry, in order."""
    out = []
    for s in range(model.nsensor):
        n = _clean(name_of(model, mujoco.mjtObj.mjOBJ_SENSOR, s, "sensor"))
        t, dim = int(model.sensor_type[s]), int(model.sensor_dim[s])
        unit = _sensor_unit(model, s, t)
        names = [f"sensor.{n}"] if dim == 1 else [f"sensor.{n}.{k}" for k in range(dim)]
        out += [Column(c, unit, f"sensordata of sensor {n}") for c in names]
    return out


def _sensor_unit(model: mujoco.MjModel, s: int, t: int) -> str:
    if t in _JOINT_SENSORS:
        j = int(model.sensor_objid[s])
        slide = int(model.jnt_type[j]) == _J.mjJNT_SLIDE
        return _JOINT_SENSORS[mujoco.mjtSensor(t)][0 if slide else 1]
    return _SENSOR_UNITS.get(mujoco.mjtSensor(t), "-")


class VectorProbe(Probe):
    """Records the chosen state vectors raw, one CSV column per entry.

    Args:
        model: The model (the columns depend on it).
        kinds: Any of :data:`KINDS`, in the order given.
    """

    def __init__(self, model: mujoco.MjModel, kinds: tuple[str, ...]) -> None:
        self.kinds = kinds
        make = {"qpos": qpos_columns, "qvel": qvel_columns, "sensordata": sensor_columns}
        self.columns = tuple(c for k in kinds for c in make[k](model))

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        state = [k for k in self.kinds if k != "sensordata"]
        self.shifted = sum(getattr(data, k).size for k in state)  # leading raw columns to shift
        self.prev = np.concatenate([getattr(data, k).copy() for k in state] or [np.zeros(0)])

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        return [getattr(self.data, k) for k in self.kinds if getattr(self.data, k).size]

    def flush(self, n: int, start: int, raw: np.ndarray) -> None:  # noqa: D102
        if not self.columns or n == 0:
            return
        self.out[:n] = raw
        k = self.shifted
        if k:
            self.out[0, :k] = self.prev
            self.out[1:n, :k] = raw[: n - 1, :k]
            self.prev = raw[n - 1, :k].copy()
