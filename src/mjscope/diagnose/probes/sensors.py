"""Sensor statistics over a rollout: running mean, min and max of every sensor component.

Readings are gathered raw per step by the recorder and reduced per block:
no Python call per step, flat memory. New sensor types need nothing here: every entry of
``sensordata`` is covered.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.probes.base import Probe


def sensor_type_name(model: mujoco.MjModel, sid: int) -> str:
    """``mjSENS_ACCELEROMETER`` → ``accelerometer``."""
    return mujoco.mjtSensor(int(model.sensor_type[sid])).name.removeprefix("mjSENS_").lower()


class SensorProbe(Probe):
    """Running mean/min/max of each ``sensordata`` entry (no CSV columns)."""

    def bind(self, model: mujoco.MjModel, data: mujoco.MjData, out: np.ndarray) -> None:  # noqa: D102
        super().bind(model, data, out)
        n = model.nsensordata
        self.total = np.zeros(n)
        self.lo = np.full(n, np.inf)
        self.hi = np.full(n, -np.inf)
        self.count = 0

    def sources(self) -> list[np.ndarray]:  # noqa: D102
        return [self.data.sensordata] if self.model.nsensordata else []  # (nsensordata,)

    raw_parts = True  # a view of sensordata's rows in the block

    def flush(self, n: int, start: int, raw: Any) -> None:  # noqa: D102
        if n == 0 or not raw or raw[0].shape[1] == 0:
            self.count += n
            return
        rows = raw[0]  # (n, nsensordata)
        self.total += rows.sum(axis=0)
        per_sensor = np.ascontiguousarray(rows.T)  # (nsensordata, n): one pass per extreme
        np.minimum(self.lo, per_sensor.min(axis=1), out=self.lo)
        np.maximum(self.hi, per_sensor.max(axis=1), out=self.hi)
        self.count += n

    def summary(self) -> dict[str, Any]:  # noqa: D102
        return {"sensors": sensor_table(self.model, self.total, self.lo, self.hi, self.count)}


def sensor_table(
    model: mujoco.MjModel, total: np.ndarray, lo: np.ndarray, hi: np.ndarray, count: int
) -> list[dict[str, Any]]:
    """One row per sensor: name, type, dim, mean/min/max (lists of ``dim`` values)."""
    rows = []
    for s in range(model.nsensor):
        adr, dim = int(model.sensor_adr[s]), int(model.sensor_dim[s])
        sl = slice(adr, adr + dim)
        empty = count == 0
        rows.append(
            {
                "name": mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_SENSOR, s) or f"sensor#{s}",
                "type": sensor_type_name(model, s),
                "dim": dim,
                "mean": [] if empty else (total[sl] / count).tolist(),
                "min": [] if empty else lo[sl].tolist(),
                "max": [] if empty else hi[sl].tolist(),
            }
        )
    return rows
