"""Even trigonometric coefficient functions of ``s = θ²`` with small-angle Taylor branches.

``f_n(s) = Σ_k (-1)^k s^k / (2k + n)!`` for n = 1…4, i.e. ``sin θ/θ``, ``(1 - cos θ)/θ²``,
``(θ - sin θ)/θ³`` and ``(θ² + 2 cos θ - 2)/(2θ⁴)``, plus ``e(s) = (1 - (θ/2) cot(θ/2))/θ²``.
Below ``S_SWITCH`` the power series is used (exact to rounding, no division by θ); above it the
closed forms, whose cancellation is then bounded. Derivatives are with respect to ``s`` [rad⁻²],
so ``d/dt f(s) = f'(s) · 2 ω·ω̇`` never divides by θ.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

#: Switch from the power series to the closed forms at θ² = 1 [rad²].
S_SWITCH = 1.0
_TERMS = 16
#: |B_2k| / (2k)! for k = 1…10 (Bernoulli numbers), the series of e(s).
_BERNOULLI = [
    Fraction(1, 6), Fraction(1, 30), Fraction(1, 42), Fraction(1, 30), Fraction(5, 66),
    Fraction(691, 2730), Fraction(7, 6), Fraction(3617, 510), Fraction(43867, 798),
    Fraction(174611, 330),
]  # fmt: skip
_E_COEFFS = [float(b / math.factorial(2 * k + 2)) for k, b in enumerate(_BERNOULLI)]


class TrigCoeffs(NamedTuple):
    """Coefficients at ``s = θ²``; each field has the batch shape of ``s`` (...).

    ``fN`` is f_N(s) (dimensionless · rad^(1-N) as the formula implies), ``dfN`` its first and
    ``ddf3`` the second derivative of f_3 with respect to s.
    """

    f1: np.ndarray
    f2: np.ndarray
    f3: np.ndarray
    f4: np.ndarray
    df2: np.ndarray
    df3: np.ndarray
    df4: np.ndarray
    ddf3: np.ndarray


def _series(n: int, s: np.ndarray, order: int) -> np.ndarray:
    """``order``-th s-derivative of the series of f_n (Horner form)."""
    out = np.zeros_like(s)
    for k in range(_TERMS - 1, order - 1, -1):
        c = (-1) ** k * math.perm(k, order) / math.factorial(2 * k + n)
        out = out * s + c
    return out


def _closed(s: np.ndarray) -> TrigCoeffs:
    """Closed forms through the recurrences ``s f_{n+2} = 1/n! - f_n``; valid for s ≥ 1."""
    th = np.sqrt(s)
    f1 = np.sin(th) / th
    f2 = (1.0 - np.cos(th)) / s
    f3 = (1.0 - f1) / s
    f4 = (0.5 - f2) / s
    df1 = (np.cos(th) - f1) / (2.0 * s)
    df2 = (0.5 * f1 - f2) / s
    df3 = -(df1 + f3) / s
    df4 = -(df2 + f4) / s
    ddf1 = -(0.5 * f1 + 3.0 * df1) / (2.0 * s)
    ddf3 = -(ddf1 + 2.0 * df3) / s
    return TrigCoeffs(f1, f2, f3, f4, df2, df3, df4, ddf3)


def trig_coeffs(s: np.ndarray) -> TrigCoeffs:
    """All coefficients at ``s = θ²`` [rad²]; shape of ``s`` (...)."""
    s = np.asarray(s, float)
    small = s < S_SWITCH
    ser = np.where(small, s, 0.0)
    series = TrigCoeffs(
        _series(1, ser, 0),
        _series(2, ser, 0),
        _series(3, ser, 0),
        _series(4, ser, 0),
        _series(2, ser, 1),
        _series(3, ser, 1),
        _series(4, ser, 1),
        _series(3, ser, 2),
    )
    closed = _closed(np.where(small, S_SWITCH, s))
    return TrigCoeffs(*(np.where(small, a, b) for a, b in zip(series, closed, strict=True)))


def inv_coeff(s: np.ndarray) -> np.ndarray:
    """``e(s) = 1/θ² - (1 + cos θ)/(2θ sin θ)``, the W² weight of the inverse Jacobians; (...).

    Diverges at θ = π (2π, …), where the inverse Jacobians do not exist.
    """
    s = np.asarray(s, float)
    small = s < S_SWITCH
    ser = np.where(small, s, 0.0)
    series = np.zeros_like(ser)
    for c in reversed(_E_COEFFS):
        series = series * ser + c
    sc = np.where(small, S_SWITCH, s)
    th = np.sqrt(sc)
    with np.errstate(divide="ignore", invalid="ignore"):
        closed = (1.0 - 0.5 * th * np.sin(th) / (1.0 - np.cos(th))) / sc
    return np.where(small, series, closed)
