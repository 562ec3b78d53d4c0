"""Small text helpers for what commands print."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 warning"``, ``"3 warnings"``, ``"0 warnings"`` (``many``: an irregular plural).

    Args:
        n: The count.
        word: The singular.
        many: The plural when it is not ``word + "s"``.
    """
    return f"{n} {word if n == 1 else (many or word + 's')}"
