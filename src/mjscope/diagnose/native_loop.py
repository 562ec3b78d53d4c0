"""The rollout's step loop in C (:mod:`mjscope.diagnose._steploop`), driven from here.

The compiled loop does per step what :func:`mjscope.diagnose.loop.step_loop` does in Python:
the noise row into ``ctrl``, the held motors' feedback (:class:`~mjscope.diagnose.hold.MotorHold`
when its motors drive distinct hinges/slides), ``mj_step`` (every
:data:`~mjscope.diagnose.loop.CPU_SAMPLE_EVERY`-th timed), the recorder's gather (one word copy
per source word) and the event test. It returns to Python on an event (the sampled row, the
watched contact count past its limit, a divergence warning: Python finishes that row exactly
as the Python loop does), at the block's end and after :data:`SLICE_S` (so Ctrl-C is answered). The
records, CSV bytes, warnings and findings are the Python loop's, bit for bit (tested).

It is used when the extension was built (``pip install`` compiles it; without a C compiler the
install still succeeds and the Python loop runs), the libmujoco the bindings loaded exports
the symbols it needs, and the recorder's plan has no per-step Python reader;
``MJSCOPE_STEP_LOOP=python`` forces the Python loop. MuJoCo's fatal errors inside ``mj_step``
come back as ``mujoco.FatalError`` with MuJoCo's message, as from the bindings.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
from collections.abc import Callable
from typing import Any

import mujoco
import numpy as np

from mjscope.diagnose.hold import MotorHold
from mjscope.diagnose.probes.base import address
from mjscope.diagnose.probes.contact_detail import CAPTURE_WIDTH, Capture
from mjscope.diagnose.probes.equality import EqualityNative

try:  # built by pip install (setup.py); optional
    from mjscope.diagnose import _steploop
except ImportError:  # pragma: no cover - an install without a C compiler
    _steploop = None  # type: ignore[assignment]

ENV = "MJSCOPE_STEP_LOOP"  # "python": never the compiled loop

# the plan's slots, in _steploop.c's order
PLAN_SLOTS = (
    "model", "data", "step", "tls", "global", "diffpos",
    "ctrl", "nu", "noise", "count", "limit",
    "warn", "wstride", "wqpos", "wqvel", "wqacc",
    "i", "stop", "tick", "due", "every_cpu", "times", "yield_ns", "sampled", "msg",
    "hold", "hold_k", "hold_nq", "hold_nv", "hold_q0", "hold_err", "hold_qvel", "hold_qpos",
    "hold_bias", "hold_passive", "hold_kp", "hold_kd", "hold_tau", "hold_dofs", "hold_scale",
    "hold_lo", "hold_hi", "hold_motors",
    "cap", "cap_n", "cap_max", "severy", "step0", "ncon", "time", "slots", "force", "c_stride",
    "c_dist", "c_geom", "c_dim", "c_exclude", "c_friction", "c_solref", "c_solimp",
    "eq", "eq_ne", "eq_posf", "eq_idf", "eq_n", "eq_weld", "eq_scale", "eq_pmax", "eq_rmax",
    "eq_plast", "eq_rlast", "eq_worst", "eq_steps", "eq_cells", "ngroups",
)  # fmt: skip
SLOT = {name: k for k, name in enumerate(PLAN_SLOTS)}
DONE, EVENT, FATAL = 0, 1, 2
SLICE_S = 0.02  # a call returns after about this long, so Ctrl-C is answered [s]


@functools.lru_cache(maxsize=1)
def _symbols() -> dict[str, int] | None:
    """Addresses of the MuJoCo functions the loop calls, from the bindings' libmujoco."""
    here = os.path.dirname(mujoco.__file__)
    libs = sorted(glob.glob(os.path.join(here, "libmujoco.so*")))
    if not libs:
        return None
    try:
        lib = ctypes.CDLL(libs[-1])  # already loaded by the bindings: the same handle
        names = {
            "step": "mj_step",
            "tls": "_mjPRIVATE_setTlsLogHandler",
            "global": "_mjPRIVATE_getGlobalLogHandler",
            "diffpos": "mj_differentiatePos",
            "force": "mj_contactForce",
        }
        out = {k: ctypes.cast(getattr(lib, n), ctypes.c_void_p).value for k, n in names.items()}
    except (OSError, AttributeError):
        return None
    if any(v is None for v in out.values()):
        return None
    return {k: int(v) for k, v in out.items() if v is not None}


def available() -> bool:
    """Whether the compiled loop can run here (built, symbols found, not switched off)."""
    if _steploop is None or os.environ.get(ENV, "").lower() == "python":
        return False
    layout = (_steploop.slot_count(), _steploop.capture_width())
    return layout == (len(PLAN_SLOTS), CAPTURE_WIDTH) and _symbols() is not None


class NativeLoop:
    """One rollout's plan for the compiled loop: every pointer and the loop's state.

    Args:
        model: The model.
        data: Its data.
        groups: The recorder's gather groups ``(flat, idx, block)``.
        count: The watched count (a buffer over one int32) and its limit, or ``None``.
        every: Timed-step stride [rows].
        hold: The held motors, or ``None``; only the simple case
            (:attr:`MotorHold.dofs` not ``None``).
        slice_s: A call returns at the first timed step after this long [s].
        capture: Where the sampled rows' contacts go (``None``: every sampled row is an
            event, sampled in Python).
        equality: The equality probe's per-step read, done in C (``None``: none).
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        groups: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
        count: tuple[Any, int] | None,
        every: int,
        hold: MotorHold | None,
        slice_s: float = SLICE_S,
        capture: Capture | None = None,
        equality: EqualityNative | None = None,
    ) -> None:
        sym = _symbols()
        assert sym is not None and _steploop is not None
        self.plan = np.zeros(len(PLAN_SLOTS) + 5 * len(groups), np.int64)
        self.times = np.zeros(2)  # (wall, CPU) of the timed steps [s]
        self.msg = np.zeros(1024, np.uint8)
        self._keep: list[Any] = [groups, self.times, self.msg]  # alive while the plan is
        p, s = self.plan, SLOT
        p[s["model"]], p[s["data"]] = model._address, data._address
        for k in ("step", "tls", "global", "diffpos", "force"):
            p[s[k]] = sym[k]
        p[s["ctrl"]], p[s["nu"]] = address(data.ctrl), model.nu
        if count is not None:
            buf = np.frombuffer(count[0], np.int32)
            self._keep.append(buf)
            p[s["count"]], p[s["limit"]] = address(buf), count[1]
        number = np.asarray(data.warning.number)
        p[s["warn"]], p[s["wstride"]] = address(number), number.strides[0]
        w = mujoco.mjtWarning
        p[s["wqpos"]], p[s["wqvel"]] = int(w.mjWARN_BADQPOS), int(w.mjWARN_BADQVEL)
        p[s["wqacc"]] = int(w.mjWARN_BADQACC)
        p[s["every_cpu"]], p[s["yield_ns"]] = every, round(slice_s * 1e9)
        p[s["times"]], p[s["msg"]] = address(self.times), address(self.msg)
        if hold is not None:
            self._hold(hold, data)
        if capture is not None:
            self._capture(capture)
        if equality is not None:
            self._equality(equality)
        p[s["ngroups"]] = len(groups)
        for g, (flat, idx, block) in enumerate(groups):
            if idx.dtype != np.intp or not block.flags.c_contiguous:  # pragma: no cover
                raise TypeError("gather groups must be intp indices into C-contiguous blocks")
            at = len(PLAN_SLOTS) + 5 * g
            p[at : at + 5] = (address(flat), address(idx), idx.size, address(block), block.shape[1])
        self.run: Callable[[int], int] = _steploop.run
        self.address = address(self.plan)

    def _hold(self, hold: MotorHold, data: mujoco.MjData) -> None:
        """The held motors' arrays, in the order MotorHold.__call__ uses them."""
        p, s = self.plan, SLOT
        arrays = {
            "hold_q0": hold.q0, "hold_err": hold.err, "hold_kp": hold.kp, "hold_kd": hold.kd,
            "hold_tau": np.zeros(hold.model.nv), "hold_dofs": hold.dofs,
            "hold_scale": hold.scale, "hold_lo": hold.lo, "hold_hi": hold.hi,
            "hold_motors": hold.motors,
        }  # fmt: skip
        for k, a in arrays.items():
            a = np.ascontiguousarray(a, np.int64 if k in ("hold_dofs", "hold_motors") else float)
            self._keep.append(a)
            p[s[k]] = address(a)
        p[s["hold_qvel"]], p[s["hold_qpos"]] = address(data.qvel), address(data.qpos)
        p[s["hold_bias"]], p[s["hold_passive"]] = (
            address(data.qfrc_bias),
            address(data.qfrc_passive),
        )
        p[s["hold"]], p[s["hold_k"]] = 1, hold.motors.size
        p[s["hold_nq"]], p[s["hold_nv"]] = hold.model.nq, hold.model.nv

    def _capture(self, c: Capture) -> None:
        """The sampled contacts' buffer and the ``mjContact`` fields C reads."""
        p, s = self.plan, SLOT
        if c.buffer.shape[1] != CAPTURE_WIDTH or not c.buffer.flags.c_contiguous:
            raise TypeError(f"capture buffer must be C-contiguous (n, {CAPTURE_WIDTH}) float64")
        self._keep.append(c)
        p[s["cap"]], p[s["cap_n"]], p[s["cap_max"]] = (
            address(c.buffer), address(c.filled), c.buffer.shape[0],
        )  # fmt: skip
        p[s["severy"]], p[s["ncon"]], p[s["slots"]] = c.every, address(c.ncon), c.slots
        p[s["time"]] = address(c.time)
        p[s["c_stride"]] = c.stride
        for k in ("dist", "geom", "dim", "exclude", "friction", "solref", "solimp"):
            p[s[f"c_{k}"]] = c.fields[k]

    def _equality(self, eq: EqualityNative) -> None:
        """The equality probe's arrays (written in place by C)."""
        p, s = self.plan, SLOT
        a = eq.arrays
        kinds = {"weld": np.int64, "worst_step": np.int64, "steps": np.int64}
        for k, arr in a.items():
            want = np.dtype(kinds.get(k, np.float64))
            if arr.dtype != want or not (arr.flags.c_contiguous or k == "cells"):
                raise TypeError(f"equality array {k!r} must be contiguous {want}")
        if a["cells"].strides[0] != 8:
            raise TypeError("the equality column must be contiguous")
        self._keep.append(eq)
        p[s["eq"]], p[s["eq_ne"]], p[s["eq_n"]] = 1, address(eq.ne), a["weld"].size
        p[s["eq_posf"]], p[s["eq_idf"]] = eq.pos_field, eq.id_field
        names = {"weld": "eq_weld", "scale": "eq_scale", "pos_max": "eq_pmax",
                 "rot_max": "eq_rmax", "pos_last": "eq_plast", "rot_last": "eq_rlast",
                 "worst_step": "eq_worst", "steps": "eq_steps", "cells": "eq_cells"}  # fmt: skip
        for k, slot in names.items():
            p[s[slot]] = address(a[k])

    def set_noise(self, noise: np.ndarray | None) -> None:
        """The block's control rows ``(rows, nu)`` (``None``: ``ctrl`` stays as it is)."""
        if noise is None:
            self.plan[SLOT["noise"]] = 0
            return
        noise = np.ascontiguousarray(noise, float)
        self._noise = noise
        self.plan[SLOT["noise"]] = address(noise)

    def steps(
        self, i: int, stop: int, tick: int, due: int, step0: int
    ) -> tuple[int, int, int, int]:
        """Run rows ``i`` .. ``stop - 1`` until an event, the stop or the time slice.

        ``step0``: the rollout step of row 0 (the captured contacts' step numbers).

        Returns:
            (code, row, next timed row, next sampled row): on :data:`EVENT` ``row`` is the
            event's row (its step and gather done), else the next row to run.

        Raises:
            mujoco.FatalError: MuJoCo's error inside ``mj_step`` (``row`` is lost with it).
        """
        p, s = self.plan, SLOT
        p[s["i"]], p[s["stop"]], p[s["tick"]], p[s["due"]], p[s["step0"]] = (
            i, stop, tick, due, step0,
        )  # fmt: skip
        code = self.run(self.address)
        if code == FATAL:
            text = bytes(self.msg).split(b"\0", 1)[0].decode("utf-8", "replace")
            raise mujoco.FatalError(text)
        return code, int(p[s["i"]]), int(p[s["tick"]]), int(p[s["due"]])

    @property
    def timing(self) -> tuple[float, float, int]:
        """(wall, CPU) of the timed steps [s] and how many were timed."""
        return float(self.times[0]), float(self.times[1]), int(self.plan[SLOT["sampled"]])
