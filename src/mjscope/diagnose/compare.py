"""Compare two diagnose CSVs column by column."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mjscope.exceptions import ConfigError, ModelLoadError


def read_csv(path: str | Path) -> tuple[list[str], np.ndarray]:
    """Column names (units stripped) and rows of a diagnose CSV.

    Raises:
        ModelLoadError: Missing file or not a numeric CSV with a header.
    """
    p = Path(path)
    if not p.is_file():
        raise ModelLoadError(f"CSV {str(p)!r} not found; check the path")
    with p.open(encoding="utf-8") as f:
        header = f.readline().strip()
        try:
            rows = np.loadtxt(f, delimiter=",", ndmin=2)
        except ValueError as e:
            raise ModelLoadError(
                f"{p}: not a numeric diagnose CSV ({e}); pass a file from --csv"
            ) from e
    names = [h.split(" [")[0].strip() for h in header.split(",")]
    if rows.size and rows.shape[1] != len(names):
        raise ModelLoadError(f"{p}: {rows.shape[1]} values per row but {len(names)} header names")
    return names, rows.reshape(-1, len(names))


def compare(
    a: tuple[list[str], np.ndarray], b: tuple[list[str], np.ndarray], tol: float
) -> dict[str, Any]:
    """Per shared column: max |A−B| and the first step where it exceeds ``tol``.

    Returns:
        ``columns`` (name, max_deviation, first_diverging_step), ``rows_a``, ``rows_b``,
        ``only_a``/``only_b`` (columns in one file only), ``passed``.
    """
    if tol < 0:
        raise ConfigError(f"--tol {tol!r} must be ≥ 0")
    (na, ra), (nb, rb) = a, b
    n = min(len(ra), len(rb))
    cols = []
    for c in [x for x in na if x in nb]:
        da = ra[:n, na.index(c)]
        db = rb[:n, nb.index(c)]
        both_nan = np.isnan(da) & np.isnan(db)
        dev = np.where(both_nan, 0.0, np.abs(da - db))
        dev = np.where(np.isnan(dev), np.inf, dev)
        bad = np.flatnonzero(dev > tol)
        cols.append(
            {
                "name": c,
                "max_deviation": float(dev.max()) if n else 0.0,
                "first_diverging_step": int(bad[0]) if bad.size else None,
            }
        )
    only_a = [x for x in na if x not in nb]
    only_b = [x for x in nb if x not in na]
    passed = all(c["first_diverging_step"] is None for c in cols) and len(ra) == len(rb)
    return {
        "tol": tol,
        "rows_a": len(ra),
        "rows_b": len(rb),
        "columns": cols,
        "only_a": only_a,
        "only_b": only_b,
        "passed": passed,
    }
