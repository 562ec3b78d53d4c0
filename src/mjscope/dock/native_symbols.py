"""Addresses the compiled dock loop calls (:mod:`mjscope.dock._kernel`), resolved once.

MuJoCo's ``mj_step``, ``mj_kinematics``, ``mju_cholFactor`` and its thread-local log-handler
hooks come from the libmujoco the bindings loaded (the same handle: ``ctypes.CDLL`` of an
already loaded library); NumPy's ``cblas_dgemv`` / ``cblas_dgemm`` are the ones in the
OpenBLAS NumPy loaded (found among the process's mapped libraries; absent elsewhere, and the
kernel then calls ``ndarray.dot``); LAPACK ``dsytrf`` / ``dsytrs`` are the
``scipy.linalg.cython_lapack`` capsules, the routines ``scipy.linalg.lapack.dsytrf`` /
``dsytrs`` run (the same library, hence the same bits).
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
from typing import Any

import mujoco

MUJOCO = {
    "step": "mj_step",
    "kinematics": "mj_kinematics",
    "tls": "_mjPRIVATE_setTlsLogHandler",
    "global": "_mjPRIVATE_getGlobalLogHandler",
    "chol": "mju_cholFactor",
}
LAPACK = ("dsytrf", "dsytrs")
#: NumPy's bundled OpenBLAS (ILP64, ``scipy_`` prefix, ``64_`` suffix): ``cblas_dgemv``
NUMPY_GEMV = "scipy_cblas_dgemv64_"
NUMPY_GEMM = "scipy_cblas_dgemm64_"


@functools.lru_cache(maxsize=1)
def mujoco_symbols() -> dict[str, int] | None:
    """``{name: address}`` of :data:`MUJOCO`, or ``None`` where the library lacks one."""
    here = os.path.dirname(mujoco.__file__)
    libs = sorted(glob.glob(os.path.join(here, "libmujoco.so*")))
    if not libs:
        return None
    try:
        lib = ctypes.CDLL(libs[-1])
        out = {k: ctypes.cast(getattr(lib, n), ctypes.c_void_p).value for k, n in MUJOCO.items()}
    except (OSError, AttributeError):
        return None
    if any(not v for v in out.values()):
        return None
    return {k: int(v) for k, v in out.items() if v is not None}


@functools.lru_cache(maxsize=1)
def lapack_capsules() -> dict[str, Any] | None:
    """``{name: capsule}`` of :data:`LAPACK` from ``scipy.linalg.cython_lapack``, or ``None``."""
    try:
        from scipy.linalg import cython_lapack
    except ImportError:  # pragma: no cover - scipy is a dependency
        return None
    capi = getattr(cython_lapack, "__pyx_capi__", {})
    if any(name not in capi for name in LAPACK):
        return None
    return {name: capi[name] for name in LAPACK}


@functools.lru_cache(maxsize=1)
def numpy_gemv(name: str = NUMPY_GEMV) -> int:
    """Address of NumPy's own ``cblas_dgemv`` (or ``name``: :data:`NUMPY_GEMM`), or 0."""
    import numpy as np

    here = os.path.dirname(os.path.dirname(np.__file__))  # site-packages: numpy.libs beside
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line}
    except OSError:
        return 0
    for path in sorted(paths):
        if not path.startswith(os.path.join(here, "numpy.libs")):
            continue
        try:
            fn = getattr(ctypes.CDLL(path), name)
        except (OSError, AttributeError):
            continue
        return int(ctypes.cast(fn, ctypes.c_void_p).value or 0)
    return 0
