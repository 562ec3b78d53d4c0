"""The dense QP layer: daqp against quadprog, equalities, infeasibility and its fallback."""

from __future__ import annotations

import math

import numpy as np
import pytest
import quadprog

from mjscope.control.qp import DenseQp, solve_qp
from tests.utils import assert_close


def _random_problem(rng: np.random.Generator, n: int, m: int) -> tuple:
    """A feasible random QP: box and two-sided rows around a random interior point."""
    B = rng.normal(size=(n, n))
    H = B @ B.T + 0.1 * np.eye(n)
    f = rng.normal(size=n) * 5.0
    A = rng.normal(size=(m, n))
    x0 = rng.uniform(-0.5, 0.5, n)  # strictly feasible point
    Ax0 = A @ x0
    lb, ub = Ax0 - rng.uniform(0.05, 1.0, m), Ax0 + rng.uniform(0.05, 1.0, m)
    x_lb, x_ub = x0 - rng.uniform(0.05, 1.0, n), x0 + rng.uniform(0.05, 1.0, n)
    return H, f, A, lb, ub, x_lb, x_ub


def _quadprog_reference(H, f, A, lb, ub, x_lb, x_ub, meq_rows=None) -> np.ndarray:
    n = len(f)
    eye = np.eye(n)
    C = np.vstack([A, -A, eye, -eye])
    b = np.concatenate([lb, -ub, x_lb, -x_ub])
    meq = 0
    if meq_rows is not None:
        C = np.vstack([meq_rows[0], C])
        b = np.concatenate([meq_rows[1], b])
        meq = len(meq_rows[1])
    return quadprog.solve_qp(H, -f, C.T.copy(), b, meq)[0]


@pytest.mark.parametrize(("n", "m"), [(7, 7), (14, 14), (7, 21)])
def test_matches_quadprog_on_random_problems(n: int, m: int) -> None:
    rng = np.random.default_rng(n * 100 + m)
    active = 0
    for _ in range(40):  # 120 problems in all
        H, f, A, lb, ub, x_lb, x_ub = _random_problem(rng, n, m)
        res = solve_qp(H, f, A, lb, ub, x_lb, x_ub)
        assert res.status == "optimal" and res.solver == "daqp" and not res.fallback_used
        ref = _quadprog_reference(H, f, A, lb, ub, x_lb, x_ub)
        assert_close(res.x, ref, atol=1e-7, what="daqp vs quadprog")
        active += int(np.any(np.isclose(A @ ref, ub)) or np.any(np.isclose(ref, x_ub)))
    assert active > 30  # the problems exercise active constraints, not just the free minimum


def test_equality_rows_hold_and_match_quadprog() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        H, f, A, lb, ub, x_lb, x_ub = _random_problem(rng, 7, 7)
        x_lb, x_ub = x_lb - 5.0, x_ub + 5.0  # room for the equality
        E = rng.normal(size=(2, 7))
        e = E @ rng.uniform(-0.2, 0.2, 7)
        A2 = np.vstack([A, E])
        res = solve_qp(H, f, A2, np.r_[lb - 5.0, e], np.r_[ub + 5.0, e], x_lb, x_ub)
        assert res.status == "optimal"
        assert_close(E @ res.x, e, atol=1e-9, what="equality rows")
        ref = _quadprog_reference(H, f, A, lb - 5.0, ub + 5.0, x_lb, x_ub, (E, e))
        assert_close(res.x, ref, atol=1e-7)


def test_unconstrained_and_infinite_bounds() -> None:
    H = np.diag([2.0, 4.0])
    f = np.array([-2.0, 4.0])
    res = solve_qp(H, f, x_lb=[-math.inf, -0.5], x_ub=[math.inf, math.inf])
    assert_close(res.x, [1.0, -0.5], atol=1e-12)
    res = solve_qp(H, f)
    assert_close(res.x, [1.0, -1.0], atol=1e-12)


def test_infeasible_problem_is_reported_and_falls_back_without_nan() -> None:
    H, f = np.eye(2), np.array([1.0, -1.0])
    A = np.array([[1.0, 1.0], [1.0, 1.0]])  # x0 + x1 ≥ 2 and x0 + x1 ≤ −1: infeasible
    res = solve_qp(H, f, A, [2.0, -math.inf], [math.inf, -1.0], [-3, -3], [3, 3],
                   fallback=[5.0, np.nan])  # fmt: skip
    assert res.status == "infeasible"
    assert res.solver == "none" and not res.solved and res.fallback_used
    assert_close(res.x, [3.0, 0.0])  # fallback: NaN → 0, then projected on the box
    res = solve_qp(H, f, A, [2.0, -math.inf], [math.inf, -1.0], use_quadprog=False)
    assert res.solver == "none" and np.all(np.isfinite(res.x))
    assert_close(res.x, [0.0, 0.0])


def test_iteration_cap_hands_over_to_quadprog() -> None:
    rng = np.random.default_rng(3)
    H, f, A, lb, ub, x_lb, x_ub = _random_problem(rng, 7, 21)
    qp = DenseQp(7, 21, iter_limit=1)
    qp.H, qp.f, qp.A = H, f, A
    qp.lb[:], qp.ub[:], qp.x_lb[:], qp.x_ub[:] = lb, ub, x_lb, x_ub
    res = qp.solve()
    assert res.status == "iter_limit" and res.solver == "quadprog" and res.solved
    assert_close(res.x, _quadprog_reference(H, f, A, lb, ub, x_lb, x_ub), atol=1e-9)


def test_dense_qp_is_reusable_in_place() -> None:
    rng = np.random.default_rng(11)
    qp = DenseQp(7, 7)
    for _ in range(10):
        H, f, A, lb, ub, x_lb, x_ub = _random_problem(rng, 7, 7)
        qp.H[:], qp.f[:], qp.A[:], qp.lb[:], qp.ub[:] = H, f, A, lb, ub
        qp.x_lb[:], qp.x_ub[:] = x_lb, x_ub
        res = qp.solve()
        assert_close(res.x, _quadprog_reference(H, f, A, lb, ub, x_lb, x_ub), atol=1e-7)


def test_shared_bound_storage_is_used_in_place_and_checked() -> None:
    rng = np.random.default_rng(12)
    lo, hi = np.zeros(14), np.zeros(14)  # a larger QP's bound rows; this one uses their head
    store = (lo[:12], hi[:12])
    qp = DenseQp(7, 5, bounds=store)
    assert np.all(lo[:12] == -math.inf) and np.all(hi[:12] == math.inf)  # filled by the QP
    assert np.all(lo[12:] == 0.0)  # rows past its own are untouched
    H, f, A, lb, ub, x_lb, x_ub = _random_problem(rng, 7, 5)
    qp.H[:], qp.f[:], qp.A[:], qp.lb[:], qp.ub[:] = H, f, A, lb, ub
    qp.x_lb[:], qp.x_ub[:] = x_lb, x_ub
    assert_close(lo[7:12], lb, atol=0)
    assert_close(hi[:7], x_ub, atol=0)
    res = qp.solve()
    assert_close(res.x, _quadprog_reference(H, f, A, lb, ub, x_lb, x_ub), atol=1e-7)
    with pytest.raises(ValueError, match=r"two contiguous \(12,\) arrays"):
        DenseQp(7, 5, bounds=(np.zeros(11), np.zeros(12)))
    with pytest.raises(ValueError, match="contiguous"):
        DenseQp(7, 5, bounds=(np.zeros(24)[::2], np.zeros(12)))


def test_soft_box_gives_way_to_hard_rows() -> None:
    """x0 ∈ [2, 3] (soft) against x0 ≤ 1 (hard): the box yields, the hard row holds."""
    H, f = np.eye(2), np.array([-1.0, -1.0])
    A = np.array([[1.0, 0.0], [1.0, 1.0]])
    qp = DenseQp(2, 2, soft_box=True)
    qp.H, qp.f, qp.A = H, f, A
    qp.lb[:], qp.ub[:] = [-math.inf, -math.inf], [1.0, 1.5]
    qp.x_lb[:], qp.x_ub[:] = [2.0, -10.0], [3.0, 10.0]
    res = qp.solve()
    assert res.solver == "daqp" and res.status == "optimal"
    assert_close(res.x, [1.0, 0.5], atol=1e-6)
    hard = DenseQp(2, 2)
    hard.H, hard.f, hard.A = H, f, A
    hard.lb[:], hard.ub[:], hard.x_lb[:], hard.x_ub[:] = qp.lb, qp.ub, qp.x_lb, qp.x_ub
    assert hard.solve().status == "infeasible"


def test_within_tolerance_nan_and_infinite_bounds() -> None:
    from mjscope.control.qp import within

    lo, hi = np.array([-1.0, -math.inf, 0.0]), np.array([1.0, 2.0, math.inf])
    assert within(np.array([1.0 + 5e-7, -1e9, 1e9]), lo, hi, 1e-6)
    assert not within(np.array([1.0 + 2e-6, 0.0, 0.0]), lo, hi, 1e-6)  # over the upper bound
    assert not within(np.array([0.0, 0.0, -2e-6]), lo, hi, 1e-6)  # under the lower bound
    assert not within(np.array([0.0, math.nan, 0.0]), lo, hi, 1e-6)
    assert not within(np.array([0.0, 0.0, math.inf]), lo, hi, 1e-6)  # inf - inf is NaN
    z = np.random.default_rng(0).uniform(-2, 2, (200, 3))
    for row in z:  # the array form it replaces
        t = np.maximum(lo - row, row - hi)
        assert within(row, lo, hi, 1e-6) == bool(np.all(t <= 1e-6))
