"""Types of the compiled step loop (``_steploop.c``)."""

def run(plan: int, /) -> int:
    """Run steps of the plan at address ``plan``: 0 done, 1 event, 2 fatal."""

def slot_count() -> int:
    """Slots before the gather groups' (a layout check)."""

def capture_width() -> int:
    """Floats per captured contact (a layout check)."""
