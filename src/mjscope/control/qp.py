"""Small dense QPs for 1 kHz control: ``daqp`` first, ``quadprog`` as the fallback solver.

    minimise    ½ xᵀ H x + fᵀ x
    subject to  x_lb ≤ x ≤ x_ub          (box, optional)
                lb ≤ A x ≤ ub            (general rows; a row with lb = ub is an equality)

``H`` must be symmetric positive definite (both solvers need it). ``±inf`` bounds are allowed.

Order of attempts and what :class:`QpResult` reports:

1. ``daqp`` (dual active set) with an iteration cap. Its exit flag is kept in ``status``
   (``optimal``, ``infeasible``, ``iter_limit``, ``cycling``, ``unbounded``, ``nonconvex``,
   ``error``). An "optimal" answer whose constraint violation exceeds ``feas_tol`` is demoted
   to ``infeasible`` (daqp #82 reports an infeasible point with exit flag 1).
2. On any other outcome, ``quadprog`` (Goldfarb–Idnani) on the same problem; ``solver`` says
   which one produced ``x``.
3. When both fail, ``x`` is the caller's ``fallback`` point projected on the box (zeros when none
   is given), ``solver == "none"`` and ``solved`` is false.

``x`` is always finite: a non-finite answer of either solver counts as a failure.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import daqp
import numpy as np
import numpy.typing as npt
import quadprog

from mjscope.control import daqp_direct

#: daqp exit flags → status names (daqp/include/constants.h).
DAQP_STATUS = {2: "optimal", 1: "optimal", -1: "infeasible", -2: "cycling", -3: "unbounded",
               -4: "iter_limit", -5: "nonconvex", -6: "infeasible"}  # fmt: skip
_EQ = 5  # daqp sense: equality constraint
_SOFT = 8  # daqp sense: soft constraint


class QpResult(NamedTuple):
    """Outcome of :func:`solve_qp`.

    Attributes:
        x: Solution, always finite; (n,).
        status: daqp's outcome (see the module docstring).
        solver: ``daqp``, ``quadprog`` or ``none`` (neither solved: ``x`` is the fallback).
        iterations: daqp iterations.
    """

    x: np.ndarray
    status: str
    solver: str
    iterations: int

    @property
    def solved(self) -> bool:
        """Whether ``x`` solves the problem (by either solver)."""
        return self.solver != "none"

    @property
    def fallback_used(self) -> bool:
        """Whether ``x`` is not daqp's answer."""
        return self.solver != "daqp"


_new = tuple.__new__


class DenseQp:
    """A QP of fixed size with preallocated bounds, for a control loop.

    Write ``H``, ``f`` and ``A`` (fill them, or assign: an assignment copies into the QP's own
    buffer) and the bounds ``lb``, ``ub``, ``x_lb``, ``x_ub`` **in place** (``qp.lb[:] = ...``:
    they are views of the stacked bound arrays daqp reads), then call :meth:`solve`.

    daqp is called through its C entry point on these buffers
    (:class:`~mjscope.control.daqp_direct.DirectDaqp`: 1.5 µs per call instead of 3.9 µs for
    ``daqp.solve`` at n = m = 7, ≈ 4 µs less per solve in the docking loop; the same
    answers) where the installed daqp allows it, else via ``daqp.solve``.

    Args:
        n: Number of variables.
        m: Number of general constraint rows.
        iter_limit: daqp iteration cap.
        feas_tol: Largest accepted constraint violation of an answer.
        use_quadprog: Try ``quadprog`` when daqp fails.
        eq_rows: Which general rows are equalities, fixed for the object's life; (m,) bool.
            ``None``: detected at each solve (rows with ``lb == ub``).
        soft_box: Make the box soft (daqp may violate it when the general rows leave no
            other choice, at a cost that grows as ``rho_soft`` shrinks); the accepted answer is
            then checked against the general rows only, and quadprog drops the box.
        rho_soft: daqp's soft-constraint regularisation (smaller: violations cost more; with
            an ill-conditioned ``H`` the default 1e-6 lets daqp trade violations for cost).
        check: Verify daqp's "optimal" answers against the bounds (~3 µs at n = 7, m = 13;
            guards against daqp #82 and non-finite answers; off, the "never NaN" promise rests
            on daqp). Answers of quadprog are always verified.
        bounds: Storage for the stacked bounds ``([x_lb; lb], [x_ub; ub])`` to use instead of
            new arrays (e.g. the head of another QP's, to share rows without copying); two
            contiguous float arrays of (n + m,), filled with ±inf here.
        direct: Call daqp's C entry point (``None``: when
            :data:`~mjscope.control.daqp_direct.AVAILABLE`); ``False``: ``daqp.solve``.
    """

    def __init__(
        self, n: int, m: int, iter_limit: int = 200, feas_tol: float = 1e-6,
        use_quadprog: bool = True, eq_rows: npt.ArrayLike | None = None, soft_box: bool = False,
        rho_soft: float = 1e-6, check: bool = True,
        bounds: tuple[np.ndarray, np.ndarray] | None = None, direct: bool | None = None,
    ) -> None:  # fmt: skip
        self.n, self.m, self.soft_box, self.rho_soft = n, m, soft_box, rho_soft
        self.check = check
        self.iter_limit, self.feas_tol, self.use_quadprog = iter_limit, feas_tol, use_quadprog
        self._H, self._f, self._A = np.eye(n), np.zeros(n), np.zeros((m, n))  # daqp reads these
        if bounds is None:
            self._bl, self._bu = np.full(n + m, -math.inf), np.full(n + m, math.inf)
        else:  # [box; rows]
            self._bl, self._bu = bounds
            if not all(b.shape == (n + m,) and b.flags.c_contiguous for b in bounds):
                raise ValueError(f"DenseQp bounds must be two contiguous ({n + m},) arrays")
            self._bl[:], self._bu[:] = -math.inf, math.inf
        self.x_lb, self.lb = self._bl[:n], self._bl[n:]
        self.x_ub, self.ub = self._bu[:n], self._bu[n:]
        self._sense = np.zeros(n + m, dtype=np.int32)
        self._auto_eq = eq_rows is None
        if eq_rows is not None:
            self._sense[n:][np.asarray(eq_rows, bool)] = _EQ
        if soft_box:
            self._sense[:n] = _SOFT
        self._z = np.zeros(n + m)
        use_c = daqp_direct.AVAILABLE if direct is None else direct
        self._direct = (
            daqp_direct.DirectDaqp(self._H, self._f, self._A, self._bu, self._bl, self._sense,
                                   iter_limit, rho_soft)
            if use_c
            else None
        )  # fmt: skip

    @property
    def H(self) -> np.ndarray:
        """Hessian (n, n), the QP's own buffer (fill it, or assign to copy into it)."""
        return self._H

    @H.setter
    def H(self, value: npt.ArrayLike) -> None:
        np.copyto(self._H, value)

    @property
    def f(self) -> np.ndarray:
        """Linear cost (n,), the QP's own buffer."""
        return self._f

    @f.setter
    def f(self, value: npt.ArrayLike) -> None:
        np.copyto(self._f, value)

    @property
    def A(self) -> np.ndarray:
        """General rows (m, n), the QP's own buffer."""
        return self._A

    @A.setter
    def A(self, value: npt.ArrayLike) -> None:
        np.copyto(self._A, value)

    def solve(self, fallback: npt.ArrayLike | None = None) -> QpResult:
        """Solve with daqp, then quadprog; ``fallback`` (box-projected) when both fail."""
        sense = self._sense
        if self._auto_eq:
            np.equal(self._bl, self._bu, out=sense, casting="unsafe")
            sense *= _EQ
            if self.soft_box:
                sense[: self.n] = _SOFT
        if self._direct is not None:
            x, flag, iters = self._direct.solve()
        else:
            x, _, flag, info = daqp.solve(self._H, self._f, self._A, self._bu, self._bl, sense,
                                          iter_limit=self.iter_limit,
                                          rho_soft=self.rho_soft)  # fmt: skip
            iters = info["iterations"]
        status = DAQP_STATUS.get(flag, "error")
        if status == "optimal" and (not self.check or self._feasible(x)):  # (tuple.__new__:
            return _new(QpResult, (x, status, "daqp", iters))  # no Python __new__)
        return self._fallback(status, int(iters), fallback)

    def _fallback(self, status: str, iters: int, fallback: npt.ArrayLike | None) -> QpResult:
        """quadprog, then the fallback point (daqp failed with ``status``)."""
        n = self.n
        if status == "optimal":
            status = "infeasible"  # an "optimal" answer that violates the constraints
        if self.use_quadprog:
            inf = np.full(n, math.inf)
            box = (-inf, inf) if self.soft_box else (self.x_lb, self.x_ub)
            xq = _quadprog(self.H, self.f, self.A, self.lb, self.ub, *box)
            if xq is not None and self._feasible(xq):
                return QpResult(xq, status, "quadprog", iters)
        x = np.zeros(n) if fallback is None else np.array(fallback, float)
        x = np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)
        x = np.nan_to_num(np.minimum(np.maximum(x, self.x_lb), self.x_ub))
        return QpResult(x, status, "none", iters)

    def _feasible(self, x: np.ndarray) -> bool:
        """Whether ``x`` is finite and violates no bound by more than ``feas_tol``."""
        z, n = self._z, self.n  # [x; A x] against the stacked bounds
        z[:n] = self._bl[:n] if self.soft_box else x
        if self.m:
            z[n:] = self.A.dot(x)
        return within(z, self._bl, self._bu, self.feas_tol)


def within(z: np.ndarray, lo: np.ndarray, hi: np.ndarray, tol: float) -> bool:
    """Whether ``lo − tol ≤ z ≤ hi + tol`` everywhere; a NaN in ``z`` fails; (k,) each.

    On Python floats (≈ 2 µs less than the six ufuncs of the array form at k = 14).
    """
    for zi, a, b in zip(z.tolist(), lo.tolist(), hi.tolist(), strict=True):
        if not (a - zi <= tol and zi - b <= tol):  # a NaN fails both comparisons
            return False
    return True


def solve_qp(
    H: npt.ArrayLike,
    f: npt.ArrayLike,
    A: npt.ArrayLike | None = None,
    lb: npt.ArrayLike | None = None,
    ub: npt.ArrayLike | None = None,
    x_lb: npt.ArrayLike | None = None,
    x_ub: npt.ArrayLike | None = None,
    *,
    iter_limit: int = 200,
    feas_tol: float = 1e-6,
    fallback: npt.ArrayLike | None = None,
    use_quadprog: bool = True,
) -> QpResult:
    """Solve a small dense convex QP once (see the module docstring and :class:`DenseQp`).

    Args:
        H: Hessian, symmetric positive definite; (n, n).
        f: Linear cost; (n,).
        A: General constraint rows; (m, n) or ``None``.
        lb: Their lower bounds (``-inf`` allowed); (m,). Default ``-inf``.
        ub: Their upper bounds (``inf`` allowed); (m,). Default ``inf``. ``lb = ub`` makes an
            equality.
        x_lb: Box lower bound; (n,) or ``None``.
        x_ub: Box upper bound; (n,) or ``None``.
        iter_limit: daqp iteration cap.
        feas_tol: Largest accepted constraint violation of an answer.
        fallback: Point returned (projected on the box) when no solver succeeds; (n,).
        use_quadprog: Try ``quadprog`` when daqp fails.

    Returns:
        The result; ``x`` is finite in every case.
    """
    f = np.ascontiguousarray(f, float)
    n = f.shape[0]
    A_, lo, hi, lo_box, hi_box = _standard_form(n, A, lb, ub, x_lb, x_ub)
    qp = DenseQp(n, A_.shape[0], iter_limit, feas_tol, use_quadprog)
    qp.H, qp.f, qp.A = H, f, A_
    qp.lb[:], qp.ub[:], qp.x_lb[:], qp.x_ub[:] = lo, hi, lo_box, hi_box
    return qp.solve(fallback)


def _standard_form(
    n: int,
    A: npt.ArrayLike | None,
    lb: npt.ArrayLike | None,
    ub: npt.ArrayLike | None,
    x_lb: npt.ArrayLike | None,
    x_ub: npt.ArrayLike | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(A (m, n), lb (m,), ub (m,), box lb (n,), box ub (n,)) with defaults filled in."""
    A_ = np.zeros((0, n)) if A is None else np.ascontiguousarray(A, float).reshape(-1, n)
    m = A_.shape[0]
    lo = np.full(m, -math.inf) if lb is None else np.asarray(lb, float)
    hi = np.full(m, math.inf) if ub is None else np.asarray(ub, float)
    lo_box = np.full(n, -math.inf) if x_lb is None else np.asarray(x_lb, float)
    hi_box = np.full(n, math.inf) if x_ub is None else np.asarray(x_ub, float)
    return A_, lo, hi, lo_box, hi_box


def _quadprog(
    H: np.ndarray,
    f: np.ndarray,
    A: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    lo_box: np.ndarray,
    hi_box: np.ndarray,
) -> np.ndarray | None:
    """Solve with quadprog (equalities first, infinite bounds dropped); ``None`` on failure.

    quadprog solves min ½ xᵀGx − aᵀx s.t. Cᵀx ≥ b with the first ``meq`` rows equalities.
    """
    n = f.shape[0]
    eye = np.eye(n)
    eq = lo == hi
    rows = [A[eq]]
    bounds = [lo[eq]]
    for sign, M, b in ((1.0, A[~eq], lo[~eq]), (-1.0, A[~eq], hi[~eq]),
                       (1.0, eye, lo_box), (-1.0, eye, hi_box)):  # fmt: skip
        keep = np.isfinite(b)
        rows.append(sign * M[keep])
        bounds.append(sign * b[keep])
    C = np.vstack(rows)
    try:
        x = quadprog.solve_qp(H, -f, C.T.copy(), np.concatenate(bounds), int(eq.sum()))[0]
    except ValueError:  # "constraints are inconsistent, no solution" / "matrix G is not PD"
        return None
    return np.asarray(x, float)
