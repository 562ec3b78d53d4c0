"""Compare two diagnose CSVs column by column."""

from __future__ import annotations

import warnings
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
        try:
            header = f.readline().strip()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
                rows = np.loadtxt(f, delimiter=",", ndmin=2)
        except (ValueError, UnicodeDecodeError) as e:  # UnicodeDecodeError: binary file
            raise ModelLoadError(
                f"{p}: not a numeric diagnose CSV ({e}); pass a file from --csv"
            ) from e
    if not header:
        raise ModelLoadError(f"{p}: empty file, no header line; pass a file from --csv")
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
        ``only_a``/``only_b`` (columns in one file only), ``passed`` (same rows, same
        columns, every shared column within ``tol``).

    Raises:
        ConfigError: ``tol`` is negative or NaN, or the files share no column.
    """
    if not tol >= 0:  # also rejects NaN, which would make every deviation pass
        raise ConfigError(f"--tol {tol!r} must be a number ≥ 0")
    (na, ra), (nb, rb) = a, b
    if not set(na) & set(nb):
        raise ConfigError(
            f"the CSVs share no column (A: {', '.join(na[:5])}; B: {', '.join(nb[:5])}); "
            "compare two files written by diagnose --csv"
        )
    n = min(len(ra), len(rb))
    cols = [
        {"name": c, **_deviation(ra[:n, na.index(c)], rb[:n, nb.index(c)], tol)}
        for c in na
        if c in nb
    ]
    only_a = [x for x in na if x not in nb]
    only_b = [x for x in nb if x not in na]
    same_shape = len(ra) == len(rb) and not only_a and not only_b
    passed = same_shape and all(c["first_diverging_step"] is None for c in cols)
    return {
        "tol": tol,
        "rows_a": len(ra),
        "rows_b": len(rb),
        "columns": cols,
        "only_a": only_a,
        "only_b": only_b,
        "passed": passed,
    }


def _deviation(da: np.ndarray, db: np.ndarray, tol: float) -> dict[str, Any]:
    """``max_deviation`` and ``first_diverging_step`` of two ``(n,)`` columns.

    Equal values (both NaN, or the same infinity) deviate by 0; NaN against a number by inf.
    """
    equal = (da == db) | (np.isnan(da) & np.isnan(db))
    with np.errstate(invalid="ignore"):
        dev = np.where(equal, 0.0, np.abs(da - db))
    dev = np.where(np.isnan(dev), np.inf, dev)
    bad = np.flatnonzero(dev > tol)
    return {
        "max_deviation": float(dev.max()) if dev.size else 0.0,
        "first_diverging_step": int(bad[0]) if bad.size else None,
    }


def read_units(path: str | Path) -> dict[str, str]:
    """Column name → unit from a diagnose CSV's header (``com_z [m]`` → ``{"com_z": "m"}``)."""
    with Path(path).open(encoding="utf-8") as f:
        header = f.readline().strip()
    out = {}
    for h in header.split(","):
        name, _, unit = h.partition(" [")
        out[name.strip()] = unit.rstrip("]")
    return out


def rank_columns(
    res: dict[str, Any],
    a: tuple[list[str], np.ndarray],
    b: tuple[list[str], np.ndarray],
    units: dict[str, str] | None = None,
) -> list[tuple[str, float]]:
    """Shared columns by normalised deviation, largest first: ``(name, max|A−B| / scale)``.

    The scale of a column is its range in A, the reference (its largest magnitude when A holds
    it constant, 1 when zero), so a 1 mm drift in a height of 0.3 m ranks with a 1 N drift in
    a force of 300 N. Columns
    that do not differ at all come last; ``time`` and identifier columns (unit ``id``: geom
    ids, whose differences are not magnitudes) are left out.
    """
    units = units or {}
    (na, ra), rb = a, b[1]
    n = min(len(ra), len(rb))
    out = []
    for c in res["columns"]:
        name = c["name"]
        if name == "time" or units.get(name) == "id":
            continue
        ref = ra[:n, na.index(name)]
        finite = ref[np.isfinite(ref)]
        span = float(np.ptp(finite)) if finite.size else 0.0
        scale = span or (float(np.abs(finite).max()) if finite.size else 0.0) or 1.0
        out.append((name, float(c["max_deviation"]) / scale))
    return sorted(out, key=lambda kv: -kv[1])
