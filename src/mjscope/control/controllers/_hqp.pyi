"""Stub of the hqp law's compiled glue (``_hqp.c``; :mod:`.hqp_native` wraps it)."""

from typing import Any

import numpy as np

def bounds(
    pack: np.ndarray,
    q: np.ndarray,
    v: np.ndarray,
    h: np.ndarray,
    JtF: np.ndarray,
    tau_prev: np.ndarray | None,
    bl: np.ndarray,
    bu: np.ndarray,
    shift: np.ndarray,
) -> None: ...
def adapt(
    pack: np.ndarray, F: np.ndarray, kp: np.ndarray, kd: np.ndarray, nominal: bool
) -> bool: ...
def target(
    pack: np.ndarray,
    kd: np.ndarray,
    kp: np.ndarray,
    activation: float,
    objs: tuple[Any, ...],
    reference: Any,
    oMf: Any,
    J: np.ndarray,
    dJ: np.ndarray,
    M: np.ndarray,
    F: np.ndarray,
    JtF: np.ndarray,
    v: np.ndarray,
) -> float: ...
def level1(
    objs: tuple[Any, ...], J: np.ndarray, M: np.ndarray, b: np.ndarray, Mt: np.ndarray
) -> np.ndarray | None: ...
def level2(
    objs: tuple[Any, ...],
    J: np.ndarray,
    M: np.ndarray,
    Mt: np.ndarray,
    qdd1: np.ndarray,
    tau0: np.ndarray,
) -> np.ndarray | None: ...
def observe(
    objs: tuple[Any, ...],
    q: np.ndarray,
    v: np.ndarray,
    tau_applied: np.ndarray,
    tau_known: np.ndarray | None,
) -> np.ndarray: ...
def wrench(objs: tuple[Any, ...], J: np.ndarray, t: np.ndarray) -> np.ndarray | None: ...
def torque(
    Mt: np.ndarray,
    qdd: np.ndarray,
    h: np.ndarray,
    JtF: np.ndarray,
    tau_lo: np.ndarray,
    tau_hi: np.ndarray,
) -> np.ndarray: ...
def null_torque(
    kp: np.ndarray,
    q_null: np.ndarray,
    q: np.ndarray,
    kd: np.ndarray,
    v: np.ndarray,
    out: np.ndarray,
) -> np.ndarray: ...
