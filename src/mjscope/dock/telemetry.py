"""Time-series log of a docking or tracking run.

:meth:`Log.store_data` is called once per control period (1 kHz) with one :class:`Sample`. It
writes every value into preallocated numpy blocks, so each call is a handful of array
assignments and nothing grows per step. Assignment into a block copies, which matters: MuJoCo's
``qpos``/``qvel`` slices are views that change on the next ``mj_step``, and storing such a view
once recorded the same state at every step (the seed's commit 3932fe5). :meth:`Log.arrays`
stacks the blocks into one array per field.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from mjscope.paths import atomic_path

#: Field name -> (trailing shape, dtype); ``None`` in a shape is set by the first sample.
FIELDS: dict[str, tuple[tuple[int | None, ...], type]] = {
    "t": ((), np.float64),  # simulation time [s]
    "q": ((None,), np.float64),  # joint positions [rad]  (nq,)
    "v": ((None,), np.float64),  # joint velocities [rad/s]  (nv,)
    "tau": ((None,), np.float64),  # applied joint torques [N·m]  (nu,)
    "eef_pos": ((3,), np.float64),  # end-effector position, world [m]
    "eef_rot": ((3, 3), np.float64),  # end-effector rotation, world
    "ref_pos": ((3,), np.float64),  # reference position, world [m]
    "ref_vel": ((3,), np.float64),  # reference velocity, world [m/s]
    "ref_rot": ((3, 3), np.float64),  # reference rotation, world
    "wrench": ((6,), np.float64),  # force [N], torque [N·m] at the EEF, world axes
    "contact_force": ((), np.float64),  # total normal contact force tool-dock [N]
    "insertion_depth": ((), np.float64),  # along the dock axis, 0 at the mouth, + inside [m]
    "lateral_error": ((), np.float64),  # peg-axis offset from the dock axis [m]
    "axis_angle": ((), np.float64),  # angle between peg and dock axes [rad]
    "segment": ((), np.int64),  # planner segment index
    "wrench_raw": ((6,), np.float64),  # the F/T reading before tool-load compensation, as wrench
}

DEFAULT_BLOCK = 4096  # rows per block when no capacity is given


class Sample(NamedTuple):
    """One control period of a run: what :meth:`Log.store_data` stores (fields as :data:`FIELDS`).

    Attributes:
        t: Simulation time [s].
        q: Joint positions [rad]; (nq,).
        v: Joint velocities [rad/s]; (nv,).
        tau: Applied joint torques [N·m]; (nu,).
        eef_pos: End-effector position, world [m]; (3,).
        eef_rot: End-effector rotation, world; (3, 3).
        ref_pos: Reference position, world [m]; (3,).
        ref_vel: Reference velocity, world [m/s]; (3,).
        ref_rot: Reference rotation, world; (3, 3).
        wrench: Force [N] and torque [N·m] at the EEF, world axes; (6,).
        contact_force: Total normal contact force between tool and dock [N].
        insertion_depth: Depth along the dock axis, 0 at the mouth, positive inside [m].
        lateral_error: Peg-axis offset from the dock axis [m].
        axis_angle: Angle between the peg and dock axes [rad].
        segment: Planner segment index.
        wrench_raw: ``wrench`` before the tool-load compensation (the sensor's reading plus its
            bias, mapped alike); (6,).
    """

    t: float
    q: npt.ArrayLike
    v: npt.ArrayLike
    tau: npt.ArrayLike
    eef_pos: npt.ArrayLike
    eef_rot: npt.ArrayLike
    ref_pos: npt.ArrayLike
    ref_vel: npt.ArrayLike
    ref_rot: npt.ArrayLike
    wrench: npt.ArrayLike
    contact_force: float
    insertion_depth: float
    lateral_error: float
    axis_angle: float
    segment: int
    wrench_raw: npt.ArrayLike


class Log:
    """Per-step record of a run, stored as copies in preallocated blocks.

    Args:
        capacity: Expected number of samples (e.g. ``duration / control_period + 1``); the
            first block is this large, so a run of known length never allocates again.
    """

    def __init__(self, capacity: int | None = None) -> None:
        self._block = max(int(capacity), 1) if capacity else DEFAULT_BLOCK
        self._blocks: list[dict[str, np.ndarray]] = []
        self._cur: dict[str, np.ndarray] = {}
        self._columns: tuple[np.ndarray, ...] = ()  # the current block's arrays, Sample order
        self._shapes: dict[str, tuple[int, ...]] = {}
        self._rows = 0  # rows of the current block
        self._i = 0  # next row in the current block
        self._n = 0  # total rows stored

    def __len__(self) -> int:
        return self._n

    def store_data(self, sample: Sample) -> None:
        """Append one sample; every array is copied, so later changes to inputs do not leak in.

        Args:
            sample: The control period's values (shapes and units: :class:`Sample`).

        Raises:
            ValueError: An array's shape differs from the fixed shape or from the first sample.
        """
        if self._i == self._rows:
            self._new_block(sample)
        i = self._i
        # One unpacking into the columns' rows (fields in Sample order): cheapest at 1 kHz.
        (t, q, v, tau, eef_pos, eef_rot, ref_pos, ref_vel, ref_rot, wrench, contact_force,
         insertion_depth, lateral_error, axis_angle, segment,
         wrench_raw) = self._columns  # fmt: skip
        (t[i], q[i], v[i], tau[i], eef_pos[i], eef_rot[i], ref_pos[i], ref_vel[i], ref_rot[i],
         wrench[i], contact_force[i], insertion_depth[i], lateral_error[i], axis_angle[i],
         segment[i], wrench_raw[i]) = sample  # fmt: skip
        self._i = i + 1
        self._n += 1

    def store_columns(self, columns: Mapping[str, np.ndarray]) -> None:
        """Append ``n`` samples given as stacked columns (one array per field, ``n`` rows each).

        The batch form of :meth:`store_data` (values copied alike): a loop that keeps its
        per-step values and stores them a chunk at a time costs one assignment per field per
        chunk instead of one per field per step.

        Args:
            columns: Every field of :data:`FIELDS` -> array of shape ``(n, *field_shape)``.

        Raises:
            ValueError: A field is missing, or the row counts or shapes differ.
        """
        missing = sorted(set(FIELDS) - set(columns))
        if missing:
            raise ValueError(f"telemetry columns lack fields {missing}")
        n = len(columns["t"])
        if any(len(columns[name]) != n for name in FIELDS):
            raise ValueError("telemetry columns have different row counts")
        done = 0
        while done < n:
            if self._i == self._rows:
                self._new_block(Sample(*(columns[name][done] for name in Sample._fields)))
            take = min(n - done, self._rows - self._i)
            i = self._i
            for name in FIELDS:
                self._cur[name][i : i + take] = columns[name][done : done + take]
            self._i += take
            self._n += take
            done += take

    def _new_block(self, sample: Sample) -> None:
        """Allocate the next block (the first call also fixes the joint-space sizes)."""
        if not self._shapes:
            sizes = {"q": np.shape(sample.q), "v": np.shape(sample.v), "tau": np.shape(sample.tau)}
            for name, (shape, _) in FIELDS.items():
                fixed = tuple(s for s in shape if s is not None)
                self._shapes[name] = sizes[name] if None in shape else fixed
            for name, shape in self._shapes.items():
                if len(shape) != len(FIELDS[name][0]):
                    raise ValueError(f"telemetry field {name!r} must be 1-D, got shape {shape}")
        if self._cur:
            self._blocks.append(self._cur)
        self._cur = {
            name: np.empty((self._block, *self._shapes[name]), dtype=FIELDS[name][1])
            for name in FIELDS
        }
        self._columns = tuple(self._cur[name] for name in Sample._fields)
        self._rows, self._i = self._block, 0

    def arrays(self) -> dict[str, np.ndarray]:
        """Stacked copies of all samples.

        Returns:
            Field name -> array of shape ``(n, *field_shape)`` (see :data:`FIELDS`); empty
            arrays (n = 0) before the first sample.
        """
        if not self._cur:
            return {name: np.empty((0,), dtype=dt) for name, (_, dt) in FIELDS.items()}
        parts = [*self._blocks, {k: a[: self._i] for k, a in self._cur.items()}]
        return {name: np.concatenate([p[name] for p in parts]) for name in FIELDS}

    def save_npz(self, path: str | Path) -> Path:
        """Write all fields to a compressed ``.npz`` file.

        Args:
            path: Output file; its folder is created.

        Returns:
            The written path.

        Raises:
            OutputError: The folder cannot be created or written.
        """
        p = Path(path) if Path(path).suffix == ".npz" else Path(f"{path}.npz")
        with atomic_path(p) as tmp:  # an earlier file is replaced only by a complete one
            np.savez_compressed(tmp, **self.arrays())  # type: ignore[arg-type]
        return p

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> Log:
        """Rebuild a log from :meth:`arrays` output or a loaded ``.npz`` file.

        Args:
            data: Field name -> array with one row per sample; must hold every field.

        Returns:
            A log holding copies of the rows.

        Raises:
            ValueError: A field is missing or the row counts differ.
        """
        missing = sorted(set(FIELDS) - set(data))
        if missing:
            raise ValueError(f"telemetry data lacks fields {missing}; expected {sorted(FIELDS)}")
        n = len(data["t"])
        log = cls(capacity=max(n, 1))
        for i in range(n):
            log.store_data(Sample(*(data[name][i] for name in FIELDS)))
        return log
