"""The one compiled part: the diagnose rollout's step loop (``mjscope.diagnose._steploop``).

Everything else is in ``pyproject.toml``. The extension is optional: without a C compiler the
install still succeeds and diagnose runs its loop in Python (same results, slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "mjscope.diagnose._steploop",
            ["src/mjscope/diagnose/_steploop.c"],
            # -ffp-contract=off: no fused multiply-add, so the held motors' feedback is
            # NumPy's arithmetic bit for bit
            extra_compile_args=["-O2", "-ffp-contract=off"],
            optional=True,
        )
    ]
)
