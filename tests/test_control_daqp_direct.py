"""daqp's C entry point through ctypes gives daqp.solve's answers bit for bit."""

from __future__ import annotations

import daqp
import numpy as np
import pytest

from mjscope.control import daqp_direct
from mjscope.control.qp import DenseQp

pytestmark = pytest.mark.skipif(
    not daqp_direct.AVAILABLE, reason="daqp's C layout is only known for daqp 0.11"
)


def _problem(rng: np.random.Generator, n: int, m: int, kind: str) -> tuple:
    """(H, f, A, bupper, blower, sense): feasible, infeasible, with equalities or soft box."""
    B = rng.normal(size=(n, n))
    H = B @ B.T + 0.05 * np.eye(n)
    f = rng.normal(size=n) * 3.0
    A = rng.normal(size=(m, n))
    x0 = rng.uniform(-1, 1, n)
    lo = np.r_[x0 - rng.uniform(0.01, 1, n), A @ x0 - rng.uniform(0.01, 1, m)]
    hi = np.r_[x0 + rng.uniform(0.01, 1, n), A @ x0 + rng.uniform(0.01, 1, m)]
    sense = np.zeros(n + m, np.int32)
    if kind == "eq":
        k = n + rng.integers(m)
        lo[k] = hi[k]
        sense[k] = 5
    elif kind == "infeasible":
        lo[n], hi[n] = 5.0 + abs(A[0]).sum() * 2, 6.0 + abs(A[0]).sum() * 2  # beyond the box
    elif kind == "soft":
        sense[:n] = 8
        lo[n], hi[n] = 5.0 + abs(A[0]).sum() * 2, 6.0 + abs(A[0]).sum() * 2
    elif kind == "inf":
        lo[: n // 2], hi[n // 2 : n] = -np.inf, np.inf
    return H, f, A, hi, lo, sense


@pytest.mark.parametrize("kind", ["feasible", "eq", "infeasible", "soft", "inf"])
def test_direct_equals_daqp_solve(kind: str) -> None:
    rng = np.random.default_rng(7)
    flags = set()
    for trial in range(60):
        n, m = 7, int(rng.integers(1, 14))
        H, f, A, bu, bl, sense = _problem(rng, n, m, kind)
        for iter_limit, rho in ((100, 1e-6), (3, 1e-4)):
            x_ref, _, flag_ref, info = daqp.solve(
                H, f, A, bu, bl, sense.copy(), iter_limit=iter_limit, rho_soft=rho
            )
            bufs = (H.copy(), f.copy(), A.copy(), bu.copy(), bl.copy(), sense.copy())
            x, flag, iters = daqp_direct.DirectDaqp(*bufs, iter_limit, rho).solve()
            flags.add(flag)
            assert flag == flag_ref, (trial, iter_limit)
            assert iters == info["iterations"]
            np.testing.assert_array_equal(x, x_ref)
    expected = {"feasible": {1, 2}, "eq": {1, 2}, "inf": {1, 2}, "infeasible": {-1},
                "soft": {1, 2}}[kind]  # fmt: skip
    assert flags & expected  # the kind of problem was really exercised
    if kind != "infeasible":
        assert -4 in flags  # (the 3-iteration cap hits on some problems)


def test_dense_qp_paths_agree_over_repeated_solves() -> None:
    """The same DenseQp filled again and again: C path == Python path, every solve."""
    rng = np.random.default_rng(3)
    qps = [DenseQp(7, 13, 50, direct=d, eq_rows=np.r_[np.zeros(7, bool), np.ones(6, bool)])
           for d in (True, False)]  # fmt: skip
    for _ in range(200):
        H, f, A, bu, bl, _ = _problem(rng, 7, 13, "feasible")
        x0 = rng.uniform(-0.5, 0.5, 7)
        bl[7 + 7 :] = bu[7 + 7 :] = A[7:] @ x0
        out = []
        for qp in qps:
            qp.H, qp.f, qp.A = H, f, A
            qp._bl[:], qp._bu[:] = bl, bu
            out.append(qp.solve())
        assert out[0].status == out[1].status and out[0].solver == out[1].solver
        np.testing.assert_array_equal(out[0].x, out[1].x)
    assert qps[0]._direct is not None and qps[1]._direct is None


def test_direct_returns_new_arrays() -> None:
    """Each solve's x is its own (the struct's buffer is reused)."""
    rng = np.random.default_rng(1)
    H, f, A, bu, bl, sense = _problem(rng, 7, 7, "feasible")
    solver = daqp_direct.DirectDaqp(H, f, A, bu, bl, sense, 100, 1e-6)
    x1 = solver.solve()[0]
    kept = x1.copy()
    f[:] = -f
    x2 = solver.solve()[0]
    np.testing.assert_array_equal(x1, kept)
    assert not np.array_equal(x1, x2)


def test_direct_rejects_bad_buffers() -> None:
    H, f, A = np.eye(3), np.zeros(3), np.zeros((2, 3))
    b, s = np.zeros(5), np.zeros(5, np.int32)
    with pytest.raises(RuntimeError, match="contiguous"):
        daqp_direct.DirectDaqp(H, f, np.zeros((3, 2)).T, b, b, s, 10, 1e-6)
    with pytest.raises(RuntimeError, match="int32"):
        daqp_direct.DirectDaqp(H, f, A, b, b, np.zeros(5, np.int64), 10, 1e-6)


def test_hqp_run_is_the_same_through_either_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """An hqp docking run (observer source: both QPs every period) sends the same torques."""
    from mjscope.benchmarks.bench_dock import observer_scene
    from mjscope.dock.run_docking import run_simulation
    from mjscope.dock.scene import load_scene

    scene = observer_scene(load_scene("iiwa14_docking"))
    direct = run_simulation(scene, "hqp", duration=0.6).log.arrays()["tau"]
    monkeypatch.setattr(daqp_direct, "AVAILABLE", False)
    wrapper = run_simulation(scene, "hqp", duration=0.6).log.arrays()["tau"]
    assert len(direct) == 600
    np.testing.assert_array_equal(direct, wrapper)
