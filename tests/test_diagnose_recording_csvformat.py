"""The compiled CSV formatter writes Python's ``%`` bytes for every kind of value."""

import os

import numpy as np
import pytest

from mjscope.diagnose.recording import csvsink
from mjscope.diagnose.recording.csvsink import (
    INTEGER_FORMAT,
    NUMBER_FORMAT,
    format_rows,
    format_rows_python,
)

needs_compiled = pytest.mark.skipif(
    csvsink._csvformat is None and not os.environ.get("CI"),
    reason="the compiled CSV formatter was not built (no C compiler at install)",
)


def _fmt(kinds: str) -> str:
    return ",".join(INTEGER_FORMAT if k == "d" else NUMBER_FORMAT for k in kinds) + "\n"


def _awkward(rng: np.random.Generator, n: int) -> np.ndarray:
    """Values that stress a formatter: scales, ties, subnormals, ±0, inf, NaN, repeats."""
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-320, 300, n)
    picks = rng.integers(0, 9, n)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1.5, 0.1, 123456789.25])
    x = np.where(rng.random(n) < 0.2, special[picks], x)
    x[rng.random(n) < 0.3] = 2.5  # repeated cells: the row above's text is reused
    return x


def test_available_where_built():
    if os.environ.get("CI"):
        assert csvsink._csvformat is not None


@needs_compiled
@pytest.mark.parametrize("seed", range(6))
def test_floats_are_pythons_bytes(seed):
    rng = np.random.default_rng(seed)
    rows = _awkward(rng, 400 * 7).reshape(400, 7)
    for block in (rows, np.asfortranarray(rows), rows[::3, 1:]):  # any strides
        kinds = "g" * block.shape[1]
        assert format_rows(_fmt(kinds), block) == format_rows_python(_fmt(kinds), block)


@needs_compiled
def test_integer_columns_truncate_and_fall_back_like_python():
    rng = np.random.default_rng(7)
    rows = np.column_stack(
        [rng.integers(-10**6, 10**6, 300).astype(float) + rng.random(300), rng.random(300),
         np.full(300, -0.0), rng.integers(0, 40, 300).astype(float)]
    )  # fmt: skip
    fmt = _fmt("dgdd")
    assert format_rows(fmt, rows) == format_rows_python(fmt, rows)
    rows[17, 0] = np.nan  # a diverged counter: the whole block as floats, as Python does
    assert format_rows(fmt, rows) == format_rows_python(fmt, rows)
    assert "nan" in format_rows(fmt, rows)
    rows[17, 0] = 3e19  # past int64: Python prints the big integer
    assert format_rows(fmt, rows) == format_rows_python(fmt, rows)
    assert "30000000000000000000" in format_rows(fmt, rows)


@needs_compiled
def test_other_formats_and_empty_blocks_go_to_python(monkeypatch):
    rows = np.arange(12.0).reshape(4, 3)
    assert format_rows("%.3f,%.3f,%.3f\n", rows) == format_rows_python("%.3f,%.3f,%.3f\n", rows)
    assert format_rows(_fmt("ggg"), rows[:0]) == ""
    monkeypatch.setenv(csvsink.FORMAT_ENV, "python")
    called = []
    monkeypatch.setattr(csvsink, "format_rows_python", lambda f, r: called.append(1) or "")
    format_rows(_fmt("ggg"), rows)
    assert called
