"""daqp's own C entry point ``daqp_quadprog``, called through ctypes on persistent structs.

``daqp.solve`` (the Cython wrapper) costs ≈ 3.9 µs per call at n = m = 7 outside a loop (more inside
the docking loop, where its caches are cold), of which the solver's own setup and solve
are ≈ 1.2 µs: the rest is argument conversion, two new result arrays and the ``info`` dict.
:class:`DirectDaqp` calls the same C function the wrapper calls
(``daqp_quadprog(result, problem, settings)``, exported by the installed extension module) on a
problem, settings and result struct built once per QP, pointing at fixed NumPy buffers, so each
solve is one foreign call (≈ 1.5 µs at n = m = 7). The settings are daqp's defaults
(``daqp_default_settings``, the same values ``daqp.solve``'s keywords default to) with
``iter_limit`` and ``rho_soft`` set, so the answers are those of ``daqp.solve`` bit for bit
(tests/test_control_daqp_direct.py compares them on random problems and an hqp run's torques).

The struct layouts are daqp's private ones (include/types.h, api.h), checked here against the
installed binary: only daqp 0.11.x is accepted, and its ``daqp_default_settings`` must write
the documented defaults at the offsets used. When anything does not match, :data:`AVAILABLE`
is false and callers use ``daqp.solve``.
"""

from __future__ import annotations

import ctypes
import importlib.metadata

import daqp
import numpy as np

_P = ctypes.c_void_p
_SETTINGS_BYTES = 136  # DAQPSettings of daqp 0.11 (its default-settings writes end there)
_ITER_LIMIT_OFF, _RHO_SOFT_OFF = 44, 72  # int, double offsets in DAQPSettings
#: DAQPSettings defaults of daqp 0.11 at their offsets: (offset, ctype, value).
_DEFAULTS = ((0, ctypes.c_double, 1e-6), (8, ctypes.c_double, 1e-12),
             (16, ctypes.c_double, 1e-11), (24, ctypes.c_double, 1e-8),
             (32, ctypes.c_double, 1e-14), (40, ctypes.c_int, 10), (44, ctypes.c_int, 10000),
             (48, ctypes.c_double, 1e30), (72, ctypes.c_double, 1e-6))  # fmt: skip


class _Problem(ctypes.Structure):
    """``DAQPProblem`` (types.h)."""

    _fields_ = [("n", ctypes.c_int), ("m", ctypes.c_int), ("ms", ctypes.c_int),
                ("H", _P), ("f", _P), ("A", _P), ("bupper", _P), ("blower", _P),
                ("sense", _P), ("break_points", _P), ("nh", ctypes.c_int),
                ("problem_type", ctypes.c_int)]  # fmt: skip


class _Result(ctypes.Structure):
    """``DAQPResult`` (api.h)."""

    _fields_ = [("x", _P), ("lam", _P), ("fval", ctypes.c_double),
                ("soft_slack", ctypes.c_double), ("exitflag", ctypes.c_int),
                ("iter", ctypes.c_int), ("nodes", ctypes.c_int),
                ("solve_time", ctypes.c_double), ("setup_time", ctypes.c_double)]  # fmt: skip


def _load() -> ctypes.CDLL | None:
    """The extension module as a C library, if its version and layout are the known ones."""
    try:
        if not importlib.metadata.version("daqp").startswith("0.11."):
            return None
        lib = ctypes.CDLL(daqp.__file__)
        quadprog, defaults = lib.daqp_quadprog, lib.daqp_default_settings
    except (OSError, AttributeError, importlib.metadata.PackageNotFoundError):
        return None
    quadprog.argtypes = [_P, _P, _P]
    quadprog.restype = ctypes.c_int
    defaults.argtypes = [_P]
    buf = ctypes.create_string_buffer(2 * _SETTINGS_BYTES)
    defaults(buf)
    for off, ctype, value in _DEFAULTS:
        if ctype.from_buffer(buf, off).value != value:
            return None
    return lib


_LIB = _load()
#: Whether :class:`DirectDaqp` can be used with the installed daqp.
AVAILABLE = _LIB is not None


class DirectDaqp:
    """One QP's ``daqp_quadprog`` call on fixed buffers (the module docstring).

    The buffers are the caller's and must stay alive and in place (the struct points at them):
    ``H`` (n, n), ``f`` (n,), ``A`` (m, n), C-contiguous float64; the stacked bounds
    ``bupper``, ``blower`` (n + m,) — the first ``n`` a box — and ``sense`` (n + m,) int32.

    Args:
        H: Hessian buffer.
        f: Linear cost buffer.
        A: General rows buffer.
        bupper: Upper bounds buffer.
        blower: Lower bounds buffer.
        sense: daqp constraint types.
        iter_limit: daqp's iteration cap.
        rho_soft: daqp's soft-constraint regularisation.

    Raises:
        RuntimeError: :data:`AVAILABLE` is false, or a buffer has the wrong layout.
    """

    def __init__(self, H: np.ndarray, f: np.ndarray, A: np.ndarray, bupper: np.ndarray,
                 blower: np.ndarray, sense: np.ndarray, iter_limit: int,
                 rho_soft: float) -> None:  # fmt: skip
        if _LIB is None:
            raise RuntimeError("daqp's C entry point is not usable with this daqp install")
        n, m = f.shape[0], A.shape[0]
        for buf, shape, dtype in ((H, (n, n), np.float64), (f, (n,), np.float64),
                                  (A, (m, n), np.float64), (bupper, (n + m,), np.float64),
                                  (blower, (n + m,), np.float64),
                                  (sense, (n + m,), np.int32)):  # fmt: skip
            if buf.shape != shape or buf.dtype != dtype or not buf.flags.c_contiguous:
                raise RuntimeError(f"DirectDaqp buffer needs {shape} {dtype.__name__}, contiguous")
        self._keep = (H, f, A, bupper, blower, sense)  # the buffers the struct points at
        self.x, self._lam = np.zeros(n), np.zeros(n + m)
        self._prob = _Problem(n, n + m, n, H.ctypes.data, f.ctypes.data,
                              A.ctypes.data if m else None, bupper.ctypes.data,
                              blower.ctypes.data, sense.ctypes.data, None, 0, 0)  # fmt: skip
        self._res = _Result(self.x.ctypes.data, self._lam.ctypes.data)
        self._settings = ctypes.create_string_buffer(2 * _SETTINGS_BYTES)  # (room to spare)
        _LIB.daqp_default_settings(self._settings)
        ctypes.c_int.from_buffer(self._settings, _ITER_LIMIT_OFF).value = int(iter_limit)
        ctypes.c_double.from_buffer(self._settings, _RHO_SOFT_OFF).value = float(rho_soft)
        self._call = _LIB.daqp_quadprog
        self._args = (ctypes.addressof(self._res), ctypes.addressof(self._prob),
                      ctypes.addressof(self._settings))  # fmt: skip

    def solve(self) -> tuple[np.ndarray, int, int]:
        """(x, exit flag, iterations); ``x`` is a new array (the buffer is reused)."""
        res = self._res
        self._call(*self._args)
        return self.x.copy(), res.exitflag, res.iter
