"""Types of the compiled CSV formatter (``_csvformat.c``)."""

def format_block(
    address: int, rows: int, cols: int, row_stride: int, col_stride: int, kinds: bytes, /
) -> str | None:
    """CSV text of the float64 block at ``address``; ``None``: let Python format it."""
