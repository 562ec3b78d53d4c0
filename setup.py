"""The compiled parts: every ``src/mjscope/**/_*.c`` becomes the extension module of its path.

The headers beside them (``src/mjscope/**/*.h``, included by relative path) are each module's
dependencies, so editing one rebuilds them. Everything else is in ``pyproject.toml``. Each
extension is optional: without a C compiler the install still succeeds and the feature runs
its Python path (same results, slower).
"""

from pathlib import Path

from setuptools import Extension, setup

SRC = Path("src")


def _extensions() -> list[Extension]:
    headers = [h.as_posix() for h in sorted(SRC.glob("mjscope/**/*.h"))]
    out = []
    for c in sorted(SRC.glob("mjscope/**/_*.c")):
        name = ".".join(c.relative_to(SRC).with_suffix("").parts)
        out.append(
            Extension(
                name,
                [c.as_posix()],
                depends=headers,
                # -ffp-contract=off: no fused multiply-add, so the C arithmetic is Python's
                # and NumPy's bit for bit
                extra_compile_args=["-O2", "-ffp-contract=off"],
                optional=True,
            )
        )
    return out


setup(ext_modules=_extensions())
