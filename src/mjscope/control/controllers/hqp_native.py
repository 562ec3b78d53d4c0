"""The compiled glue of the ``hqp`` law (:mod:`._hqp`): bounds, adaptation, task target.

The C module (``_hqp.c``, its docstring says how it stays bit-identical to the Python law)
computes :meth:`.HqpLevels.write_bounds` (with :meth:`.JointBox.write`),
:meth:`.StiffnessAdaptation.update` and :meth:`.HqpController._task_target` from constants
packed here once (:func:`bounds_pack`, :func:`adapt_pack`, :func:`target_pack`). The law
uses it when it was built and ``MJSCOPE_HQP_LAW`` is not ``python`` (read when a controller is
made); the results are the same bit for bit either way (tests/test_control_hqp_native.py).
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

import numpy as np

try:
    from mjscope.control.controllers import _hqp as hqp_c
except ImportError:  # pragma: no cover - built without a C compiler
    hqp_c = None  # type: ignore[assignment]

#: Set to ``python`` to run the law's Python form.
ENV = "MJSCOPE_HQP_LAW"


def available() -> bool:
    """Whether the C module was built."""
    return hqp_c is not None


def enabled() -> bool:
    """Whether a controller made now uses the C module (built, and not forced off)."""
    return hqp_c is not None and os.environ.get(ENV, "") != "python"


def dposv_capsule() -> Any:
    """``scipy.linalg.cython_lapack``'s ``dposv`` (what ``scipy.linalg.lapack.dposv`` runs)."""
    from scipy.linalg import cython_lapack

    return cython_lapack.__pyx_capi__["dposv"]


def bounds_pack(box: Any, tau_hi: np.ndarray, tau_lo: np.ndarray, rate: float) -> np.ndarray:
    """The constants of ``_hqp.bounds`` for a :class:`.JointBox` and the torque limits."""
    nv = len(tau_hi)
    two = (2, nv)
    parts = [box._q_lim, box._far, box._v_max2, box._a_max2,
             np.broadcast_to(box._two_ab, two), box._v_hi_dt, box._v_lo_dt, tau_hi,
             tau_lo]  # fmt: skip
    return np.concatenate([np.ravel(p) for p in parts] + [np.array([box.dt, float(rate)])])


def adapt_pack(adaptation: Any) -> np.ndarray:
    """The constants of ``_hqp.adapt`` for a :class:`.StiffnessAdaptation` (now)."""
    a, g = adaptation, adaptation.gains
    six = (6,)
    parts = [a._dead, a._span, a.k_nom, a._k_drop, a._kd_nom,
             np.broadcast_to(np.asarray(g.kp_min, float), six),
             np.broadcast_to(np.asarray(g.kp_max, float), six),
             [a.alpha_soft, a._alpha_rest, a._k_tol]]  # fmt: skip
    return np.concatenate([np.ravel(np.asarray(p, float)) for p in parts])


def daqp_tuple(direct: Any) -> tuple[int, int, int, int, int]:
    """``_hqp``'s handle on a :class:`~mjscope.control.daqp_direct.DirectDaqp`.

    The address of ``daqp_quadprog`` (the function its ``solve`` calls), its three struct
    addresses and the offset of the result's exit flag.
    """
    fn = ctypes.cast(direct._call, ctypes.c_void_p).value
    res, prob, settings = direct._args
    return int(fn or 0), res, prob, settings, type(direct._res).exitflag.offset


def level_objs(levels: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    """The buffers ``_hqp.level1`` / ``level2`` write, of :class:`.HqpLevels`.

    ``None`` when its QPs do not call daqp's C entry point (or verify differently): the C
    levels are then not used.
    """
    qp1, qp2 = levels.qp1, levels.qp2
    if qp1._direct is None or qp2._direct is None or not qp1.check or qp2.check:
        return None
    one = (np.dot, qp1._H, levels._regM, qp1._f, qp1._A, levels.reg, qp1._direct.x, qp1._bl,
           qp1._bu, qp1.feas_tol, daqp_tuple(qp1._direct))  # fmt: skip
    two = (qp2._H, levels._reg_I, qp2._f, levels.M_rows, levels._A2_J, levels._bl2_task,
           levels._bu2_task, qp2._direct.x, qp1.x_lb, qp1.x_ub, qp2.feas_tol,
           daqp_tuple(qp2._direct))  # fmt: skip
    return one, two


def target_pack(ctrl: Any) -> np.ndarray:
    """The constants of ``_hqp.target`` for an :class:`.HqpController`."""
    return np.array([ctrl.dt, ctrl.gains.i_limit, *ctrl._ki, float(ctrl._use_ki),
                     ctrl.preload_force, ctrl.contact_threshold,
                     ctrl.adaptation.alpha_soft], float)  # fmt: skip
