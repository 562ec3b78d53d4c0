"""MuJoCo's own warning messages as findings, not raw text on the terminal.

The compiler warns while the model loads (``compiler attribute 'settotalmass' is
deprecated``); the engine warns while it steps (``Nan, Inf or huge value in QACC at DOF 3``,
``Too many contacts``). Both are captured (:func:`~mjscope.diagnose.episode.
collect_mujoco_warnings`) and reported here: a compiler message as MUJOCO_COMPILER_WARNING
with the element it names, a runtime message as MUJOCO_RUNTIME_MESSAGE (info: the warning
counters already raise DIVERGED or MUJOCO_WARNING for it), each distinct text once with its
count.
"""

from __future__ import annotations

import re

from mjscope.diagnose.checks.base import Finding

_ELEMENT = re.compile(r"(?:[Ee]lement|attribute|name) '([^']+)'")
_DOF = re.compile(r"DOF (\d+)")


def message_findings(compiler: list[str], runtime: list[str]) -> list[Finding]:
    """Findings for MuJoCo's captured compiler and runtime messages."""
    out = []
    for text, n in _counted(compiler).items():
        m = _ELEMENT.search(text)
        out.append(
            Finding(
                "MUJOCO_COMPILER_WARNING",
                "warning",
                f"compiler '{m.group(1)}'" if m else "compiler",
                f"MuJoCo's compiler warned{_times(n)}: {text}",
                "follow the compiler's advice in the model file (it will become an error)",
            )
        )
    for text, n in _counted(runtime).items():
        m = _DOF.search(text)
        out.append(
            Finding(
                "MUJOCO_RUNTIME_MESSAGE",
                "info",
                f"DOF {m.group(1)}" if m else "simulation",
                f"MuJoCo said{_times(n)}: {text}",
                "see the DIVERGED / MUJOCO_WARNING finding of the same run",
            )
        )
    return out


def _counted(messages: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for text in messages:
        t = " ".join(text.split())
        t = t.removeprefix("WARNING: ")
        out[t] = out.get(t, 0) + 1
    return out


def _times(n: int) -> str:
    return "" if n == 1 else f" {n} times"
